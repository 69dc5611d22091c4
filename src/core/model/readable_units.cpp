#include "attune/core/model/readable_units.hpp"

#include <cmath>
#include <cstdio>

namespace attune::core {
namespace {

// v (>= 0) to `digits` significant figures in plain decimal, trailing zeros
// dropped: 234.0 -> "234", 12.50 -> "12.5". The whole part keeps every digit
// (1023.9 -> "1024"), and there is never an exponent.
std::string significant(double v, int digits) {
    if (v == 0 || !std::isfinite(v)) return "0";
    const int magnitude = static_cast<int>(std::floor(std::log10(v)));
    int decimals = digits - 1 - magnitude;
    if (decimals < 0) decimals = 0;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    std::string out = buf;
    // Rounding can carry into a new digit (9.96 -> "10.0"): one decimal fewer.
    if (decimals > 0 && std::floor(std::log10(std::stod(out))) > magnitude) {
        std::snprintf(buf, sizeof buf, "%.*f", decimals - 1, v);
        out = buf;
    }
    if (out.find('.') != std::string::npos) {
        while (out.back() == '0') out.pop_back();
        if (out.back() == '.') out.pop_back();
    }
    return out;
}

}  // namespace

std::string readable_percent(double fraction) {
    if (!std::isfinite(fraction)) return std::string(kNotANumber);
    const double p = fraction * 100;
    if (p < 0) return "-" + significant(-p, 2) + "%";
    return significant(p, 2) + "%";
}

std::string readable_cpu(const Quantity& q) { return std::to_string(q.milli_value()) + "m"; }

std::string readable_memory(const Quantity& q) {
    const double bytes = static_cast<double>(q.value());
    const double magnitude = std::fabs(bytes);
    const char* sign = bytes < 0 ? "-" : "";
    constexpr double kKi = 1024.0, kMi = kKi * 1024, kGi = kMi * 1024;
    if (magnitude >= kGi) return sign + significant(magnitude / kGi, 3) + "Gi";
    if (magnitude >= kMi) return sign + significant(magnitude / kMi, 3) + "Mi";
    if (magnitude >= kKi) return sign + significant(magnitude / kKi, 3) + "Ki";
    return sign + significant(magnitude, 3);
}

std::string readable_quantity(std::string_view resource, const Quantity& q) {
    if (resource == "cpu") return readable_cpu(q);
    if (resource == "memory") return readable_memory(q);
    return q.to_string();
}

std::string readable_quantity(std::string_view resource, std::string_view text) {
    if (resource != "cpu" && resource != "memory") return std::string(text);
    const auto q = Quantity::parse(text);
    if (!q) return std::string(text);
    return readable_quantity(resource, q.value());
}

}  // namespace attune::core
