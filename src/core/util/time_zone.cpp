#include "attune/core/util/time_zone.hpp"

#include <algorithm>

namespace attune::core {
namespace {

using std::chrono::seconds;

Error bad(std::string_view what) { return make_error("invalid_time_zone", std::string(what)); }

struct Cursor {
    std::string_view s;
    std::size_t pos = 0;
    bool done() const { return pos >= s.size(); }
    char peek() const { return done() ? '\0' : s[pos]; }
    bool eat(char c) {
        if (peek() != c) return false;
        ++pos;
        return true;
    }
};

bool parse_name(Cursor& c, std::string& out) {
    if (c.eat('<')) {
        const auto close = c.s.find('>', c.pos);
        if (close == std::string_view::npos || close - c.pos < 3) return false;
        out = std::string(c.s.substr(c.pos, close - c.pos));
        c.pos = close + 1;
        return true;
    }
    const std::size_t start = c.pos;
    while (!c.done() && ((c.peek() >= 'A' && c.peek() <= 'Z') || (c.peek() >= 'a' && c.peek() <= 'z'))) ++c.pos;
    if (c.pos - start < 3) return false;
    out = std::string(c.s.substr(start, c.pos - start));
    return true;
}

bool parse_number(Cursor& c, int max_digits, int& out) {
    const std::size_t start = c.pos;
    out = 0;
    while (!c.done() && c.peek() >= '0' && c.peek() <= '9' && static_cast<int>(c.pos - start) < max_digits)
        out = out * 10 + (c.s[c.pos++] - '0');
    return c.pos > start;
}

// [+-]hh[:mm[:ss]], hours up to 167 (TZif v3 rule times).
bool parse_hms(Cursor& c, seconds& out) {
    int sign = 1;
    if (c.eat('-')) sign = -1;
    else c.eat('+');
    int h = 0, m = 0, s = 0;
    if (!parse_number(c, 3, h) || h > 167) return false;
    if (c.eat(':')) {
        if (!parse_number(c, 2, m) || m > 59) return false;
        if (c.eat(':') && (!parse_number(c, 2, s) || s > 59)) return false;
    }
    out = seconds(sign * (h * 3600 + m * 60 + s));
    return true;
}

bool parse_rule_date(Cursor& c, PosixRuleDate& d) {
    if (c.eat('M')) {
        d.kind = PosixRuleDate::Kind::MonthWeekDay;
        if (!parse_number(c, 2, d.month) || d.month < 1 || d.month > 12 || !c.eat('.') ||
            !parse_number(c, 1, d.week) || d.week < 1 || d.week > 5 || !c.eat('.') ||
            !parse_number(c, 1, d.weekday) || d.weekday > 6)
            return false;
    } else if (c.eat('J')) {
        d.kind = PosixRuleDate::Kind::Julian1;
        if (!parse_number(c, 3, d.day) || d.day < 1 || d.day > 365) return false;
    } else {
        d.kind = PosixRuleDate::Kind::Julian0;
        if (!parse_number(c, 3, d.day) || d.day > 365) return false;
    }
    d.time = seconds(7200);
    if (c.eat('/') && !parse_hms(c, d.time)) return false;
    return true;
}

bool is_leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// The local wall-clock instant (as seconds since the epoch, "local seconds")
// when `d` happens in year `y`.
std::int64_t rule_local_time(const PosixRuleDate& d, int y) {
    using namespace std::chrono;
    sys_days day;
    switch (d.kind) {
        case PosixRuleDate::Kind::Julian1: {
            int n = d.day - 1;  // Feb 29 is never counted
            if (is_leap(y) && d.day >= 60) ++n;
            day = sys_days(year(y) / January / 1) + days(n);
            break;
        }
        case PosixRuleDate::Kind::Julian0: day = sys_days(year(y) / January / 1) + days(d.day); break;
        case PosixRuleDate::Kind::MonthWeekDay: {
            const auto m = month(static_cast<unsigned>(d.month));
            const auto wd = weekday(static_cast<unsigned>(d.weekday));
            day = d.week == 5 ? sys_days(year(y) / m / wd[last])
                              : sys_days(year(y) / m / wd[static_cast<unsigned>(d.week)]);
            break;
        }
    }
    return day.time_since_epoch().count() * 86400 + d.time.count();
}

seconds posix_offset(const PosixTz& tz, std::int64_t utc) {
    if (!tz.dst_name) return tz.std_offset;
    using namespace std::chrono;
    const auto local_std = sys_seconds(seconds(utc + tz.std_offset.count()));
    const int y = static_cast<int>(year_month_day(floor<days>(local_std)).year());
    // Start is written in standard time, end in daylight time.
    const std::int64_t start = rule_local_time(tz.start, y) - tz.std_offset.count();
    const std::int64_t end = rule_local_time(tz.end, y) - tz.dst_offset.count();
    const bool dst = start < end ? (utc >= start && utc < end) : !(utc >= end && utc < start);
    return dst ? tz.dst_offset : tz.std_offset;
}

struct Reader {
    std::string_view b;
    std::size_t pos = 0;
    bool ok = true;
    std::int64_t be(std::size_t n) {
        if (pos + n > b.size()) {
            ok = false;
            return 0;
        }
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < n; ++i) v = (v << 8) | static_cast<unsigned char>(b[pos + i]);
        pos += n;
        if (n == 4) return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
        return static_cast<std::int64_t>(v);
    }
    void skip(std::size_t n) {
        if (pos + n > b.size()) ok = false;
        else pos += n;
    }
};

struct Header {
    char version = 0;
    std::int64_t isut = 0, isstd = 0, leap = 0, time = 0, type = 0, chars = 0;
};

bool read_header(Reader& r, Header& h) {
    if (r.pos + 44 > r.b.size() || r.b.substr(r.pos, 4) != "TZif") return false;
    h.version = r.b[r.pos + 4];
    r.skip(20);
    h.isut = r.be(4);
    h.isstd = r.be(4);
    h.leap = r.be(4);
    h.time = r.be(4);
    h.type = r.be(4);
    h.chars = r.be(4);
    return r.ok && h.isut >= 0 && h.isstd >= 0 && h.leap >= 0 && h.time >= 0 && h.type >= 1 && h.chars >= 0 &&
           h.type <= 256;
}

}  // namespace

