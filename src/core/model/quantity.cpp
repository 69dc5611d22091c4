#include "attune/core/model/quantity.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <ostream>

namespace attune::core {
namespace {

using I128 = __int128;
constexpr I128 kNanosPerUnit = 1'000'000'000;
constexpr I128 kI128Max = static_cast<I128>((~static_cast<unsigned __int128>(0)) >> 1);
constexpr I128 kI128Min = -kI128Max - 1;
// BinarySI values are capped at MaxInt64 units when parsed (upstream's
// maxAllowed), a cap that DecimalSI does not have.
constexpr I128 kBinaryCapNanos = static_cast<I128>(std::numeric_limits<std::int64_t>::max()) * kNanosPerUnit;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool mul_overflows(I128 a, I128 b, I128& out) { return __builtin_mul_overflow(a, b, &out); }

// Digits (no sign, leading zeros allowed) to a non-negative i128.
std::optional<I128> digits_to_i128(std::string_view d) {
    I128 v = 0;
    for (char c : d) {
        if (mul_overflows(v, 10, v) || __builtin_add_overflow(v, c - '0', &v)) return std::nullopt;
    }
    return v;
}

std::optional<I128> mul_pow10(I128 v, std::int64_t k) {
    for (std::int64_t i = 0; i < k && v != 0; ++i) {
        if (mul_overflows(v, 10, v)) return std::nullopt;
    }
    return v;
}

std::string i128_to_string(I128 v) {
    if (v == 0) return "0";
    const bool neg = v < 0;
    unsigned __int128 u = neg ? static_cast<unsigned __int128>(-(v + 1)) + 1 : static_cast<unsigned __int128>(v);
    std::string s;
    while (u != 0) {
        s.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
        u /= 10;
    }
    if (neg) s.push_back('-');
    std::reverse(s.begin(), s.end());
    return s;
}

// Go's strconv.ParseInt(s, 10, 64): optional sign, at least one digit.
std::optional<std::int64_t> go_parse_int64(std::string_view s) {
    bool neg = false;
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
        neg = s[0] == '-';
        s.remove_prefix(1);
    }
    if (s.empty()) return std::nullopt;
    I128 v = 0;
    for (char c : s) {
        if (!is_digit(c)) return std::nullopt;
        v = v * 10 + (c - '0');
        if (v > static_cast<I128>(std::numeric_limits<std::int64_t>::max()) + 1) return std::nullopt;
    }
    if (neg) v = -v;
    if (v > std::numeric_limits<std::int64_t>::max() || v < std::numeric_limits<std::int64_t>::min())
        return std::nullopt;
    return static_cast<std::int64_t>(v);
}

struct Suffix {
    int base;  // 10 or 2
    std::int32_t exponent;
    Quantity::Format format;
};

std::optional<Suffix> interpret_suffix(std::string_view s) {
    using F = Quantity::Format;
    struct Entry {
        std::string_view name;
        int base;
        std::int32_t exp;
    };
    static constexpr std::array<Entry, 16> kTable{{
        {"", 10, 0},
        {"n", 10, -9},
        {"u", 10, -6},
        {"m", 10, -3},
        {"k", 10, 3},
        {"M", 10, 6},
        {"G", 10, 9},
        {"T", 10, 12},
        {"P", 10, 15},
        {"E", 10, 18},
        {"Ki", 2, 10},
        {"Mi", 2, 20},
        {"Gi", 2, 30},
        {"Ti", 2, 40},
        {"Pi", 2, 50},
        {"Ei", 2, 60},
    }};
    for (const auto& e : kTable) {
        if (e.name == s) return Suffix{e.base, e.exp, e.base == 10 ? F::DecimalSI : F::BinarySI};
    }
    if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
        auto parsed = go_parse_int64(s.substr(1));
        if (!parsed) return std::nullopt;
        // Upstream narrows the exponent to int32 the same way.
        return Suffix{10, static_cast<std::int32_t>(*parsed), F::DecimalExponent};
    }
    return std::nullopt;
}

