#pragma once
// The upgrade compat gate's decision (docs/upgrade-gate.md), pure: given the matrix and
// what the shell read from the cluster, every blocker with its class, and the
// exit code. The shell (src/cli) only gathers GateInputs and prints.
#include "attune/core/util/result.hpp"
#include "attune/core/upgrade/upgrade_matrix.hpp"
#include "attune/core/upgrade/upgrade_reason.hpp"
#include "attune/core/upgrade/upgrade_removed_apis.hpp"
#include "attune/core/upgrade/upgrade_version.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <vector>

namespace attune::core {

// What the shell found where an addon's matrix source points.
struct AddonObservation {
    std::string addon;     // the matrix name
    bool found = false;    // false: the workload (or container, or label) is not there
    std::string raw;       // the image reference, or the label value
    std::string where;     // "Deployment calico-system/calico-kube-controllers, container calico"
    std::string missing;   // when !found: what was missing
};

struct NodeRuntime {
    std::string node;
    std::string runtime_version;  // status.nodeInfo.containerRuntimeVersion, "containerd://1.7.24"
    bool ready = false;           // condition Ready=True (the chain's health check)
};

// The observation of `spec` from its workload object; nullptr means the
// apiserver answered 404.
AddonObservation observe_addon(const AddonSpec& spec, const boost::json::value* workload);

// Nodes from a NodeList's items. Error code "invalid_object" for an item that
// is not an object or has no name.
Result<std::vector<NodeRuntime>> node_runtimes_from(const boost::json::array& items);

struct GateInputs {
    std::string server_version;  // "v1.35.4", for messages
    KubeMinor current;
    KubeMinor target;
    std::vector<AddonObservation> addons;  // one per matrix addon
    std::vector<DeprecatedApiRequest> requested_deprecated;
    std::vector<ServedGroupVersion> served;  // the removal table's group-versions that discovery serves
    std::vector<NodeRuntime> nodes;
};

// One addon's verdict: nullopt when it does not block the target.
std::optional<GateReason> classify_addon(const AddonSpec& spec, const AddonObservation& seen, KubeMinor target);

// Nodes whose containerd is below the target's minimum (or unreadable).
std::vector<GateReason> containerd_reasons(const UpgradeMatrix& m, KubeMinor target, const std::vector<NodeRuntime>& nodes);

enum class GateVerdict { Safe, Actionable, Held };
std::string_view to_string(GateVerdict v);  // "safe", "actionable", "held"

struct GateResult {
    GateVerdict verdict = GateVerdict::Safe;
    int exit_code = kGateSafe;
    std::vector<GateReason> reasons;  // addons, then removed APIs, then containerd
};

// Error code "gate_error" (exit 3) when the inputs cannot be judged: a
// downgrade target, or an addon with no observation.
Result<GateResult> evaluate_upgrade_gate(const UpgradeMatrix& m, const GateInputs& in);

// -o json: {"serverVersion","target","verdict","exitCode","reasons":[{class,check,subject,message,line}]}
boost::json::object gate_result_json(const GateInputs& in, const GateResult& r);
// The same document for a gate error: verdict "error", exitCode 3, "error".
boost::json::object gate_error_json(std::string_view target, std::string_view error);

}  // namespace attune::core
