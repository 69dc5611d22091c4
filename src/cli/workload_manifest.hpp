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
#include <attune/core/followups/recommended_manifest.hpp>

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace attune::cli {

// The manifests themselves are the core's (core/followups/recommended_manifest.hpp),
// which the manager's GitOps pull requests commit too.
using core::clean_manifest;
using core::recommended_manifest;
using core::RecommendedManifest;

// "shop/Deployment/web": how diff's headers and errors name a workload.
std::string workload_label(std::string_view ns, std::string_view kind, std::string_view name);

}  // namespace attune::cli

namespace attune::cli {

// Objects as kubectl apply -f - reads them: a YAML stream, "---" before
// each document, or with `as_json` a v1 List.
std::string render_manifest_stream(const boost::json::array& objects, bool as_json);

// export --output-dir: one file per workload (core::manifest_file_name).
using core::manifest_file_name;

}  // namespace attune::cli
