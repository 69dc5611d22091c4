#include <attune/kube/micro_time.hpp>

#include <fmt/format.h>

#include <ctime>

namespace attune::kube {

std::string format_micro_time(std::chrono::system_clock::time_point t) {
    using namespace std::chrono;
    const auto us = duration_cast<microseconds>(t.time_since_epoch());
    auto secs = duration_cast<seconds>(us);
    auto frac = us - secs;
    if (frac.count() < 0) {
        frac += seconds(1);
        secs -= seconds(1);
    }
    const std::time_t tt = static_cast<std::time_t>(secs.count());
    std::tm tm{};
    gmtime_r(&tt, &tm);
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                       tm.tm_hour, tm.tm_min, tm.tm_sec, frac.count());
}

}  // namespace attune::kube
