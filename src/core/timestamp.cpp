#include "attune/core/timestamp.hpp"

#include <cstdio>

namespace attune::core {
namespace {

bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
    if (pos + n > s.size()) return false;
    int v = 0;
    for (std::size_t i = pos; i < pos + n; ++i) {
        if (s[i] < '0' || s[i] > '9') return false;
        v = v * 10 + (s[i] - '0');
    }
    out = v;
    return true;
}

}  // namespace

result<Timestamp> parse_rfc3339(std::string_view s) {
    auto bad = [&](const char* why) {
        return make_error("invalid_timestamp", "\"" + std::string(s) + "\" is not an RFC 3339 time: " + why);
    };
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
    if (!digits(s, 0, 4, y) || s.size() < 20 || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
        !digits(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't') || !digits(s, 11, 2, h) || s[13] != ':' ||
        !digits(s, 14, 2, mi) || s[16] != ':' || !digits(s, 17, 2, se))
        return bad("expected YYYY-MM-DDTHH:MM:SS");
    const std::chrono::year_month_day ymd{std::chrono::year(y), std::chrono::month(static_cast<unsigned>(mo)),
                                          std::chrono::day(static_cast<unsigned>(d))};
    if (!ymd.ok() || h > 23 || mi > 59 || se > 60) return bad("date or time out of range");
    std::size_t pos = 19;
    if (pos < s.size() && s[pos] == '.') {
        ++pos;
        const std::size_t start = pos;
        while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') ++pos;
        if (pos == start) return bad("empty fraction");
    }
    std::chrono::seconds offset{0};
    if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
        ++pos;
    } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
        int oh = 0, om = 0;
        if (!digits(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' || !digits(s, pos + 4, 2, om) ||
            oh > 23 || om > 59)
            return bad("bad UTC offset");
        offset = std::chrono::hours(oh) + std::chrono::minutes(om);
        if (s[pos] == '-') offset = -offset;
        pos += 6;
    } else {
        return bad("missing time zone (Z or +hh:mm)");
    }
    if (pos != s.size()) return bad("trailing characters");
    const auto t = std::chrono::sys_days(ymd) + std::chrono::hours(h) + std::chrono::minutes(mi) +
                   std::chrono::seconds(se) - offset;
    return Timestamp(std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()));
}

std::string format_rfc3339(Timestamp t) {
    const auto days = std::chrono::floor<std::chrono::days>(t);
    const std::chrono::year_month_day ymd{days};
    const std::chrono::hh_mm_ss hms{t - days};
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02ld:%02ld:%02ldZ", static_cast<int>(ymd.year()),
                  static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                  static_cast<long>(hms.hours().count()), static_cast<long>(hms.minutes().count()),
                  static_cast<long>(hms.seconds().count()));
    return buf;
}

std::string format_go_duration(std::chrono::seconds d) {
    if (d.count() == 0) return "0s";
    std::string out = d.count() < 0 ? "-" : "";
    long long s = d.count() < 0 ? -d.count() : d.count();
    const long long h = s / 3600, m = (s % 3600) / 60;
    s %= 60;
    if (h > 0) out += std::to_string(h) + "h";
    if (h > 0 || m > 0) out += std::to_string(m) + "m";
    out += std::to_string(s) + "s";
    return out;
}

}  // namespace attune::core
