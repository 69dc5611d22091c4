#pragma once
// kubectl attune explain: one workload's recommendation, step by step with
// the numbers (the explanation the status carries: percentile, overhead,
// burst, confidence, bounds, change filter, final), and why it was or was
// not resized: which policy manages it (policy::select_policy, the
// manager's own rule), opt-out, pause, mode, idleness, staleness, the
// policy's conditions (cooldown, schedule, ResizeBlocked, Degraded), its
// resize history, the Events that name it or its pods (ResizeSkipped with
// its gate, MemoryLimitClamped, envelope_constraint, ...) and each pod's
// resize state, pod-level envelope and Attune annotations. Reads only what
// the API serves. Pure: the shell lists the objects.
#include <attune/core/policy/policy.hpp>
#include <attune/core/util/timestamp.hpp>

#include "object_lookup.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <map>
#include <string>
#include <vector>

namespace attune::cli {

struct ExplainInputs {
    std::string ns;
    std::string kind;  // canonical: Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob
    std::string name;
    std::string container;  // "" for every container
    ObjectLookup workload;
    std::vector<boost::json::value> policies;                // AttunePolicies of `ns`
    std::map<std::string, core::EffectivePolicy> effective;  // by policy name, for those that resolve
    // By policy name: why the manager has no settings for it (the message of
    // policy::PolicyResolver: a merge that fails validation, a policy or
    // defaults object that does not decode).
    std::map<std::string, std::string> refused;
    std::vector<boost::json::value> events;                  // events.k8s.io/v1 of `ns`
    std::vector<boost::json::value> pods;                    // candidates (the shell lists by label)
    core::Timestamp now{};
};

// The report as stable JSON:
// {workload{namespace, kind, name, found, optedOut, annotations{}},
//  policy{name, mode, paused, phase, reason, configError} | null, otherPolicies[],
//  idle{reason} | null,
//  recommendation{stale, lastDataTime, containers[{name, confidence, dataPoints, lastUpdated,
//     current{}, recommended{}, steps{cpu[], memory[]}}]} | null,
//  verdict: "resized" | "reverted" | "failed" | "pending" | "not resized" | "not managed",
//  reasons[{kind, text}], history[], events[{time, type, reason, regarding, note}],
//  pods[{name, node, resources{}, envelope{}|null, resizeState, annotations{}}]}
// steps: [{step, value, note}] in chain order.
boost::json::object explain_report(const ExplainInputs& in);

// The report for people.
std::string render_explain(const boost::json::object& report);

}  // namespace attune::cli
