#include "attune/core/timestamp.hpp"

#include <gtest/gtest.h>

namespace attune::core {
namespace {

using namespace std::chrono;

TEST(Timestamp, ParsesTheFormsKubernetesWrites) {
    const Timestamp want = sys_days(2026y / December / 1) + 10h;
    for (const char* s : {"2026-12-01T10:00:00Z", "2026-12-01T10:00:00.123456Z", "2026-12-01T11:30:00+01:30",
                          "2026-12-01T05:00:00-05:00", "2026-12-01t10:00:00z"}) {
        const auto r = parse_rfc3339(s);
        ASSERT_TRUE(r.ok()) << s << ": " << r.error().message;
        EXPECT_EQ(r.value(), want) << s;
    }
}

TEST(Timestamp, RejectsWhatIsNotRfc3339) {
    for (const char* s : {"", "2026-12-01", "2026-12-01T10:00:00", "2026-13-01T10:00:00Z", "2026-02-30T10:00:00Z",
                          "2026-12-01T24:00:00Z", "2026-12-01T10:00:00Zjunk", "2026-12-01T10:00:00.Z",
                          "2026-12-01T10:00:00+0100", "yesterday"}) {
        const auto r = parse_rfc3339(s);
        EXPECT_FALSE(r.ok()) << s;
        if (!r.ok()) {
            EXPECT_EQ(r.error().code, "invalid_timestamp");
        }
    }
}

TEST(Timestamp, FormatsUtcWholeSecondsAndRoundTrips) {
    const Timestamp t = sys_days(2027y / January / 9) + 3h + 4min + 5s;
    EXPECT_EQ(format_rfc3339(t), "2027-01-09T03:04:05Z");
    EXPECT_EQ(parse_rfc3339(format_rfc3339(t)).value(), t);
}

TEST(Timestamp, GoDurationStrings) {
    EXPECT_EQ(format_go_duration(0s), "0s");
    EXPECT_EQ(format_go_duration(3600s), "1h0m0s");
    EXPECT_EQ(format_go_duration(16h), "16h0m0s");
    EXPECT_EQ(format_go_duration(300s), "5m0s");
    EXPECT_EQ(format_go_duration(3725s), "1h2m5s");
}

}  // namespace
}  // namespace attune::core
