#include "attune/core/resize/schedule_window.hpp"

#include <gtest/gtest.h>

namespace attune::core {
namespace {

using namespace std::chrono;

Schedule schedule(std::initializer_list<std::pair<const char*, const char*>> windows,
                  std::initializer_list<const char*> days, const char* tz = "UTC") {
    Schedule s;
    for (const auto& [a, b] : windows) s.windows.push_back(parse_schedule_window(a, b).value());
    for (const char* d : days) s.days.push_back(parse_weekday(d).value());
    s.timezone = tz;
    return s;
}

const std::optional<TimeZone> kUtc = time_zone_from_posix("UTC", parse_posix_tz("UTC0").value());
const std::optional<TimeZone> kBerlin =
    time_zone_from_posix("Europe/Berlin", parse_posix_tz("CET-1CEST,M3.5.0,M10.5.0/3").value());

// 2026-12-04 is a Friday, 2026-12-05 a Saturday.
Timestamp utc(year_month_day d, minutes m) { return sys_days(d) + m; }

TEST(ScheduleWindow, Table) {
    struct Case {
        const char* what;
        Schedule s;
        const std::optional<TimeZone>& zone;
        Timestamp now;
        bool allowed;
    } cases[] = {
        {"no windows: always allowed", schedule({}, {}), kUtc, utc(2026y / December / 4, 3h), true},
        {"inside a same-day window", schedule({{"02:00", "04:00"}}, {}), kUtc, utc(2026y / December / 4, 3h), true},
        {"start is inclusive", schedule({{"02:00", "04:00"}}, {}), kUtc, utc(2026y / December / 4, 2h), true},
        {"end is exclusive", schedule({{"02:00", "04:00"}}, {}), kUtc, utc(2026y / December / 4, 4h), false},
        {"outside", schedule({{"02:00", "04:00"}}, {}), kUtc, utc(2026y / December / 4, 5h), false},
        {"day not listed", schedule({{"02:00", "04:00"}}, {"Monday"}), kUtc, utc(2026y / December / 4, 3h), false},
        {"day listed, any case", schedule({{"02:00", "04:00"}}, {"friday"}), kUtc, utc(2026y / December / 4, 3h), true},
        {"wrap: before midnight on the opening day", schedule({{"22:00", "02:00"}}, {"Friday"}), kUtc,
         utc(2026y / December / 4, 23h), true},
        {"wrap: the after-midnight tail counts as the opening day (Friday's window on Saturday 01:00)",
         schedule({{"22:00", "02:00"}}, {"Friday"}), kUtc, utc(2026y / December / 5, 1h), true},
        {"wrap: Saturday's own evening is not Friday's window", schedule({{"22:00", "02:00"}}, {"Friday"}), kUtc,
         utc(2026y / December / 5, 23h), false},
        {"wrap: Friday 01:00 belongs to Thursday's window", schedule({{"22:00", "02:00"}}, {"Friday"}), kUtc,
         utc(2026y / December / 4, 1h), false},
        {"start == end is the whole day from start", schedule({{"06:00", "06:00"}}, {}), kUtc,
         utc(2026y / December / 4, 5h + 59min), true},
        {"zone: 02:30 Berlin is 01:30Z in winter", schedule({{"02:00", "03:00"}}, {}, "Europe/Berlin"), kBerlin,
         utc(2026y / December / 4, 1h + 30min), true},
        {"zone: 02:30Z is 03:30 Berlin, outside", schedule({{"02:00", "03:00"}}, {}, "Europe/Berlin"), kBerlin,
         utc(2026y / December / 4, 2h + 30min), false},
        {"zone: the local day decides (23:30Z Friday is Saturday 00:30 Berlin)",
         schedule({{"00:00", "01:00"}}, {"Saturday"}, "Europe/Berlin"), kBerlin, utc(2026y / December / 4, 23h + 30min),
         true},
        {"several windows: any one suffices", schedule({{"01:00", "02:00"}, {"10:00", "11:00"}}, {}), kUtc,
         utc(2026y / December / 4, 10h + 15min), true},
    };
    for (const auto& c : cases) {
        const auto v = check_schedule(c.s, c.zone, c.now);
        EXPECT_EQ(v.allowed, c.allowed) << c.what << ": " << v.message;
        EXPECT_FALSE(v.zone_invalid) << c.what;
    }
}

TEST(ScheduleWindow, InvalidZoneFailsOpenAndIsReported) {
    const auto v = check_schedule(schedule({{"02:00", "03:00"}}, {}, "Mars/Olympus"), std::nullopt,
                                  utc(2026y / December / 4, 12h));
    EXPECT_TRUE(v.allowed);
    EXPECT_TRUE(v.zone_invalid);
    EXPECT_NE(v.message.find("Mars/Olympus"), std::string::npos);
}

TEST(ScheduleWindow, ParsingIsStrict) {
    for (auto [a, b] : {std::pair{"24:00", "01:00"}, {"2:00", "03:00"}, {"02:60", "03:00"}, {"02:00", ""},
                        {"0200", "0300"}, {"02:00 ", "03:00"}})
        EXPECT_FALSE(parse_schedule_window(a, b).ok()) << a << "-" << b;
    EXPECT_EQ(parse_schedule_window("23:59", "00:00").value().start_minute, 23 * 60 + 59);
    EXPECT_FALSE(parse_weekday("Funday").ok());
    EXPECT_FALSE(parse_weekday("Mon").ok());
    EXPECT_EQ(parse_weekday("SUNDAY").value(), Sunday);
}

}  // namespace
}  // namespace attune::core
