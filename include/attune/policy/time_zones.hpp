#pragma once
// IANA zones for schedule windows, read from /usr/share/zoneinfo (GCC 12's
// libstdc++ has no tzdb) and parsed by the core (parse_tzif). The executor
// keeps each zone it loaded (get: a handful of zones per cluster); the
// admission webhook asks load() per request and keeps nothing, so names sent
// to it cannot grow the manager's memory. A name that fails
// is_valid_zone_name, or a file that cannot be read or parsed, is an error,
// which the schedule gate treats as "fails open, reported" (as Go does) and
// the webhook as a refusal.
#include <attune/core/util/result.hpp>
#include <attune/core/util/time_zone.hpp>

#include <map>
#include <optional>
#include <string>

namespace attune::policy {

class TimeZones {
public:
    explicit TimeZones(std::string root = "/usr/share/zoneinfo", std::string local_time = "/etc/localtime")
        : root_(std::move(root)), local_time_(std::move(local_time)) {}
    // Cached, and logged once per name when it fails.
    const std::optional<core::TimeZone>& get(const std::string& name);
    // Not cached. Error code "invalid_time_zone", the message says why
    // (not a zone name, not in the zone database at root(), does not parse).
    core::Result<core::TimeZone> load(const std::string& name) const;
    const std::string& root() const noexcept { return root_; }

private:
    std::string root_;
    std::string local_time_;
    std::map<std::string, std::optional<core::TimeZone>, std::less<>> loaded_;
};

}  // namespace attune::policy
