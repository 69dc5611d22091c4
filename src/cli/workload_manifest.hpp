#pragma once
// What `kubectl attune diff` and `export` show of a managed workload: its
// manifest as `kubectl get -o yaml` prints it less the fields the server
// owns, and the same manifest with the policy's recommendation written onto
// its pod template. The values come from the executor's own rule
// (core::resize_targets, then core::template_patch, which template
// persistence writes): requests always, a limit only where the container's
// controlledValues is RequestsAndLimits, requests kept <= limits, and the
// template's pod-level envelope raised when it must grow. Only the values
// that change are rewritten; the others keep the spelling the server
// returned, so the two manifests differ in exactly those lines. Pure.
#include <attune/core/policy/policy.hpp>
#include <attune/core/recommend/recommendation_status.hpp>
#include <attune/core/util/result.hpp>

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace attune::cli {

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
// DaemonSet, Job, CronJob, ...), `rec` its status.recommendations entry and
// `policy` the managing policy's effective settings. Errors:
// "invalid_workload" (no pod template, or one that does not decode),
// "container_not_found" (the recommendation names a container the template
// no longer has).
core::Result<RecommendedManifest> recommended_manifest(const boost::json::value& workload,
                                                       const core::StatusRecommendation& rec,
                                                       const core::EffectivePolicy& policy);

// "shop/Deployment/web": how diff's headers and errors name a workload.
std::string workload_label(std::string_view ns, std::string_view kind, std::string_view name);

}  // namespace attune::cli

namespace attune::cli {

// Objects as kubectl apply -f - reads them: a YAML stream, "---" before
// each document, or with `as_json` a v1 List.
std::string render_manifest_stream(const boost::json::array& objects, bool as_json);

// export --output-dir: "<namespace>_<kind>_<name>.yaml" (kind lower-case,
// ".json" for -o json), one file per workload.
std::string export_file_name(std::string_view ns, std::string_view kind, std::string_view name, bool json);

}  // namespace attune::cli
