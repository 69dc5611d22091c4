#include "attune/core/util/time_zone.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <random>

namespace attune::core {
namespace {

using namespace std::chrono;

Timestamp at(year_month_day d, seconds s) { return sys_days(d) + s; }

TimeZone posix(const char* name, const char* rule) {
    auto r = parse_posix_tz(rule);
    EXPECT_TRUE(r.ok()) << rule << ": " << (r.ok() ? "" : r.error().message);
    return time_zone_from_posix(name, r.ok() ? r.value() : PosixTz{});
}

struct Case {
    const char* what;
    Timestamp t;
    seconds offset;
};

// The transition instants of 2026, worked out by hand from the rules.
TEST(TimeZone, PosixRulesNorthSouthAndHalfHour) {
    const TimeZone berlin = posix("Europe/Berlin", "CET-1CEST,M3.5.0,M10.5.0/3");
    const TimeZone new_york = posix("America/New_York", "EST5EDT,M3.2.0,M11.1.0");
    const TimeZone sydney = posix("Australia/Sydney", "AEST-10AEDT,M10.1.0,M4.1.0/3");
    const TimeZone kolkata = posix("Asia/Kolkata", "IST-5:30");
    const struct {
        const TimeZone& zone;
        Case c;
    } cases[] = {
        {berlin, {"Berlin winter", at(2026y / January / 15, 12h), 1h}},
        {berlin, {"Berlin one second before the spring change", at(2026y / March / 29, 1h) - 1s, 1h}},
        {berlin, {"Berlin at the spring change (02:00 CET)", at(2026y / March / 29, 1h), 2h}},
        {berlin, {"Berlin one second before the autumn change", at(2026y / October / 25, 1h) - 1s, 2h}},
        {berlin, {"Berlin at the autumn change (03:00 CEST)", at(2026y / October / 25, 1h), 1h}},
        {new_york, {"New York DST starts 2nd Sunday of March, 07:00Z", at(2026y / March / 8, 7h), -4h}},
        {new_york, {"New York before", at(2026y / March / 8, 7h) - 1s, -5h}},
        {new_york, {"New York DST ends 1st Sunday of November, 06:00Z", at(2026y / November / 1, 6h), -5h}},
        {sydney, {"Sydney January is summer time", at(2026y / January / 10, 0h), 11h}},
        {sydney, {"Sydney DST ends 1st Sunday of April 03:00 local", at(2026y / April / 4, 16h), 10h}},
        {sydney, {"Sydney DST starts 1st Sunday of October 02:00 local", at(2026y / October / 3, 16h), 11h}},
        {sydney, {"Sydney July is standard time", at(2026y / July / 1, 0h), 10h}},
        {kolkata, {"Kolkata has no DST and a half-hour offset", at(2026y / June / 1, 0h), 5h + 30min}},
    };
    for (const auto& [zone, c] : cases) EXPECT_EQ(utc_offset(zone, c.t), c.offset) << c.what;
}

TEST(TimeZone, PosixRuleForms) {
    EXPECT_EQ(parse_posix_tz("<+0330>-3:30").value().std_offset, 3h + 30min);
    EXPECT_EQ(parse_posix_tz("<-03>3").value().std_offset, -3h);
    EXPECT_EQ(parse_posix_tz("UTC0").value().std_offset, 0s);
    // TZif v3 extension: hours beyond 24 and negative rule times.
    const auto ext = parse_posix_tz("<-02>2<-01>,M3.5.0/-1,M10.5.0/25");
    ASSERT_TRUE(ext.ok());
    EXPECT_EQ(ext.value().start.time, -1h);
    EXPECT_EQ(ext.value().end.time, 25h);
    const auto julian = parse_posix_tz("XXX3YYY,J60/2,300/2");
    ASSERT_TRUE(julian.ok());
    EXPECT_EQ(julian.value().start.kind, PosixRuleDate::Kind::Julian1);
    EXPECT_EQ(julian.value().end.kind, PosixRuleDate::Kind::Julian0);
    for (const char* badrule : {"", "C-1", "CET", "CET-1CEST,M13.1.0,M10.5.0", "CET-1CEST,M3.6.0,M10.5.0",
                                "CET-1CEST,M3.5.7,M10.5.0", "CET-1CEST,M3.5.0", "<+03", "CET-1CEST,J0,J10", "CET-1x"})
        EXPECT_FALSE(parse_posix_tz(badrule).ok()) << badrule;
}

TEST(TimeZone, ZoneNamesThatAreSafeToOpen) {
    for (const char* ok : {"UTC", "Europe/Berlin", "America/Argentina/Buenos_Aires", "Etc/GMT+5", "America/Port-au-Prince"})
        EXPECT_TRUE(is_valid_zone_name(ok)) << ok;
    for (const char* no : {"", "/etc/passwd", "../etc/passwd", "Europe/../../x", "Europe//Berlin", "Europe/", ".hidden",
                           "Europe/Berlin\n", "Europe Berlin"})
        EXPECT_FALSE(is_valid_zone_name(no)) << no;
}

std::string read_zoneinfo(const char* name) {
    std::ifstream in(std::string("/usr/share/zoneinfo/") + name, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The system's TZif files, as the shell hands them over: transitions for
// the past, the footer rule far in the future.
TEST(TimeZone, SystemTzifFilesAgreeWithTheRules) {
    const std::string berlin_bytes = read_zoneinfo("Europe/Berlin");
    if (berlin_bytes.empty()) GTEST_SKIP() << "no tzdata on this machine (harness limit, not a result)";
    const auto berlin = parse_tzif("Europe/Berlin", berlin_bytes);
    ASSERT_TRUE(berlin.ok()) << berlin.error().message;
    EXPECT_TRUE(berlin.value().footer.has_value());
    EXPECT_EQ(utc_offset(berlin.value(), at(2026y / March / 29, 1h) - 1s), 1h);
    EXPECT_EQ(utc_offset(berlin.value(), at(2026y / March / 29, 1h)), 2h);
    EXPECT_EQ(utc_offset(berlin.value(), at(2101y / July / 1, 0h)), 2h);   // past every transition: the footer
    EXPECT_EQ(utc_offset(berlin.value(), at(1995y / January / 1, 0h)), 1h);  // historic transitions
    const auto kolkata = parse_tzif("Asia/Kolkata", read_zoneinfo("Asia/Kolkata"));
    ASSERT_TRUE(kolkata.ok());
    EXPECT_EQ(utc_offset(kolkata.value(), at(2026y / June / 1, 0h)), 5h + 30min);
}

// Corrupt zone files give an error, never a crash or a read past the end.
TEST(TimeZone, CorruptTzifIsAnError) {
    std::string good = read_zoneinfo("Europe/Berlin");
    if (good.empty()) good = std::string("TZif2") + std::string(39, '\0');
    EXPECT_FALSE(parse_tzif("x", "").ok());
    EXPECT_FALSE(parse_tzif("x", "TZif").ok());
    EXPECT_FALSE(parse_tzif("x", "not a zone file at all, but long enough to have a header of forty-four bytes").ok());
    for (std::size_t cut : {std::size_t{10}, std::size_t{44}, std::size_t{60}, good.size() / 2, good.size() - 2})
        if (cut < good.size()) {
            EXPECT_FALSE(parse_tzif("x", std::string_view(good).substr(0, cut)).ok()) << cut;
        }
    std::mt19937 rng(7);
    for (int i = 0; i < 2000; ++i) {
        std::string mutated = good;
        for (int k = 0; k < 4; ++k) mutated[rng() % mutated.size()] = static_cast<char>(rng());
        auto r = parse_tzif("x", mutated);  // must not crash; either answer is fine
        if (r.ok()) (void)utc_offset(r.value(), at(2026y / June / 1, 0h));
    }
}

}  // namespace
}  // namespace attune::core
