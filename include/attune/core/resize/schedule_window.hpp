#pragma once
// updateStrategy.schedule: resize increases only inside a window
// (docs/api.md#attunepolicy-spec). Windows are local "HH:MM" start/end in the
// schedule's IANA zone; end < start wraps midnight, and the after-midnight
// tail counts as the day the window opened. An invalid zone fails open, as
// the Go original does, and is reported.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/util/result.hpp"
#include "attune/core/util/time_zone.hpp"
#include "attune/core/util/timestamp.hpp"

namespace attune::core {

struct ScheduleWindow {
    int start_minute = 0;  // minutes after local midnight
    int end_minute = 0;    // exclusive; < start wraps midnight; == start is a whole day from start
};

struct Schedule {
    std::vector<ScheduleWindow> windows;     // empty: no schedule, always allowed
    std::vector<std::chrono::weekday> days;  // empty: every day
    std::string timezone = "UTC";
};

// ^([01]\d|2[0-3]):[0-5]\d$ for both. Error "invalid_schedule".
Result<ScheduleWindow> parse_schedule_window(std::string_view start, std::string_view end);
// "Monday" ... "Sunday", compared without case (the Go code does, though the
// CRD enum is case-sensitive). Error "invalid_schedule".
Result<std::chrono::weekday> parse_weekday(std::string_view name);

struct ScheduleVerdict {
    bool allowed = true;
    bool zone_invalid = false;  // the zone could not be loaded: allowed (fail open), report it
    std::string message;
};

// `zone`: the schedule's zone as the shell loaded it; nullopt when it could
// not be loaded or parsed.
ScheduleVerdict check_schedule(const Schedule& schedule, const std::optional<TimeZone>& zone, Timestamp now);

}  // namespace attune::core
