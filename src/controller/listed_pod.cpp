#include <attune/controller/listed_pod.hpp>

#include <attune/core/recommend/workload_baseline.hpp>
#include <attune/core/util/json_path.hpp>

namespace attune::controller {

std::optional<ListedPod> list_pod(const boost::json::value& pod) {
    auto name = kube::meta_string(pod, "name");
    if (name.empty()) return std::nullopt;
    const auto phase = core::string_at(pod, {"status", "phase"});
    const bool deleting = !kube::meta_string(pod, "deletionTimestamp").empty();
    return ListedPod{std::string(name), core::can_hold_baseline(phase, deleting)};
}

void keep_listed_pods(kube::ObjectCache& pods) { pods.decode_as<ListedPod>(kube::decoded_view<ListedPod>(list_pod)); }

}  // namespace attune::controller
