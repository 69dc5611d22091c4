#include <attune/policy/time_zones.hpp>

#include <spdlog/spdlog.h>

#include <fstream>
#include <sstream>

namespace attune::policy {

core::Result<core::TimeZone> TimeZones::load(const std::string& name) const {
    if (!core::is_valid_zone_name(name)) return core::make_error("invalid_time_zone", "not a zone name");
    // "Local" (the schema allows it, as Go's time.LoadLocation does): the
    // host's zone, /etc/localtime, else UTC, as Go's time.Local.
    const std::string path = name == "Local" ? local_time_ : root_ + "/" + name;
    if (std::ifstream f(path, std::ios::binary); f) {
        std::ostringstream bytes;
        bytes << f.rdbuf();
        return core::parse_tzif(name, bytes.str());
    }
    // Without tzdata, "UTC" still means UTC.
    if (name == "UTC" || name == "Local") return core::time_zone_from_posix(name, core::parse_posix_tz("UTC0").value());
    return core::make_error("invalid_time_zone", "not in the zone database (" + root_ + ")");
}

const std::optional<core::TimeZone>& TimeZones::get(const std::string& name) {
    if (auto it = loaded_.find(name); it != loaded_.end()) return it->second;
    std::optional<core::TimeZone> zone;
    if (auto loaded = load(name)) zone = std::move(loaded).value();
    else
        spdlog::warn("schedule timezone unusable; the schedule fails open zone=\"{}\" error=\"{}\"", name,
                     loaded.error().message);
    return loaded_.emplace(name, std::move(zone)).first->second;
}

}  // namespace attune::policy