core::Error format_error(std::string_view text) {
    return make_error("invalid_quantity",
                      "quantity \"" + std::string(text) +
                          "\" must match '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
}

// The decimal suffix of a canonical exponent; upstream emits no suffix at
// all when the exponent has no SI name (so 1e21 in DecimalSI prints "1").
std::string_view decimal_si_suffix(std::int32_t exp) {
    switch (exp) {
        case -9: return "n";
        case -6: return "u";
        case -3: return "m";
        case 3: return "k";
        case 6: return "M";
        case 9: return "G";
        case 12: return "T";
        case 15: return "P";
        case 18: return "E";
        default: return "";
    }
}

std::string_view binary_suffix(int times) {
    static constexpr std::array<std::string_view, 7> kNames{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    return times >= 0 && times < static_cast<int>(kNames.size()) ? kNames[static_cast<std::size_t>(times)] : "";
}

std::string canonical_string(I128 nanos, Quantity::Format format) {
    using F = Quantity::Format;
    if (nanos == 0) return "0";
    if (format == F::BinarySI) {
        const I128 limit = 1024 * kNanosPerUnit;
        // Small or fractional binary values print in decimal so nothing is
        // rounded away.
        if ((nanos > -limit && nanos < limit) || nanos % kNanosPerUnit != 0) {
            format = F::DecimalSI;
        } else {
            I128 units = nanos / kNanosPerUnit;
            int times = 0;
            while ((units >= 1024 || units <= -1024) && units % 1024 == 0) {
                units /= 1024;
                ++times;
            }
            return i128_to_string(units) + std::string(binary_suffix(times));
        }
    }
    I128 mantissa = nanos;
    std::int32_t exp = -9;
    while (mantissa % 10 == 0) {
        mantissa /= 10;
        ++exp;
    }
    while (exp % 3 != 0) {  // cannot overflow: at most undoes the loop above
        mantissa *= 10;
        --exp;
    }
    std::string out = i128_to_string(mantissa);
    if (format == F::DecimalExponent) {
        if (exp != 0) out += "e" + std::to_string(exp);
    } else {
        out += decimal_si_suffix(exp);
    }
    return out;
}

std::int64_t saturate_i64(I128 v) {
    if (v > std::numeric_limits<std::int64_t>::max()) return std::numeric_limits<std::int64_t>::max();
    if (v < std::numeric_limits<std::int64_t>::min()) return std::numeric_limits<std::int64_t>::min();
    return static_cast<std::int64_t>(v);
}

// Divides rounding away from zero, as upstream's ScaledValue does on its
// int64 path.
I128 div_away(I128 v, I128 d) {
    I128 q = v / d;
    if (v % d != 0) q += v > 0 ? 1 : -1;
    return q;
}

}  // namespace

std::string_view format_name(Quantity::Format f) noexcept {
    switch (f) {
        case Quantity::Format::DecimalExponent: return "DecimalExponent";
        case Quantity::Format::BinarySI: return "BinarySI";
        case Quantity::Format::DecimalSI: return "DecimalSI";
    }
    return "DecimalSI";
}

Result<Quantity> Quantity::parse(std::string_view text) {
    if (text.empty()) return format_error(text);
    Quantity q;
    if (text == "0") {
        q.echo_ = "0";
        return q;
    }

    // Scanner: same accept/reject decisions as upstream parseQuantityString.
    const std::size_t end = text.size();
    std::size_t pos = 0;
    bool positive = true;
    if (text[0] == '-' || text[0] == '+') {
        positive = text[0] == '+';
        ++pos;
    }
    std::size_t zeros = 0;
    while (pos < end && text[pos] == '0') {
        ++pos;
        ++zeros;
    }
    if (pos >= end) return q;  // only sign and zeros: zero, DecimalSI

    std::string_view num, denom, suffix;
    std::size_t i = pos;
    while (i < end && is_digit(text[i])) ++i;
    num = text.substr(pos, i - pos);
    pos = i;
    bool scanned_suffix = false;
    if (pos < end) {
        if (text[pos] == '.') {
            ++pos;
            i = pos;
            while (i < end && is_digit(text[i])) ++i;
            denom = text.substr(pos, i - pos);
            pos = i;
        }
        const std::size_t suffix_start = pos;
        while (pos < end && std::string_view("eEinumkKMGTP").find(text[pos]) != std::string_view::npos) ++pos;
        if (pos < end && (text[pos] == '-' || text[pos] == '+')) ++pos;
        while (pos < end && is_digit(text[pos])) ++pos;
        if (pos < end) return format_error(text);
        suffix = text.substr(suffix_start);
        scanned_suffix = true;
    }
    (void)scanned_suffix;
    const bool has_digits = zeros > 0 || !num.empty() || !denom.empty();
    const std::string num_digits = num.empty() ? std::string("0") : std::string(num);

    const auto suf = interpret_suffix(suffix);
    if (!suf) {
        return make_error("invalid_quantity",
                          "quantity \"" + std::string(text) + "\": unable to parse suffix \"" + std::string(suffix) + "\"");
    }

    // Upstream's int64 fast path decides two observable things: whether the
    // input string is echoed by String(), and whether a digitless number is
    // zero (fast path) or a numeric error (slow path).
    bool fast = false;
    {
        std::int64_t precision = 0;
        std::int32_t scale = 0;
        std::int64_t mantissa = 1;
        if (suf->base == 10) {
            scale = suf->exponent;
            precision = 18 - static_cast<std::int64_t>(num_digits.size() + denom.size());
        } else if (suf->exponent >= 0 && denom.empty()) {
            mantissa = std::int64_t{1} << suf->exponent;
            precision = 15 - static_cast<std::int64_t>(num_digits.size()) - (suf->exponent * 3 / 10) - 1;
        } else {
            precision = -1;
        }
        if (precision >= 0) {
            scale = static_cast<std::int32_t>(static_cast<std::uint32_t>(scale) -
                                              static_cast<std::uint32_t>(denom.size()));
            if (scale >= -9) {
                const std::string shifted = num_digits + std::string(denom);
                const auto shifted_value = static_cast<std::int64_t>(*digits_to_i128(shifted));  // <= 18 digits
                std::int64_t product = 0;
                if (!__builtin_mul_overflow(shifted_value, mantissa, &product)) {
                    fast = true;
                    const bool echo = suf->format == Format::BinarySI
                                          ? (suf->exponent % 10 == 0 && (shifted_value & 0x07) != 0)
                                          : (scale % 3 == 0 && !(shifted.size() >= 3 && shifted.ends_with("000")) &&
                                             shifted[0] != '0');
                    if (echo) q.echo_ = std::string(text);
                }
            }
        }
    }
    if (!fast && !has_digits) {
        return make_error("invalid_quantity",
                          "quantity \"" + std::string(text) + "\": unable to parse numeric part");
    }

    // Exact value in nanos, rounded up (away from zero) to the nano.
    std::string digits = std::string(num) + std::string(denom);
    digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));
    const auto frac = static_cast<std::int64_t>(denom.size());
    I128 nanos = 0;
    bool overflow = false;
    if (suf->base == 10) {
        const std::int64_t k = 9 - frac + suf->exponent;
        if (k >= 0) {
            auto v = digits_to_i128(digits);
            if (v) v = mul_pow10(*v, k);
            if (v) nanos = *v; else overflow = true;
        } else {
            const auto drop = static_cast<std::uint64_t>(-k);
            if (drop >= digits.size()) {
                nanos = digits.empty() ? 0 : 1;
            } else {
                const std::string_view whole = std::string_view(digits).substr(0, digits.size() - drop);
                const std::string_view rest = std::string_view(digits).substr(digits.size() - drop);
                auto v = digits_to_i128(whole);
                if (!v) {
                    overflow = true;
                } else {
                    nanos = *v + (rest.find_first_not_of('0') != std::string_view::npos ? 1 : 0);
                }
            }
        }
    } else {
        // I * 2^e * 1e9 + ceil(F * 2^e * 1e9 / 10^f): the fraction is folded
        // right to left so no intermediate exceeds 10 * 2^60 * 1e9.
        const I128 scale = (I128{1} << suf->exponent) * kNanosPerUnit;
        auto whole = digits_to_i128(num);
        I128 whole_nanos = 0;
        if (!whole || mul_overflows(*whole, scale, whole_nanos) || whole_nanos > kBinaryCapNanos) {
            overflow = true;
        } else {
            I128 acc = 0;
            bool inexact = false;
            for (std::size_t j = denom.size(); j-- > 0;) {
                const I128 t = (denom[j] - '0') * scale + acc;
                if (t % 10 != 0) inexact = true;
                acc = t / 10;
            }
            nanos = whole_nanos + acc + (inexact ? 1 : 0);
        }
        if (overflow || nanos > kBinaryCapNanos) {
            overflow = false;
            nanos = kBinaryCapNanos;
        }
    }
    if (overflow) {
        return make_error("out_of_range", "quantity \"" + std::string(text) + "\" is beyond +/-1.7e29, which Attune does not represent");
    }
    q.nanos_ = positive ? nanos : -nanos;
    q.format_ = suf->format;
    if (q.format_ == Format::BinarySI && nanos > 0 && nanos < kNanosPerUnit) q.format_ = Format::DecimalSI;
    return q;
}

