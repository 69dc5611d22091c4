#include <attune/controller/workload_key.hpp>

namespace attune::controller {

std::optional<ObjectKey> parse_object_key(std::string_view key) {
    const auto a = key.find('/');
    if (a == std::string_view::npos) return std::nullopt;
    const auto b = key.find('/', a + 1);
    if (b == std::string_view::npos || key.find('/', b + 1) != std::string_view::npos) return std::nullopt;
    ObjectKey k{std::string(key.substr(0, a)), std::string(key.substr(a + 1, b - a - 1)),
                std::string(key.substr(b + 1))};
    if (k.ns.empty() || k.kind.empty() || k.name.empty()) return std::nullopt;
    return k;
}

bool is_workload_kind(std::string_view kind) noexcept {
    return kind == "Deployment" || kind == "StatefulSet" || kind == "ReplicaSet" || kind == "DaemonSet" ||
           kind == "Job" || kind == "CronJob";
}

}  // namespace attune::controller
