#include "attune/core/time_format.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>

namespace attune::core {

std::string format_rfc3339(double seconds) {
    using namespace std::chrono;
    const auto whole = std::isfinite(seconds) ? static_cast<long long>(std::floor(seconds)) : 0LL;
    const sys_seconds t{std::chrono::seconds(whole)};
    const auto day = floor<days>(t);
    const year_month_day ymd{day};
    const hh_mm_ss hms{t - day};
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02lld:%02lld:%02lldZ", static_cast<int>(ymd.year()),
                  static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                  static_cast<long long>(hms.hours().count()), static_cast<long long>(hms.minutes().count()),
                  static_cast<long long>(hms.seconds().count()));
    return buf;
}

}  // namespace attune::core
