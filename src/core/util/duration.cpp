#include "attune/core/util/duration.hpp"

#include <cstdint>
#include <limits>

namespace attune::core {
namespace {

struct Unit {
    std::string_view name;
    std::uint64_t nanos;
};
// Longest names first where one is a prefix of another ("ms" before "m").
constexpr Unit kUnits[] = {{"ns", 1},
                           {"us", 1'000},
                           {"\xC2\xB5s", 1'000},  // U+00B5 micro sign
                           {"\xCE\xBCs", 1'000},  // U+03BC Greek mu
                           {"ms", 1'000'000},
                           {"s", 1'000'000'000},
                           {"m", 60'000'000'000},
                           {"h", 3'600'000'000'000}};

Error invalid(std::string_view text, std::string_view why) {
    return make_error("invalid_duration", "\"" + std::string(text) + "\" is not a duration (" + std::string(why) +
                                              "); use a number with a unit, such as 90s, 5m or 1h30m");
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

Result<Duration> parse_duration(std::string_view text) {
    std::string_view s = text;
    bool negative = false;
    if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
        negative = s.front() == '-';
        s.remove_prefix(1);
    }
    if (s == "0") return Duration{0};
    if (s.empty()) return invalid(text, "empty");
    // Total in nanoseconds, checked against 2^63 like Go.
    constexpr std::uint64_t kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    std::uint64_t total = 0;
    while (!s.empty()) {
        std::uint64_t whole = 0;
        std::size_t digits = 0;
        while (!s.empty() && is_digit(s.front())) {
            if (whole > (kMax - static_cast<std::uint64_t>(s.front() - '0')) / 10) return invalid(text, "overflow");
            whole = whole * 10 + static_cast<std::uint64_t>(s.front() - '0');
            s.remove_prefix(1);
            ++digits;
        }
        // Fraction: keep up to 18 digits (more cannot change a nanosecond total).
        std::uint64_t frac = 0, scale = 1;
        std::size_t frac_digits = 0;
        if (!s.empty() && s.front() == '.') {
            s.remove_prefix(1);
            while (!s.empty() && is_digit(s.front())) {
                if (scale < 1'000'000'000'000'000'000ull) {
                    frac = frac * 10 + static_cast<std::uint64_t>(s.front() - '0');
                    scale *= 10;
                }
                s.remove_prefix(1);
                ++frac_digits;
            }
        }
        if (digits == 0 && frac_digits == 0) return invalid(text, "expected a number");
        const Unit* u = nullptr;
        for (const auto& candidate : kUnits) {
            if (s.substr(0, candidate.name.size()) == candidate.name &&
                (u == nullptr || candidate.name.size() > u->name.size()))
                u = &candidate;
        }
        if (u == nullptr) return invalid(text, s.empty() ? "missing unit" : "unknown unit");
        s.remove_prefix(u->name.size());
        if (whole > kMax / u->nanos) return invalid(text, "overflow");
        std::uint64_t v = whole * u->nanos;
        // frac/scale of a unit, truncated towards zero as Go does.
        const long double part = static_cast<long double>(frac) * static_cast<long double>(u->nanos) /
                                 static_cast<long double>(scale);
        v += static_cast<std::uint64_t>(part);
        if (v > kMax || total > kMax - v) return invalid(text, "overflow");
        total += v;
    }
    const auto signed_total = static_cast<std::int64_t>(total);
    return Duration{negative ? -signed_total : signed_total};
}

std::string format_duration(Duration d) {
    const std::int64_t n = d.count();
    if (n == 0) return "0s";
    const bool negative = n < 0;
    // Magnitude as unsigned so INT64_MIN works.
    std::uint64_t u = negative ? static_cast<std::uint64_t>(-(n + 1)) + 1 : static_cast<std::uint64_t>(n);
    std::string out;
    // "<int>.<frac>" with trailing zeros of the fraction dropped.
    auto fixed = [](std::uint64_t v, std::uint64_t scale) {
        std::string s = std::to_string(v / scale);
        std::uint64_t frac = v % scale;
        if (frac != 0) {
            std::string f;
            for (std::uint64_t p = scale / 10; p > 0; p /= 10) f += static_cast<char>('0' + (frac / p) % 10);
            while (!f.empty() && f.back() == '0') f.pop_back();
            s += "." + f;
        }
        return s;
    };
    if (u < 1'000'000'000ull) {
        // Below a second Go prints one unit: ns, µs or ms.
        if (u < 1'000) out = std::to_string(u) + "ns";
        else if (u < 1'000'000) out = fixed(u, 1'000) + "\xC2\xB5s";
        else out = fixed(u, 1'000'000) + "ms";
    } else {
        const std::uint64_t hours = u / 3'600'000'000'000ull;
        u %= 3'600'000'000'000ull;
        const std::uint64_t minutes = u / 60'000'000'000ull;
        u %= 60'000'000'000ull;
        const std::string seconds = fixed(u, 1'000'000'000ull) + "s";
        if (hours > 0) out = std::to_string(hours) + "h" + std::to_string(minutes) + "m" + seconds;
        else if (minutes > 0) out = std::to_string(minutes) + "m" + seconds;
        else out = seconds;
    }
    return negative ? "-" + out : out;
}

}  // namespace attune::core
