#include "attune/core/go_duration.hpp"

#include <array>
#include <cstdint>
#include <limits>

namespace attune::core {
namespace {

struct Unit {
    std::string_view name;
    std::uint64_t nanos;
};

// Longest names first where one is a prefix of another ("ms" before "m").
constexpr std::array<Unit, 8> kUnits{{{"ns", 1},
                                      {"us", 1'000},
                                      {"\xC2\xB5s", 1'000},  // U+00B5 micro sign
                                      {"\xCE\xBCs", 1'000},  // U+03BC Greek mu
                                      {"ms", 1'000'000},
                                      {"s", 1'000'000'000},
                                      {"m", 60'000'000'000},
                                      {"h", 3'600'000'000'000}}};

error bad(std::string_view text, std::string_view why) {
    return make_error("invalid_duration", "invalid duration \"" + std::string(text) + "\": " + std::string(why));
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

result<std::chrono::nanoseconds> parse_go_duration(std::string_view text) {
    std::string_view s = text;
    bool negative = false;
    if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
        negative = s.front() == '-';
        s.remove_prefix(1);
    }
    if (s == "0") return std::chrono::nanoseconds{0};
    if (s.empty()) return bad(text, "empty");
    // Accumulated in unsigned nanos, as Go does, so overflow is detectable.
    constexpr std::uint64_t kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    std::uint64_t total = 0;
    while (!s.empty()) {
        if (!is_digit(s.front()) && s.front() != '.') return bad(text, "expected a number");
        std::uint64_t whole = 0;
        bool any_digit = false, overflow = false;
        while (!s.empty() && is_digit(s.front())) {
            const std::uint64_t d = static_cast<std::uint64_t>(s.front() - '0');
            if (whole > (kMax - d) / 10) overflow = true;
            else whole = whole * 10 + d;
            any_digit = true;
            s.remove_prefix(1);
        }
        if (overflow) return bad(text, "out of range");
        // The fraction is kept as digits/scale; digits beyond what fits are
        // dropped (they are below a nanosecond for every unit).
        std::uint64_t frac = 0, scale = 1;
        if (!s.empty() && s.front() == '.') {
            s.remove_prefix(1);
            while (!s.empty() && is_digit(s.front())) {
                if (scale <= std::numeric_limits<std::uint64_t>::max() / 100) {
                    frac = frac * 10 + static_cast<std::uint64_t>(s.front() - '0');
                    scale *= 10;
                }
                any_digit = true;
                s.remove_prefix(1);
            }
        }
        if (!any_digit) return bad(text, "expected a number");
        const Unit* unit = nullptr;
        for (const auto& u : kUnits) {
            if (s.substr(0, u.name.size()) == u.name && (!unit || u.name.size() > unit->name.size())) unit = &u;
        }
        if (!unit) return bad(text, s.empty() ? "missing unit" : "unknown unit");
        s.remove_prefix(unit->name.size());
        if (whole > kMax / unit->nanos) return bad(text, "out of range");
        std::uint64_t v = whole * unit->nanos;
        if (frac > 0) {
            // frac/scale < 1, so frac * unit / scale < unit: compute in long
            // double-free integer steps to stay exact (as Go truncates).
            const unsigned __int128 f = static_cast<unsigned __int128>(frac) * unit->nanos / scale;
            v += static_cast<std::uint64_t>(f);
        }
        if (v > kMax - total) return bad(text, "out of range");
        total += v;
    }
    const auto signed_total = static_cast<std::int64_t>(total);
    return std::chrono::nanoseconds{negative ? -signed_total : signed_total};
}

std::string format_go_duration(std::chrono::nanoseconds d) {
    const std::int64_t n = d.count();
    if (n == 0) return "0s";
    const bool negative = n < 0;
    // Magnitude in unsigned so INT64_MIN has one.
    std::uint64_t u = negative ? 0 - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
    std::string out;
    // fraction(v, prec): v's last `prec` digits after a dot, trailing zeros dropped.
    auto fraction = [](std::uint64_t v, int prec) {
        std::string digits(static_cast<std::size_t>(prec), '0');
        for (int i = prec - 1; i >= 0; --i) {
            digits[static_cast<std::size_t>(i)] = static_cast<char>('0' + v % 10);
            v /= 10;
        }
        while (!digits.empty() && digits.back() == '0') digits.pop_back();
        return std::make_pair(v, digits.empty() ? std::string() : "." + digits);
    };
    if (u < 1'000'000'000) {
        // Under a second: the largest of ns, µs, ms that keeps a whole part.
        int prec = 0;
        std::string unit;
        if (u < 1'000) {
            unit = "ns";
        } else if (u < 1'000'000) {
            prec = 3;
            unit = "\xC2\xB5s";
        } else {
            prec = 6;
            unit = "ms";
        }
        auto [whole, frac] = fraction(u, prec);
        out = std::to_string(whole) + frac + unit;
    } else {
        auto [secs, frac] = fraction(u, 9);
        out = std::to_string(secs % 60) + frac + "s";
        const std::uint64_t mins = secs / 60;
        if (mins > 0) {
            out = std::to_string(mins % 60) + "m" + out;
            if (mins / 60 > 0) out = std::to_string(mins / 60) + "h" + out;
        }
    }
    return negative ? "-" + out : out;
}

}  // namespace attune::core
