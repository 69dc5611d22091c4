#include "attune/core/resize/schedule_window.hpp"

#include <algorithm>
#include <cctype>

namespace attune::core {
namespace {

std::optional<int> hh_mm(std::string_view s) {
    if (s.size() != 5 || s[2] != ':') return std::nullopt;
    for (std::size_t i : {0u, 1u, 3u, 4u})
        if (s[i] < '0' || s[i] > '9') return std::nullopt;
    const int h = (s[0] - '0') * 10 + (s[1] - '0');
    const int m = (s[3] - '0') * 10 + (s[4] - '0');
    if (h > 23 || m > 59) return std::nullopt;
    return h * 60 + m;
}

constexpr const char* kDayNames[] = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};

std::string hhmm(int minute) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%02d:%02d", (minute / 60) % 24, minute % 60);
    return buf;
}

}  // namespace

Result<ScheduleWindow> parse_schedule_window(std::string_view start, std::string_view end) {
    const auto s = hh_mm(start);
    const auto e = hh_mm(end);
    if (!s || !e) {
        return make_error("invalid_schedule", "schedule window \"" + std::string(start) + "\"-\"" + std::string(end) +
                                                  "\": times must be HH:MM (00:00 to 23:59)");
    }
    return ScheduleWindow{*s, *e};
}

Result<std::chrono::weekday> parse_weekday(std::string_view name) {
    for (unsigned i = 0; i < 7; ++i) {
        const std::string_view day = kDayNames[i];
        if (day.size() == name.size() && std::equal(day.begin(), day.end(), name.begin(), [](char a, char b) {
                return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
            }))
            return std::chrono::weekday(i);
    }
    return make_error("invalid_schedule", "\"" + std::string(name) + "\" is not a day of the week (Monday ... Sunday)");
}

ScheduleVerdict check_schedule(const Schedule& schedule, const std::optional<TimeZone>& zone, Timestamp now) {
    ScheduleVerdict v;
    if (schedule.windows.empty()) return v;
    if (!zone) {
        v.zone_invalid = true;
        v.message = "time zone \"" + schedule.timezone + "\" could not be loaded; the schedule is ignored (fails open)";
        return v;
    }
    using namespace std::chrono;
    const auto local = now + utc_offset(*zone, now);  // local wall clock as sys_seconds
    const auto today = floor<days>(local);
    const int minute = static_cast<int>(duration_cast<minutes>(local - today).count());
    auto day_allowed = [&](sys_days d) {
        if (schedule.days.empty()) return true;
        return std::find(schedule.days.begin(), schedule.days.end(), weekday(d)) != schedule.days.end();
    };
    for (const auto& w : schedule.windows) {
        const bool inside = w.end_minute > w.start_minute
                                ? minute >= w.start_minute && minute < w.end_minute && day_allowed(today)
                                : (minute >= w.start_minute && day_allowed(today)) ||
                                      (minute < w.end_minute && day_allowed(today - days(1)));
        if (inside) {
            v.message = "inside window " + hhmm(w.start_minute) + "-" + hhmm(w.end_minute) + " " + schedule.timezone;
            return v;
        }
    }
    v.allowed = false;
    v.message = "outside every schedule window (local time " + hhmm(minute) + " " +
                kDayNames[weekday(today).c_encoding()] + ", " + schedule.timezone + ")";
    return v;
}

}  // namespace attune::core
