#pragma once
// What a recommendation pass needs of each pod of a workload without
// decoding it: whether it may hold the live baseline (its name is its cache
// key). Kept with each cached pod and made once per change, so a pass
// decodes in full only the one pod it reads the baseline from
// (docs/manager.md, "What a pass reads").
#include <attune/kube/object_cache.hpp>

#include <boost/json/fwd.hpp>

namespace attune::controller {

struct ListedPod {
    bool can_hold_baseline = false;  // core::can_hold_baseline
};

ListedPod list_pod(const boost::json::value& pod);

// Sets up the pods cache to keep a ListedPod with each pod. The views are
// two shared constants: listing a pod allocates nothing.
void keep_listed_pods(kube::ObjectCache& pods);

}  // namespace attune::controller
