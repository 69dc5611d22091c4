#include <attune/controller/workload_pods.hpp>

#include <attune/controller/policy_selection.hpp>

namespace attune::controller {
namespace {

using object_ptr = kube::object_cache::object_ptr;

// Objects in `cache` whose controller is `uid`: the owner index holds every
// owner, so the controller flag is checked here.
std::vector<object_ptr> controlled_by(const kube::object_cache& cache, std::string_view uid) {
    std::vector<object_ptr> out;
    for (auto& o : cache.owned_by(uid)) {
        const auto ref = controller_ref(*o);
        if (ref && ref->uid == uid) out.push_back(std::move(o));
    }
    return out;
}

}  // namespace

std::vector<object_ptr> workload_pods(const cache_views& caches, const kube::object_cache& pods, std::string_view kind,
                                      std::string_view workload_uid) {
    if (workload_uid.empty()) return {};
    const kube::object_cache* middle = kind == "Deployment" ? caches.replicasets : kind == "CronJob" ? caches.jobs : nullptr;
    if (kind != "Deployment" && kind != "CronJob") return controlled_by(pods, workload_uid);
    std::vector<object_ptr> out;
    if (!middle) return out;
    for (const auto& owner : controlled_by(*middle, workload_uid)) {
        auto more = controlled_by(pods, kube::meta_string(*owner, "uid"));
        out.insert(out.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    }
    return out;
}

std::optional<object_key> pod_workload(const cache_views& caches, const boost::json::value& pod) {
    const auto ns = std::string(kube::meta_string(pod, "namespace"));
    auto ref = controller_ref(pod);
    if (!ref || ns.empty()) return std::nullopt;
    const kube::object_cache* middle = ref->kind == "ReplicaSet" ? caches.replicasets : ref->kind == "Job" ? caches.jobs : nullptr;
    if (middle) {
        // A ReplicaSet or Job is its own workload unless a Deployment or CronJob controls it.
        if (auto owner = middle->get(ns + "/" + ref->name)) {
            auto up = controller_ref(*owner);
            if (up && ((ref->kind == "ReplicaSet" && up->kind == "Deployment") || (ref->kind == "Job" && up->kind == "CronJob")))
                return object_key{ns, up->kind, up->name};
        }
        return object_key{ns, ref->kind, ref->name};
    }
    if (!is_workload_kind(ref->kind)) return std::nullopt;
    return object_key{ns, ref->kind, ref->name};
}

}  // namespace attune::controller
