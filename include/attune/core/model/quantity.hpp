#pragma once
// Quantity: Kubernetes' resource.Quantity (apimachinery pkg/api/resource)
// rebuilt for C++: same parser, same rounding (up to the nano), same
// canonical String(), checked against upstream by test/data vectors.
//
// Representation: the value as a signed count of nanos in 128 bits. Every
// upstream quantity is a whole number of nanos (parsing rounds up to 1n), so
// this is exact up to |q| < 1.7e29; beyond that parse() answers
// "out_of_range" where upstream would still accept the string.
#include <compare>
#include <iosfwd>
#include <cstdint>
#include <string>
#include <string_view>

#include "attune/core/util/result.hpp"

namespace attune::core {

class Quantity {
public:
    // Upstream's three formats. The format only steers String(); it takes
    // no part in comparisons.
    enum class Format : std::uint8_t { DecimalExponent, BinarySI, DecimalSI };

    Quantity() = default;  // zero, DecimalSI

    // Error codes: "invalid_quantity" (format/numeric/suffix, message says
    // which, as upstream's three errors do) and "out_of_range".
    static Result<Quantity> parse(std::string_view text);
    static Quantity from_milli(std::int64_t milli, Format format = Format::DecimalSI);
    static Quantity from_value(std::int64_t value, Format format = Format::DecimalSI);

    // Upstream String(): the canonical form, except that a parsed string
    // upstream already considers canonical is echoed verbatim ("+1", "01").
    std::string to_string() const;
    // Canonical form without the echo.
    std::string canonical() const;
    // The exact value in plain decimal SI, independent of the format
    // ("1Gi" and "1073741824" both give "1073741824"): for hashing.
    std::string decimal_string() const;

    // ceil(q * 1000) / ceil(q), rounding away from zero, saturating at the
    // int64 range (upstream wraps silently instead).
    std::int64_t milli_value() const;
    std::int64_t value() const;

    bool is_zero() const noexcept { return nanos_ == 0; }
    int sign() const noexcept { return nanos_ > 0 ? 1 : (nanos_ < 0 ? -1 : 0); }
    Format format() const noexcept { return format_; }

    // Value comparison, like upstream Cmp/Equal (format ignored).
    friend bool operator==(const Quantity& a, const Quantity& b) noexcept { return a.nanos_ == b.nanos_; }
    friend std::strong_ordering operator<=>(const Quantity& a, const Quantity& b) noexcept {
        return a.nanos_ <=> b.nanos_;
    }
    int compare(const Quantity& other) const noexcept {
        return nanos_ < other.nanos_ ? -1 : (nanos_ > other.nanos_ ? 1 : 0);
    }

    // Upstream Add/Sub: a zero left side takes the right side's format.
    // Saturates at the 128-bit nano range (unreachable for real resources).
    Quantity& operator+=(const Quantity& y);
    Quantity& operator-=(const Quantity& y);
    friend Quantity operator+(Quantity a, const Quantity& b) { return a += b; }
    friend Quantity operator-(Quantity a, const Quantity& b) { return a -= b; }

private:
    __int128 nanos_ = 0;
    Format format_ = Format::DecimalSI;
    std::string echo_;  // upstream's cached string, set only by parse()
};

inline const Quantity& max(const Quantity& a, const Quantity& b) { return a < b ? b : a; }

std::string_view format_name(Quantity::Format f) noexcept;

// Prints to_string() (readable test failures and logs).
std::ostream& operator<<(std::ostream& os, const Quantity& q);

}  // namespace attune::core
