#include "attune/core/util/duration.hpp"

#include <gtest/gtest.h>

namespace attune::core {
namespace {

using namespace std::chrono_literals;

TEST(Duration, ParsesGoDurations) {
    const struct {
        const char* text;
        Duration want;
    } cases[] = {
        {"0", 0ns},          {"0s", 0ns},         {"90s", 90s},          {"1h30m", 90min},   {"500ms", 500ms},
        {"1.5h", 90min},     {"1h0m0s", 1h},      {"168h", 168h},        {"2us", 2us},       {"3\xC2\xB5s", 3us},
        {"4\xCE\xBCs", 4us}, {"7ns", 7ns},        {"-5m", -5min},        {"+10s", 10s},      {".5s", 500ms},
        {"1.s", 1s},         {"1m30.5s", 90500ms}, {"2562047h", 2562047h},
    };
    for (const auto& c : cases) {
        auto d = parse_duration(c.text);
        ASSERT_TRUE(d.ok()) << c.text << ": " << d.error().message;
        EXPECT_EQ(d.value(), c.want) << c.text;
    }
}

TEST(Duration, RejectsWhatGoRejects) {
    for (const char* bad : {"", "5", "m", "1x", "1h 30m", ".s", "-", "1hh", "abc", "3000000h", "1e3s"}) {
        auto d = parse_duration(bad);
        ASSERT_FALSE(d.ok()) << bad;
        EXPECT_EQ(d.error().code, "invalid_duration");
        EXPECT_NE(d.error().message.find(std::string("\"") + bad + "\""), std::string::npos) << d.error().message;
    }
}

TEST(Duration, FormatsLikeGo) {
    const struct {
        Duration d;
        const char* want;
    } cases[] = {
        {0ns, "0s"},     {1h, "1h0m0s"},        {90min, "1h30m0s"}, {90s, "1m30s"},  {500ms, "500ms"},
        {1500us, "1.5ms"}, {2us, "2\xC2\xB5s"}, {7ns, "7ns"},       {-5min, "-5m0s"}, {90500ms, "1m30.5s"},
        {168h, "168h0m0s"},
    };
    for (const auto& c : cases) EXPECT_EQ(format_duration(c.d), c.want);
}

// Rows from the lifecycle branch, also checked against Go.
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
        auto r = parse_duration(c.in);
        ASSERT_TRUE(r.ok()) << c.in << ": " << r.error().message;
        EXPECT_EQ(r.value(), c.want) << c.in;
    }
}

TEST(GoDuration, RejectsWithTheTextQuoted) {
    for (const char* in : {"", "-", "5", "1m5", "h", "1d", "1.5", "..5s", "1hh", "5 m", "2562048h", "abc"}) {
        auto r = parse_duration(in);
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
    for (const auto& c : cases) EXPECT_EQ(format_duration(c.in), c.want);
}

TEST(GoDuration, FormatThenParseIsIdentity) {
    for (nanoseconds d : {nanoseconds{1}, nanoseconds{999}, nanoseconds{123456789}, nanoseconds{86'400'000'000'123},
                          nanoseconds{-7'000'000'001}}) {
        auto r = parse_duration(format_duration(d));
        ASSERT_TRUE(r.ok()) << format_duration(d);
        EXPECT_EQ(r.value(), d);
    }
}

}  // namespace
}  // namespace attune::core
