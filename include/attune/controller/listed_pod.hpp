#pragma once
// What a recommendation pass needs of each pod of a workload without
// decoding it: its name (a source's usage query names every pod) and whether
// it may hold the live baseline. Kept with each cached pod and made once per
// change, so a pass decodes in full only the one pod it reads the baseline
// from (docs/manager.md, "What a pass reads").
#include <attune/kube/object_cache.hpp>

#include <boost/json/fwd.hpp>

#include <optional>
#include <string>

namespace attune::controller {

struct ListedPod {
    std::string name;
    bool can_hold_baseline = false;  // core::can_hold_baseline
};

// Nothing when the object has no metadata.name.
std::optional<ListedPod> list_pod(const boost::json::value& pod);

// Sets up the pods cache to keep a ListedPod with each pod.
void keep_listed_pods(kube::ObjectCache& pods);

}  // namespace attune::controller