bool is_valid_zone_name(std::string_view name) {
    if (name.empty() || name.size() > 255 || name.front() == '/') return false;
    std::size_t start = 0;
    while (start <= name.size()) {
        const auto slash = name.find('/', start);
        const auto part = name.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
        if (part.empty() || part.front() == '.') return false;
        for (char ch : part) {
            const bool ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
                            ch == '_' || ch == '+' || ch == '-';
            if (!ok) return false;
        }
        if (slash == std::string_view::npos) break;
        start = slash + 1;
    }
    return true;
}

Result<PosixTz> parse_posix_tz(std::string_view text) {
    Cursor c{text};
    PosixTz tz;
    const auto fail = [&] { return bad("bad POSIX TZ rule \"" + std::string(text) + "\""); };
    seconds off{0};
    if (!parse_name(c, tz.std_name) || !parse_hms(c, off)) return fail();
    tz.std_offset = -off;
    if (c.done()) return tz;
    std::string dst;
    if (!parse_name(c, dst)) return fail();
    tz.dst_name = dst;
    tz.dst_offset = tz.std_offset + std::chrono::hours(1);
    if (c.peek() != ',' && !c.done()) {
        if (!parse_hms(c, off)) return fail();
        tz.dst_offset = -off;
    }
    if (c.done()) {
        // No rule: POSIX leaves it to the implementation; tzcode uses the US
        // rule. Zone files always carry one, so this only matters for tests.
        tz.start = {PosixRuleDate::Kind::MonthWeekDay, 0, 3, 2, 0, seconds(7200)};
        tz.end = {PosixRuleDate::Kind::MonthWeekDay, 0, 11, 1, 0, seconds(7200)};
        return tz;
    }
    if (!c.eat(',') || !parse_rule_date(c, tz.start) || !c.eat(',') || !parse_rule_date(c, tz.end) || !c.done())
        return fail();
    return tz;
}

Result<TimeZone> parse_tzif(std::string_view name, std::string_view bytes) {
    Reader r{bytes};
    Header h;
    const std::string where = "zone " + std::string(name) + ": ";
    if (!read_header(r, h)) return bad(where + "not a TZif file");
    std::size_t time_size = 4;
    if (h.version >= '2') {
        // Skip the v1 block; the 64-bit one follows with its own header.
        r.skip(static_cast<std::size_t>(h.time * 5 + h.type * 6 + h.chars + h.leap * 8 + h.isstd + h.isut));
        if (!r.ok || !read_header(r, h)) return bad(where + "truncated or missing v2 header");
        time_size = 8;
    }
    TimeZone z;
    z.name = std::string(name);
    for (std::int64_t i = 0; i < h.time && r.ok; ++i) z.transitions.push_back(r.be(time_size));
    for (std::int64_t i = 0; i < h.time && r.ok; ++i) z.transition_types.push_back(static_cast<std::uint8_t>(r.be(1)));
    for (std::int64_t i = 0; i < h.type && r.ok; ++i) {
        z.type_offsets.push_back(static_cast<std::int32_t>(r.be(4)));
        r.skip(2);  // isdst, desigidx
    }
    r.skip(static_cast<std::size_t>(h.chars + h.leap * (time_size + 4) + h.isstd + h.isut));
    if (!r.ok) return bad(where + "truncated data block");
    for (auto t : z.transition_types)
        if (t >= z.type_offsets.size()) return bad(where + "transition names an unknown local time type");
    if (!std::is_sorted(z.transitions.begin(), z.transitions.end())) return bad(where + "transitions out of order");
    if (time_size == 8) {
        if (r.pos >= bytes.size() || bytes[r.pos] != '\n') return bad(where + "missing footer");
        const auto end = bytes.find('\n', r.pos + 1);
        if (end == std::string_view::npos) return bad(where + "unterminated footer");
        const auto footer = bytes.substr(r.pos + 1, end - r.pos - 1);
        if (!footer.empty()) {
            auto rule = parse_posix_tz(footer);
            if (!rule.ok()) return bad(where + rule.error().message);
            z.footer = std::move(rule).value();
        }
    }
    return z;
}

TimeZone time_zone_from_posix(std::string name, PosixTz rule) {
    TimeZone z;
    z.name = std::move(name);
    z.type_offsets.push_back(static_cast<std::int32_t>(rule.std_offset.count()));
    z.footer = std::move(rule);
    return z;
}

seconds utc_offset(const TimeZone& zone, Timestamp t) {
    const std::int64_t utc = t.time_since_epoch().count();
    const auto& tr = zone.transitions;
    if (tr.empty() || utc >= tr.back()) {
        if (zone.footer) return posix_offset(*zone.footer, utc);
        if (tr.empty()) return seconds(zone.type_offsets.empty() ? 0 : zone.type_offsets.front());
        return seconds(zone.type_offsets[zone.transition_types.back()]);
    }
    if (utc < tr.front()) return seconds(zone.type_offsets.front());
    const auto it = std::upper_bound(tr.begin(), tr.end(), utc);
    const auto i = static_cast<std::size_t>(it - tr.begin()) - 1;
    return seconds(zone.type_offsets[zone.transition_types[i]]);
}

}  // namespace attune::core
