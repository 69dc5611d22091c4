#pragma once
// The nightly upgrade chain's decisions (docs/upgrade-gate.md), pure:
//  - preflight routes on the gate's exit code (deliberate decisions end the
//    step cleanly and halt the chain; only "safe" proceeds);
//  - the gauges, pushed once per run and definitively (no pre-reset);
//  - the detector's re-spawn rules over the chain's Jobs;
//  - a chain Job built from the Job template.
#include "attune/core/policy/annotations.hpp"  // kUpgradePhaseLabel, kUpgradeTargetLabel
#include "attune/core/util/result.hpp"
#include "attune/core/upgrade/upgrade_gate.hpp"
#include "attune/core/upgrade/upgrade_version.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attune::core {

enum class ChainPhase { Preflight, Upgrade, Postflight };
std::optional<ChainPhase> parse_chain_phase(std::string_view s);
std::string_view to_string(ChainPhase p);

// Preflight: 0 => blocked=0 held=0 and proceed to the upgrade Job; 2 or 3
// (a gate error counts as blocked, fail-safe) => blocked=1 held=0; 4 =>
// blocked=0 held=1. Any other code is treated like a gate error.
struct PreflightRoute {
    int blocked = 1;
    int held = 0;
    bool proceed = false;  // spawn the upgrade Job
    std::string_view why;
};
PreflightRoute route_preflight(int gate_exit);

// Nodes that are not Ready: a real failure for every phase (exit 1).
std::vector<std::string> unready_nodes(const std::vector<NodeRuntime>& nodes);

// One gauge for the Pushgateway's text format.
struct PushedGauge {
    std::string name;
    std::string help;
    std::string target;  // the "target" label ("1.36")
    double value = 0;
};
// Prometheus text exposition (HELP, TYPE, one sample each).
std::string render_push_body(const std::vector<PushedGauge>& gauges);
// The gauges one step pushes: preflight both, postflight both at 0, the
// detector k8s_upgrade_available.
std::vector<PushedGauge> verdict_gauges(const std::string& target, int blocked, int held);
std::vector<PushedGauge> available_gauge(const std::string& target, bool available);

// Labels every chain Job carries (with kUpgradePhaseLabel and
// kUpgradeTargetLabel); the detector selects on them.
inline constexpr std::string_view kChainNameLabel = "app.kubernetes.io/name";
inline constexpr std::string_view kChainNameValue = "attune-upgrade";

enum class JobState { Active, Complete, Failed };

struct ChainJob {
    std::string name;
    std::string phase;
    std::string target;
    std::string created;  // metadata.creationTimestamp (RFC 3339, UTC)
    JobState state = JobState::Active;
};
// Error code "invalid_object" for a Job without a name.
Result<ChainJob> chain_job_from(const boost::json::value& job);

enum class DetectorAction {
    None,
    Spawn,           // no preflight for the target yet: announce
    RespawnRefused,  // the last preflight Completed (a refusal) and no upgrade Job: silently
    RespawnFailed,   // the last preflight Failed: announce
};
std::string_view to_string(DetectorAction a);

struct DetectorDecision {
    DetectorAction action = DetectorAction::None;
    bool announce = false;  // a genuinely new spawn or a Failed re-spawn only
    std::string why;
};
DetectorDecision decide_detector(const std::string& target, const std::vector<ChainJob>& jobs);

// "attune-upgrade-preflight-1-36-<base36 of unix seconds>": unique per run.
std::string chain_job_name(ChainPhase phase, KubeMinor target, std::uint64_t unix_seconds);

// The Job template (a batch/v1 Job) made into one chain Job: name, the chain
// labels on the Job and its pod template, and "--phase=P --target=T" appended
// to the args of the container named "step" (else the only container).
// Error code "invalid_template" for anything else.
Result<boost::json::value> build_chain_job(const boost::json::value& job_template, ChainPhase phase, KubeMinor target,
                                           const std::string& name);

// "{target}" in the pluggable upgrade command becomes the target ("1.36").
std::string upgrade_command_for(std::string_view command_template, KubeMinor target);

}  // namespace attune::core
