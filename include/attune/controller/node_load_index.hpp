#pragma once
// What each node's pods request, kept current from the pod informer's
// changes, so a gate reads "the other pods' requests on this node" without
// scanning every pod (sum_pod_requests' rule: each pod counted as
// max(sum of containers, envelope); finished pods and pods not bound yet
// hold no room). Pure.
#include <attune/core/model/pod_model.hpp>
#include <attune/kube/object_cache.hpp>

#include <string>
#include <string_view>
#include <unordered_map>

namespace attune::controller {

class NodeLoadIndex {
public:
    // One informer change (a pod that does not decode counts as gone).
    void apply(const kube::ObjectCache::Delta& d);
    // The requests on `node` of every pod but the one cached as `pod_key` ("ns/name").
    core::ResourceList others(std::string_view node, std::string_view pod_key) const;
    std::size_t pods() const noexcept { return pods_.size(); }

private:
    struct Entry {
        std::string node;
        core::ResourceList requests;
    };
    void remove(const std::string& key);

    std::unordered_map<std::string, Entry> pods_;
    std::unordered_map<std::string, core::ResourceList> nodes_;
};

}  // namespace attune::controller
