#pragma once
// IANA time zones for schedule windows, as pure code. GCC 12's libstdc++
// has no std::chrono tzdb, and a tz library that reads /usr/share/zoneinfo
// itself would put file I/O and a process-global database in the core. So
// the shell reads the zone's TZif file (RFC 8536) and the core parses it:
// transitions, then the footer's POSIX TZ rule for instants past the last
// transition (Debian's tzdata may ship "slim" files that end early).
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/util/result.hpp"
#include "attune/core/util/timestamp.hpp"

namespace attune::core {

// One POSIX TZ rule date: Jn (1..365, Feb 29 never counted), n (0..365,
// zero-based), or Mm.w.d (month, week 1..5 with 5 = last, weekday 0 = Sunday).
struct PosixRuleDate {
    enum class Kind { Julian1, Julian0, MonthWeekDay } kind = Kind::MonthWeekDay;
    int day = 0;  // Julian forms
    int month = 0, week = 0, weekday = 0;
    std::chrono::seconds time{7200};  // local time of the change; may be negative or > 24h (TZif v3)
};

struct PosixTz {
    std::string std_name;
    std::chrono::seconds std_offset{0};  // east of UTC (the POSIX sign is inverted on parse)
    std::optional<std::string> dst_name;
    std::chrono::seconds dst_offset{0};
    PosixRuleDate start, end;  // only with dst_name
};

struct TimeZone {
    std::string name;
    std::vector<std::int64_t> transitions;  // UTC seconds, ascending
    std::vector<std::uint8_t> transition_types;
    std::vector<std::int32_t> type_offsets;  // UTC offset in seconds per local time type
    std::optional<PosixTz> footer;
};

// "Europe/Berlin", "America/Argentina/Buenos_Aires", "UTC": relative, no
// "..", no empty or dot-leading components, [A-Za-z0-9_+-] only. The shell
// checks this before it opens /usr/share/zoneinfo/<name>.
bool is_valid_zone_name(std::string_view name);

// "CET-1CEST,M3.5.0,M10.5.0/3", "<+0330>-3:30", "UTC0". Error "invalid_time_zone".
Result<PosixTz> parse_posix_tz(std::string_view text);

// A TZif file's bytes (v1, v2, v3, v4). Error "invalid_time_zone" naming what
// is wrong; never reads past the buffer.
Result<TimeZone> parse_tzif(std::string_view name, std::string_view bytes);

// A zone with no transitions, only a rule (tests, and "UTC" without tzdata).
TimeZone time_zone_from_posix(std::string name, PosixTz rule);

// The zone's offset from UTC at instant `t`.
std::chrono::seconds utc_offset(const TimeZone& zone, Timestamp t);

}  // namespace attune::core
