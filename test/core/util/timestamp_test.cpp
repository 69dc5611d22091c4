#include "attune/core/util/timestamp.hpp"

#include <gtest/gtest.h>

namespace attune::core {
namespace {

using namespace std::chrono;

Timestamp at(int y, unsigned mo, unsigned d, int h, int mi, int s) {
    return Timestamp{sys_days{year{y} / month{mo} / day{d}} + hours{h} + minutes{mi} + seconds{s}};
}

TEST(Timestamp, FormatsUtcWithWholeSeconds) {
    EXPECT_EQ(format_timestamp(at(2026, 12, 1, 10, 0, 0)), "2026-12-01T10:00:00Z");
    EXPECT_EQ(format_timestamp(Timestamp{}), "1970-01-01T00:00:00Z");
    EXPECT_EQ(format_timestamp(at(2024, 2, 29, 23, 59, 59)), "2024-02-29T23:59:59Z");
}

// Rows checked against Go's time.Parse(time.RFC3339, ...).
TEST(Timestamp, ParsesRfc3339) {
    struct Case {
        const char* in;
        Timestamp want;
    } cases[] = {
        {"2026-12-01T10:00:00Z", at(2026, 12, 1, 10, 0, 0)},
        {"2026-12-01T10:00:00.999999Z", at(2026, 12, 1, 10, 0, 0)},  // fraction dropped
        {"2026-12-01T12:30:00+02:30", at(2026, 12, 1, 10, 0, 0)},
        {"2026-12-01T00:00:00-01:00", at(2026, 12, 1, 1, 0, 0)},
        {"1969-12-31T23:59:59Z", Timestamp{seconds{-1}}},
    };
    for (const auto& c : cases) {
        auto r = parse_timestamp(c.in);
        ASSERT_TRUE(r.ok()) << c.in << ": " << r.error().message;
        EXPECT_EQ(r.value(), c.want) << c.in;
    }
}

TEST(Timestamp, RejectsMalformed) {
    for (const char* in : {"", "2026-12-01", "2026-12-01T10:00:00", "2026-13-01T10:00:00Z", "2026-02-30T10:00:00Z",
                           "2026-12-01T24:00:00Z", "2026-12-01T10:00:00.Z", "2026-12-01T10:00:00+0200",
                           "2026-12-01T10:00:00Zjunk", "2026/12/01T10:00:00Z",
                           "2026-12-01t10:00:00z"}) {
        auto r = parse_timestamp(in);
        ASSERT_FALSE(r.ok()) << in;
        EXPECT_EQ(r.error().code, "invalid_timestamp");
    }
}

TEST(Timestamp, RoundTrips) {
    for (auto t : {at(2026, 12, 1, 10, 0, 0), at(2000, 1, 1, 0, 0, 1), at(2099, 12, 31, 23, 59, 59)})
        EXPECT_EQ(parse_timestamp(format_timestamp(t)).value(), t);
}

}  // namespace
}  // namespace attune::core
