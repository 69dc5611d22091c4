#include <attune/controller/listed_pod.hpp>

#include <attune/core/recommend/workload_baseline.hpp>
#include <attune/core/util/json_path.hpp>

namespace attune::controller {

ListedPod list_pod(const boost::json::value& pod) {
    const auto phase = core::string_at(pod, {"status", "phase"});
    const bool deleting = !kube::meta_string(pod, "deletionTimestamp").empty();
    return ListedPod{core::can_hold_baseline(phase, deleting)};
}

void keep_listed_pods(kube::ObjectCache& pods) {
    pods.decode_as<ListedPod>([](const boost::json::value& pod) -> std::shared_ptr<const void> {
        static const ListedPod kCandidate{true}, kOther{false};
        // Non-owning pointers to the constants (shared_ptr's aliasing
        // constructor with no owner).
        return {std::shared_ptr<const void>(), list_pod(pod).can_hold_baseline ? &kCandidate : &kOther};
    });
}

}  // namespace attune::controller
