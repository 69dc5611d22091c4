#include "attune/core/util/timestamp.hpp"

#include <cstdio>

namespace attune::core {
namespace {

Error bad(std::string_view text, std::string_view why) {
    return make_error("invalid_timestamp", "invalid RFC 3339 time \"" + std::string(text) + "\": " + std::string(why));
}

// Reads exactly `n` digits at `pos`; -1 when they are not all digits.
int digits(std::string_view s, std::size_t pos, std::size_t n) {
    if (pos + n > s.size()) return -1;
    int v = 0;
    for (std::size_t i = pos; i < pos + n; ++i) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

}  // namespace

std::string format_timestamp(Timestamp t) {
    using namespace std::chrono;
    const auto day = floor<days>(t);
    const year_month_day ymd{day};
    const hh_mm_ss hms{t - day};
    char buf[32];
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02dZ", static_cast<int>(ymd.year()),
                  static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                  static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                  static_cast<int>(hms.seconds().count()));
    return buf;
}

Result<Timestamp> parse_timestamp(std::string_view s) {
    using namespace std::chrono;
    const int y = digits(s, 0, 4), mo = digits(s, 5, 2), d = digits(s, 8, 2);
    const int h = digits(s, 11, 2), mi = digits(s, 14, 2), sec = digits(s, 17, 2);
    if (y < 0 || mo < 0 || d < 0 || h < 0 || mi < 0 || sec < 0 || s[4] != '-' || s[7] != '-' ||
        s[10] != 'T' || s[13] != ':' || s[16] != ':')
        return bad(s, "want YYYY-MM-DDTHH:MM:SSZ");
    const year_month_day ymd{year{y}, month{static_cast<unsigned>(mo)}, day{static_cast<unsigned>(d)}};
    if (!ymd.ok()) return bad(s, "no such date");
    // 60 is a leap second, which RFC 3339 allows and Go's parser rejects.
    if (h > 23 || mi > 59 || sec > 59) return bad(s, "time of day out of range");
    std::size_t pos = 19;
    if (pos < s.size() && s[pos] == '.') {
        ++pos;
        const std::size_t start = pos;
        while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') ++pos;
        if (pos == start) return bad(s, "empty fraction");
    }
    seconds offset{0};
    if (pos < s.size() && s[pos] == 'Z') {
        ++pos;
    } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
        const int oh = digits(s, pos + 1, 2), om = digits(s, pos + 4, 2);
        if (oh < 0 || om < 0 || s[pos + 3] != ':' || oh > 23 || om > 59) return bad(s, "bad zone offset");
        offset = hours{oh} + minutes{om};
        if (s[pos] == '-') offset = -offset;
        pos += 6;
    } else {
        return bad(s, "missing zone (Z or +HH:MM)");
    }
    if (pos != s.size()) return bad(s, "trailing characters");
    return Timestamp{sys_days{ymd} + hours{h} + minutes{mi} + seconds{sec} - offset};
}

}  // namespace attune::core