std::ostream& operator<<(std::ostream& os, const Quantity& q) { return os << q.to_string(); }

Quantity Quantity::from_milli(std::int64_t milli, Format format) {
    Quantity q;
    q.nanos_ = static_cast<I128>(milli) * 1'000'000;
    q.format_ = format;
    return q;
}

Quantity Quantity::from_value(std::int64_t value, Format format) {
    Quantity q;
    q.nanos_ = static_cast<I128>(value) * kNanosPerUnit;
    q.format_ = format;
    return q;
}

std::string Quantity::to_string() const { return echo_.empty() ? canonical_string(nanos_, format_) : echo_; }

std::string Quantity::canonical() const { return canonical_string(nanos_, format_); }

std::string Quantity::decimal_string() const { return canonical_string(nanos_, Format::DecimalSI); }

std::int64_t Quantity::milli_value() const { return saturate_i64(div_away(nanos_, 1'000'000)); }

std::int64_t Quantity::value() const { return saturate_i64(div_away(nanos_, kNanosPerUnit)); }

Quantity& Quantity::operator+=(const Quantity& y) {
    echo_.clear();
    if (nanos_ == 0) format_ = y.format_;
    if (__builtin_add_overflow(nanos_, y.nanos_, &nanos_)) nanos_ = y.nanos_ > 0 ? kI128Max : kI128Min;
    return *this;
}

Quantity& Quantity::operator-=(const Quantity& y) {
    echo_.clear();
    if (nanos_ == 0) format_ = y.format_;
    if (__builtin_sub_overflow(nanos_, y.nanos_, &nanos_)) nanos_ = y.nanos_ < 0 ? kI128Max : kI128Min;
    return *this;
}

}  // namespace attune::core
