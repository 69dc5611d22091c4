#include "attune/core/followups/eviction.hpp"
#include "attune/core/util/duration.hpp"

#include <boost/json.hpp>

namespace attune::core {

EvictionDecision decide_eviction(const EvictionInputs& in) {
    std::string why;
    std::string reason;
    if (in.state.state == ResizeState::Infeasible) {
        reason = "infeasible";
        why = "the kubelet reports the resize Infeasible" +
              (in.state.message.empty() ? std::string() : ": " + in.state.message);
    } else if (in.state.state == ResizeState::Deferred && in.deferred_since &&
               in.now - *in.deferred_since >= in.deferred_bound) {
        reason = "deferred";
        why = "the resize has been Deferred for " + format_duration(std::chrono::duration_cast<std::chrono::seconds>(
                                                        in.now - *in.deferred_since));
    } else {
        return {};
    }
    if (in.method == ResizeMethod::InPlaceOnly) {
        if (reason == "infeasible")
            return {EvictionAction::InfeasibleBlocked, "infeasible", why + "; resizeMethod InPlaceOnly does not recreate pods"};
        return {};  // Deferred under InPlaceOnly: the kubelet retries; keep waiting
    }
    if (in.running_replicas <= 1)
        return {EvictionAction::EvictionBlocked, "eviction_last_replica",
                why + ", but it is the last Running replica (" + std::to_string(in.running_replicas) + "): not evicted"};
    return {EvictionAction::Evict, reason, why + "; evicting so it is recreated at the new size"};
}

int count_running_replicas(std::span<const Pod> pods) {
    int n = 0;
    for (const auto& p : pods) n += p.phase == "Running" && p.deletion_timestamp.empty();
    return n;
}

boost::json::object eviction_body(const Pod& pod) {
    boost::json::object body{{"apiVersion", "policy/v1"},
                             {"kind", "Eviction"},
                             {"metadata", boost::json::object{{"name", pod.name}, {"namespace", pod.namespace_}}}};
    if (!pod.uid.empty())
        body["deleteOptions"] = boost::json::object{{"preconditions", boost::json::object{{"uid", pod.uid}}}};
    return body;
}

}  // namespace attune::core
