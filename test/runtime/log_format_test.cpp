#include <attune/kube/log_format.hpp>

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

namespace attune::kube {
namespace {

TEST(JsonLogLine, SplitsKeyValuesIntoFields) {
    auto line = json_log_line("2026-01-01T00:00:00.000Z", "info",
                              R"(policy status written namespace=team-a name=web resourceVersion=42 error="a \"b\" c")");
    auto v = boost::json::parse(line).as_object();
    EXPECT_EQ(v.at("msg"), "policy status written");
    EXPECT_EQ(v.at("namespace"), "team-a");
    EXPECT_EQ(v.at("name"), "web");
    EXPECT_EQ(v.at("resourceVersion"), "42");
    EXPECT_EQ(v.at("error"), R"(a "b" c)");
    EXPECT_EQ(v.at("level"), "info");
}

TEST(JsonLogLine, FreeTextStaysWhole) {
    auto v = boost::json::parse(json_log_line("t", "warn", "no pairs here")).as_object();
    EXPECT_EQ(v.at("msg"), "no pairs here");
    auto broken = boost::json::parse(json_log_line("t", "warn", R"(x a=1 b="unterminated)")).as_object();
    EXPECT_EQ(broken.at("msg"), R"(x a=1 b="unterminated)");
}

TEST(JsonLogLine, ReservedKeysDoNotClobber) {
    auto v = boost::json::parse(json_log_line("t", "info", "hello level=evil")).as_object();
    EXPECT_EQ(v.at("level"), "info");
    EXPECT_EQ(v.at("field.level"), "evil");
}

}  // namespace
}  // namespace attune::kube
