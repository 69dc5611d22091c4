#pragma once
// Which policy manages a workload, and with which settings: the one
// resolution the controller, the admission webhook and kubectl-attune share.
// Selection runs over the policy cache's decoded views (select_policy);
// the winner's decoded spec and the decoded views of both defaults tiers go
// through core::resolve_effective_policy (merge, then validation). Nothing is
// decoded here: the caches decoded each object once per change. It fails
// closed the same way for every caller: until both defaults caches have
// listed, and for a policy or defaults object that does not decode or a
// merge that fails validation, there are no settings, only the message the
// controller reports as Ready=False InvalidConfig. No I/O.
#include <attune/core/policy/policy.hpp>
#include <attune/core/policy/policy_resolution.hpp>
#include <attune/core/policy/policy_validation.hpp>
#include <attune/policy/cache_views.hpp>
#include <attune/policy/policy_selection.hpp>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace attune::policy {

struct Resolved {
    std::shared_ptr<const PolicyView> view;                  // null: the policy is not in the cache
    std::shared_ptr<const core::EffectivePolicy> effective;  // null unless the resolution succeeded
    core::ResolutionFailure failure = core::ResolutionFailure::None;
    std::string message;  // why there are no settings (the InvalidConfig message)

    bool ok() const noexcept { return effective != nullptr; }
};

// One per reader (the controller, the webhook's handler, a CLI command):
// each keeps its own memo, used from one thread.
class PolicyResolver {
public:
    explicit PolicyResolver(core::PolicyValidationOptions validation = {}) : validation_(validation) {}

    // Policy ns/name of caches.policies (set up with index_policies, the
    // defaults caches with index_defaults). Memoized while the policy's view
    // and every defaults view of both tiers stay the same objects (the
    // caches make a new view exactly when an object changes), so an
    // unchanged policy hands out the same settings pointer. Not memoized
    // while the defaults have not listed.
    Resolved resolve(const CacheViews& caches, const std::string& ns, const std::string& name);
    void forget(const std::string& ns, const std::string& name);
    std::size_t size() const noexcept { return memo_.size(); }
    const core::PolicyValidationOptions& options() const noexcept { return validation_; }

private:
    using DefaultsViews = std::vector<std::shared_ptr<const DefaultsView>>;
    struct Entry {
        std::shared_ptr<const PolicyView> view;
        DefaultsViews cluster, namespaced;
        Resolved result;
    };
    void prune(const CacheViews& caches);

    core::PolicyValidationOptions validation_;
    std::unordered_map<std::string, Entry> memo_;  // "ns/name"
};

struct ManagingPolicy {
    WorkloadSelection selection;  // winner "" when nobody manages it, or it opted out
    Resolved policy;              // the winner's; no view when there is no winner
};

// The policy that manages `workload` (select_policy over its namespace's
// views) and its settings.
ManagingPolicy resolve_managing_policy(const CacheViews& caches, PolicyResolver& resolver, const WorkloadRef& workload);

}  // namespace attune::policy
