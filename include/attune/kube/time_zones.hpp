#pragma once
// IANA zones for schedule windows, read from /usr/share/zoneinfo (GCC 12's
// libstdc++ has no tzdb) and parsed by the core (parse_tzif). Loaded once
// per name and kept: a handful of zones per cluster. A name that fails
// is_valid_zone_name, or a file that cannot be read or parsed, is nullopt,
// which the schedule gate treats as "fails open, reported" (as Go does).
#include <attune/core/util/time_zone.hpp>

#include <map>
#include <optional>
#include <string>

namespace attune::kube {

class TimeZones {
public:
    explicit TimeZones(std::string root = "/usr/share/zoneinfo") : root_(std::move(root)) {}
    const std::optional<core::TimeZone>& get(const std::string& name);

private:
    std::string root_;
    std::map<std::string, std::optional<core::TimeZone>, std::less<>> loaded_;
};

}  // namespace attune::kube
