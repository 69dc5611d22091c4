#include "command.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace attune::cli {
namespace {

struct Run {
    int code;
    std::string out, err;
    std::string seen_ns, seen_target;
    OutputFormat seen_output = OutputFormat::Table;
};

Run run(std::vector<std::string_view> args) {
    Run r{};
    std::vector<Command> cmds;
    Command c;
    c.name = "probe";
    c.summary = "a test command";
    c.usage = "kubectl attune probe [--target 1.N]";
    c.flags = {{"target", 0, FlagKind::Value, "1.N", "the target"}};
    c.usage_exit = 3;
    c.run = [&r](Invocation& inv) {
        r.seen_ns = inv.common.ns;
        r.seen_target = inv.flags.get("target");
        r.seen_output = inv.common.output;
        inv.out << "ran\n";
        return 0;
    };
    cmds.push_back(c);
    std::ostringstream out, err;
    r.code = dispatch(args, cmds, out, err, false);
    r.out = out.str();
    r.err = err.str();
    return r;
}

TEST(Dispatch, SharedAndOwnFlagsOnEitherSideOfTheCommand) {
    auto r = run({"-n", "kube-system", "probe", "--target", "1.36", "-o", "json"});
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.out, "ran\n");
    EXPECT_EQ(r.seen_ns, "kube-system");
    EXPECT_EQ(r.seen_target, "1.36");
    EXPECT_EQ(r.seen_output, OutputFormat::Json);
}

TEST(Dispatch, HelpPerCommandAndForTheRoot) {
    auto r = run({"probe", "--help"});
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(r.out.find("kubectl attune probe [--target 1.N]"), std::string::npos);
    EXPECT_NE(r.out.find("--target 1.N"), std::string::npos);
    EXPECT_NE(r.out.find("-n, --namespace NAME"), std::string::npos);
    auto root = run({"--help"});
    EXPECT_EQ(root.code, 0);
    EXPECT_NE(root.out.find("probe   a test command"), std::string::npos);
    EXPECT_EQ(run({}).code, 0);
}

TEST(Dispatch, UsageErrorsGoToStderrWithTheCommandsUsageExit) {
    auto unknown_cmd = run({"nope"});
    EXPECT_EQ(unknown_cmd.code, 2);
    EXPECT_TRUE(unknown_cmd.out.empty());
    EXPECT_NE(unknown_cmd.err.find("unknown command \"nope\""), std::string::npos);

    auto bad_flag = run({"probe", "--bogus"});
    EXPECT_EQ(bad_flag.code, 3);  // the command's own usage exit
    EXPECT_NE(bad_flag.err.find("error: unknown flag: --bogus"), std::string::npos);
    EXPECT_NE(bad_flag.err.find("kubectl attune probe --help"), std::string::npos);

    auto bad_output = run({"probe", "-o", "xml"});
    EXPECT_EQ(bad_output.code, 3);
    EXPECT_NE(bad_output.err.find("allowed formats are: json,table,wide,yaml"), std::string::npos);

    auto bad_level = run({"probe", "--log-level", "loud"});
    EXPECT_EQ(bad_level.code, 3);
}

}  // namespace
}  // namespace attune::cli
