#pragma once
// A managed workload's manifest with the policy's recommendation written onto
// its pod template: what `kubectl attune diff` and `export` show, and what
// the GitOps pull request commits (pull_request.hpp). The values come from
// the executor's own rule (resize_targets, then template_patch, which
// template persistence writes): requests always, a limit only where the
// container's controlledValues is RequestsAndLimits, requests kept <=
// limits, and the template's pod-level envelope raised when it must grow.
// Only the values that change are rewritten; the others keep the spelling
// they had, so the two manifests differ in exactly those lines. Pure.
#include <attune/core/policy/policy.hpp>
#include <attune/core/recommend/recommendation_status.hpp>
#include <attune/core/util/result.hpp>

#include <boost/json/value.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace attune::core {

// The object without status and without metadata.managedFields,
// resourceVersion, uid, creationTimestamp, generation, selfLink and the
// annotations kubectl and the Deployment controller write
// (kubectl.kubernetes.io/last-applied-configuration,
// deployment.kubernetes.io/revision): what a person would commit to Git.
boost::json::value clean_manifest(const boost::json::value& object);

struct RecommendedManifest {
    boost::json::value live;                      // clean_manifest of the workload
    boost::json::value recommended;               // the same with the recommendation applied
    std::vector<std::string> changed_containers;  // in template order; empty: nothing to change
    bool envelope_changed = false;                // spec.resources of the template raised
    bool changed() const noexcept { return !changed_containers.empty() || envelope_changed; }
};

// `workload` as the apiserver served it (a Deployment, StatefulSet,
// DaemonSet, Job, CronJob, ...) or as a repository holds it, `rec` its
// recommendation and `policy` the managing policy's effective settings.
// Errors: "invalid_workload" (no pod template, or one that does not decode),
// "container_not_found" (the recommendation names a container the template
// no longer has).
Result<RecommendedManifest> recommended_manifest(const boost::json::value& workload, const StatusRecommendation& rec,
                                                 const EffectivePolicy& policy);

// A repository file's documents with `rec` written onto the one that is the
// workload: its kind and metadata.name, and metadata.namespace when the
// document names one. Only the values that change are rewritten. Errors:
// "workload_not_in_file", and those of recommended_manifest.
Result<std::vector<boost::json::value>> apply_to_documents(std::vector<boost::json::value> docs,
                                                           std::string_view ns, const StatusRecommendation& rec,
                                                           const EffectivePolicy& policy);

// "<namespace>_<kind>_<name>.yaml" (kind lower-case; ".json" with `json`):
// the file kubectl attune export --output-dir writes for a workload, and the
// default file of the workload in a GitOps pull request.
std::string manifest_file_name(std::string_view ns, std::string_view kind, std::string_view name, bool json);

}  // namespace attune::core
