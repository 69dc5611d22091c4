#include "attune/core/go_duration.hpp"

#include <gtest/gtest.h>

namespace attune::core {
namespace {

using namespace std::chrono_literals;
using std::chrono::nanoseconds;

// Each row was checked against Go's time.ParseDuration / Duration.String.
TEST(GoDuration, ParsesWhatTimeParseDurationAccepts) {
    struct Case {
        const char* in;
        nanoseconds want;
    } cases[] = {
        {"0", 0ns},           {"0s", 0ns},           {"90s", 90s},         {"1h30m", 90min},
        {"500ms", 500ms},     {"1.5h", 90min},       {"-1m", -1min},       {"+5s", 5s},
        {".5s", 500ms},       {"1.s", 1s},           {"1us", 1us},         {"1\xC2\xB5s", 1us},
        {"1\xCE\xBCs", 1us},  {"10ns", 10ns},        {"1h1m1s1ms", 3661001ms},
        {"2562047h47m16.854775807s", nanoseconds{INT64_MAX}},
    };
    for (const auto& c : cases) {
        auto r = parse_go_duration(c.in);
        ASSERT_TRUE(r.ok()) << c.in << ": " << r.error().message;
        EXPECT_EQ(r.value(), c.want) << c.in;
    }
}

TEST(GoDuration, RejectsWithTheTextQuoted) {
    for (const char* in : {"", "-", "5", "1m5", "h", "1d", "1.5", "..5s", "1hh", "5 m", "2562048h", "abc"}) {
        auto r = parse_go_duration(in);
        ASSERT_FALSE(r.ok()) << in;
        EXPECT_EQ(r.error().code, "invalid_duration");
        EXPECT_NE(r.error().message.find(std::string("\"") + in + "\""), std::string::npos) << r.error().message;
    }
}

TEST(GoDuration, FormatsAsDurationString) {
    struct Case {
        nanoseconds in;
        const char* want;
    } cases[] = {{0ns, "0s"},          {1ns, "1ns"},         {1500ns, "1.5\xC2\xB5s"}, {500ms, "500ms"},
                 {1500ms, "1.5s"},     {5min, "5m0s"},       {90min, "1h30m0s"},       {1h, "1h0m0s"},
                 {-90s, "-1m30s"},     {3661001ms, "1h1m1.001s"}};
    for (const auto& c : cases) EXPECT_EQ(format_go_duration(c.in), c.want);
}

TEST(GoDuration, FormatThenParseIsIdentity) {
    for (nanoseconds d : {nanoseconds{1}, nanoseconds{999}, nanoseconds{123456789}, nanoseconds{86'400'000'000'123},
                          nanoseconds{-7'000'000'001}}) {
        auto r = parse_go_duration(format_go_duration(d));
        ASSERT_TRUE(r.ok()) << format_go_duration(d);
        EXPECT_EQ(r.value(), d);
    }
}

}  // namespace
}  // namespace attune::core
