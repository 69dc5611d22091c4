#include "context_fanout.hpp"

#include <boost/json.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace attune::cli {
namespace {
namespace json = boost::json;
using Names = std::vector<std::string>;

TEST(ContextFanout, ParseContextList) {
    struct Case {
        const char* value;
        Names want;  // empty: a usage error
    };
    const Case cases[] = {
        {"prod", {"prod"}},
        {"prod,dev", {"prod", "dev"}},
        {" prod , dev ,prod", {"prod", "dev"}},  // trimmed, the repeat dropped, order kept
        {"a,,b,", {"a", "b"}},
        {"", {}},
        {" , ,", {}},
    };
    for (const auto& c : cases) {
        const auto got = parse_context_list(c.value);
        if (c.want.empty()) {
            ASSERT_FALSE(got) << c.value;
            EXPECT_EQ(got.error().code, "bad_usage");
        } else {
            ASSERT_TRUE(got) << c.value;
            EXPECT_EQ(got.value(), c.want) << c.value;
        }
    }
}

ParsedFlags flags(std::map<std::string, std::string, std::less<>> values) {
    ParsedFlags f;
    f.values = std::move(values);
    return f;
}

TEST(ContextFanout, RequestedContextsRefusesConflictsAsUsageErrors) {
    CommonOptions common;
    EXPECT_TRUE(requested_contexts(flags({}), common).value().empty());
    EXPECT_EQ(requested_contexts(flags({{"contexts", "b,a"}}), common).value(), (Names{"b", "a"}));
    struct Case {
        std::map<std::string, std::string, std::less<>> values;
        std::string context;
        const char* message;
    };
    const Case cases[] = {
        {{{"contexts", "a"}, {"all-contexts", "true"}}, "", "--contexts and --all-contexts cannot be combined"},
        {{{"contexts", "a"}}, "prod", "--contexts cannot be combined with --context"},
        {{{"all-contexts", "true"}}, "prod", "--all-contexts cannot be combined with --context"},
        {{{"contexts", "a"}, {"watch", "true"}}, "", "--contexts cannot be combined with --watch"},
        {{{"contexts", ","}}, "", "--contexts names no context"},
    };
    for (const auto& c : cases) {
        CommonOptions o;
        o.context = c.context;
        const auto got = requested_contexts(flags(c.values), o);
        ASSERT_FALSE(got) << c.message;
        EXPECT_EQ(got.error().code, "bad_usage");
        EXPECT_EQ(got.error().message, c.message);
    }
}

TEST(ContextFanout, AllContextsReadsTheKubeconfigSorted) {
    const auto path = std::filesystem::temp_directory_path() / ("attune-fanout-" + std::to_string(::getpid()));
    std::ofstream(path) << "contexts:\n- name: zeta\n  context: {cluster: c}\n- name: alpha\n  context: {cluster: c}\n";
    CommonOptions o;
    o.kubeconfig = path.string();
    EXPECT_EQ(requested_contexts(flags({{"all-contexts", "true"}}), o).value(), (Names{"alpha", "zeta"}));
    std::ofstream(path) << "current-context: x\n";
    auto none = requested_contexts(flags({{"all-contexts", "true"}}), o);
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().message, "the kubeconfig defines no context");
    std::ofstream(path) << "contexts: 7\n";
    auto bad = requested_contexts(flags({{"all-contexts", "true"}}), o);
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("'contexts' must be a list"), std::string::npos) << bad.error().message;
    std::filesystem::remove(path);
}

TEST(ContextFanout, RecordsAndColumnsCarryTheContext) {
    json::array records{json::object{{"name", "web"}}, json::object{{"name", "api"}}};
    tag_records_with_context(records, "prod");
    EXPECT_EQ(records.at(1).at("context").as_string(), "prod");
    const auto cols = with_context_column({{"NAME", "name"}});
    ASSERT_EQ(cols.size(), 2u);
    EXPECT_EQ(cols[0].header, "CONTEXT");
    EXPECT_EQ(cols[0].path, "context");
    EXPECT_EQ(cols[1].header, "NAME");
}

TEST(ContextFanout, ErrorsNameTheirContext) {
    EXPECT_EQ(name_context_in_errors("error: cannot list AttunePolicies: 403\n", "prod"),
              "error: context \"prod\": cannot list AttunePolicies: 403\n");
    EXPECT_EQ(name_context_in_errors("a log line\nerror: gave up after 30s (--request-timeout)\n", "dev"),
              "a log line\nerror: context \"dev\": gave up after 30s (--request-timeout)\n");
    EXPECT_EQ(name_context_in_errors("", "dev"), "");
}

}  // namespace
}  // namespace attune::cli
