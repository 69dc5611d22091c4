#include "flags.hpp"

#include <gtest/gtest.h>

namespace attune::cli {
namespace {

const std::vector<FlagSpec> kSpecs = {
    {"namespace", 'n', FlagKind::Value, "NAME", "ns"}, {"all-namespaces", 'A', FlagKind::Boolean, "", "all"},
    {"output", 'o', FlagKind::Value, "FORMAT", "fmt"}, {"target", 0, FlagKind::Value, "1.N", "target"},
    {"no-headers", 0, FlagKind::Boolean, "", "nh"},
};

core::Result<ParsedFlags> parse(std::vector<std::string_view> args) { return parse_flags(args, kSpecs); }

TEST(ParseFlags, EveryKubectlSpellingOfAValueFlag) {
    struct Case {
        std::vector<std::string_view> args;
        std::string want;
    } cases[] = {
        {{"--namespace=web"}, "web"}, {{"--namespace", "web"}, "web"}, {{"-n", "web"}, "web"},
        {{"-nweb"}, "web"},           {{"-n=web"}, "web"},             {{"-n", "a", "-n", "web"}, "web"},
        {{"--namespace="}, ""},
    };
    for (const auto& c : cases) {
        auto r = parse(c.args);
        ASSERT_TRUE(r.ok()) << c.args[0];
        EXPECT_EQ(r.value().get("namespace", "<unset>"), c.want) << c.args[0];
    }
}

TEST(ParseFlags, BooleansTakeNoValueUnlessJoinedWithEquals) {
    auto r = parse({"-A", "status", "--no-headers=false"});
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r.value().flag("all-namespaces"));
    EXPECT_FALSE(r.value().flag("no-headers"));
    EXPECT_TRUE(r.value().has("no-headers"));
    ASSERT_EQ(r.value().positionals.size(), 1u);
    EXPECT_EQ(r.value().positionals[0], "status");
}

TEST(ParseFlags, AnImplicitValueStandsAloneAndTakesOnlyAJoinedOne) {
    const std::vector<FlagSpec> specs = {{"dry-run", 0, FlagKind::Value, "MODE", "dr", "client"},
                                         {"namespace", 'n', FlagKind::Value, "NAME", "ns"}};
    struct Case {
        std::vector<std::string_view> args;
        std::string want;
        std::size_t positionals;
    } cases[] = {
        {{"--dry-run"}, "client", 0},
        {{"--dry-run=server"}, "server", 0},
        {{"--dry-run", "web"}, "client", 1},  // the next argument is never its value
        {{"--dry-run", "-n", "x"}, "client", 0},
        {{}, "<unset>", 0},
    };
    for (const auto& c : cases) {
        auto r = parse_flags(c.args, specs);
        ASSERT_TRUE(r.ok());
        EXPECT_EQ(r.value().get("dry-run", "<unset>"), c.want);
        EXPECT_EQ(r.value().positionals.size(), c.positionals);
    }
    EXPECT_NE(flags_help(specs).find("--dry-run[=client]"), std::string::npos);
}

TEST(ParseFlags, PositionalsInterleaveAndDoubleDashEndsFlags) {
    auto r = parse({"a", "-n", "x", "b", "--", "-n", "--target"});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.value().get("namespace"), "x");
    EXPECT_EQ(r.value().positionals, (std::vector<std::string>{"a", "b", "-n", "--target"}));
}

TEST(ParseFlags, UsageErrorsSayWhatKubectlSays) {
    struct Case {
        std::vector<std::string_view> args;
        std::string want;
    } cases[] = {
        {{"--bogus"}, "unknown flag: --bogus"},
        {{"-x"}, "unknown flag: -x"},
        {{"--target"}, "flag needs an argument: --target"},
        {{"-n"}, "flag needs an argument: -n"},
        {{"--no-headers=maybe"}, "invalid argument \"maybe\" for \"--no-headers\": expected true or false"},
    };
    for (const auto& c : cases) {
        auto r = parse(c.args);
        ASSERT_FALSE(r.ok()) << c.args[0];
        EXPECT_EQ(r.error().code, "bad_usage");
        EXPECT_EQ(r.error().message, c.want);
    }
}

TEST(FindSubcommand, SkipsGlobalFlagValuesBeforeIt) {
    struct Case {
        std::vector<std::string_view> args;
        std::optional<std::size_t> want;
    } cases[] = {
        {{"version"}, 0},
        {{"-n", "kube-system", "upgrade-gate"}, 2},
        {{"--namespace=x", "upgrade-gate"}, 1},
        {{"-A", "status"}, 1},
        {{"-o", "json"}, std::nullopt},
        {{"--help"}, std::nullopt},
        {{}, std::nullopt},
    };
    for (const auto& c : cases) EXPECT_EQ(find_subcommand(c.args, kSpecs), c.want);
}

TEST(ParseDuration, KubectlUnitsAndBareSeconds) {
    using namespace std::chrono;
    EXPECT_EQ(parse_duration("t", "30").value(), milliseconds(30'000));
    EXPECT_EQ(parse_duration("t", "30s").value(), milliseconds(30'000));
    EXPECT_EQ(parse_duration("t", "500ms").value(), milliseconds(500));
    EXPECT_EQ(parse_duration("t", "10m").value(), milliseconds(600'000));
    EXPECT_EQ(parse_duration("t", "1h").value(), milliseconds(3'600'000));
    EXPECT_FALSE(parse_duration("t", "ten").ok());
    EXPECT_FALSE(parse_duration("t", "5d").ok());
    EXPECT_FALSE(parse_duration("t", "-1s").ok());
}

TEST(FlagsHelp, AlignsTheHelpColumn) {
    const std::vector<FlagSpec> specs = {{"namespace", 'n', FlagKind::Value, "NAME", "the namespace"},
                                         {"all-namespaces", 'A', FlagKind::Boolean, "", "every namespace"}};
    EXPECT_EQ(flags_help(specs),
              "  -n, --namespace NAME   the namespace\n"
              "  -A, --all-namespaces   every namespace\n");
}

}  // namespace
}  // namespace attune::cli
