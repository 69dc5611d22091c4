#include <attune/kube/time_zones.hpp>

#include <spdlog/spdlog.h>

#include <fstream>
#include <sstream>

namespace attune::kube {

const std::optional<core::TimeZone>& TimeZones::get(const std::string& name) {
    if (auto it = loaded_.find(name); it != loaded_.end()) return it->second;
    std::optional<core::TimeZone> zone;
    if (!core::is_valid_zone_name(name)) {
        spdlog::warn("schedule timezone is not a zone name; the schedule fails open zone=\"{}\"", name);
    } else if (std::ifstream f(root_ + "/" + name, std::ios::binary); f) {
        std::ostringstream bytes;
        bytes << f.rdbuf();
        auto parsed = core::parse_tzif(name, bytes.str());
        if (parsed) zone = std::move(parsed).value();
        else
            spdlog::warn("schedule timezone does not parse; the schedule fails open zone={} error=\"{}\"", name,
                         parsed.error().message);
    } else if (name == "UTC") {
        zone = core::time_zone_from_posix("UTC", core::parse_posix_tz("UTC0").value());
    } else {
        spdlog::warn("schedule timezone not found; the schedule fails open zone={} root={}", name, root_);
    }
    return loaded_.emplace(name, std::move(zone)).first->second;
}

}  // namespace attune::kube
