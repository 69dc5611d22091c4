#pragma once
// What `kubectl attune preview` prints (docs/cli.md#kubectl-attune-preview):
// per pod and container, what the executor would do now if the policy's mode
// were Auto. The decision is the executor's own: core::resize_targets from
// the policy's status.recommendations, core::check_pod_eligibility,
// core::select_pass_pods, core::policy_gate_inputs and core::apply_cycle over
// one pass's core::ResizeCycleBook, then core::decide_resize (and
// core::plan_resize for the values a held pod would get). The shell reads
// what the executor reads from its caches with kubectl-style GETs; an input
// it could not read is named in the row, never guessed. Pure.
#include "output.hpp"

#include <attune/core/model/capabilities.hpp>
#include <attune/core/policy/annotations.hpp>
#include <attune/core/policy/policy.hpp>
#include <attune/core/resize/admission_limits.hpp>
#include <attune/core/util/result.hpp>
#include <attune/core/util/time_zone.hpp>
#include <attune/core/util/timestamp.hpp>

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace attune::cli {

// A read that may have failed: the objects, or why not.
template <class T>
struct Read {
    std::optional<T> value;
    std::string error;  // set when `value` is not
};

struct PreviewWorkload {
    Read<boost::json::value> object;             // the workload
    Read<std::vector<boost::json::value>> pods;  // its pods (the shell filters by its selector)
};

struct PreviewNode {
    Read<boost::json::value> object;             // GET nodes/NAME
    Read<std::vector<boost::json::value>> pods;  // the pods bound to it, every namespace
};

struct PreviewInputs {
    boost::json::value policy;
    // The policy's settings (policy::PolicyResolver); nullopt with why when
    // they do not resolve (the executor then resizes nothing).
    std::optional<core::EffectivePolicy> effective;
    std::string config_error;
    core::Capabilities caps;
    std::string caps_error;                            // the probe failed: caps are core::safe_defaults()
    std::map<std::string, PreviewWorkload> workloads;  // "Kind/name"
    Read<core::StringMap> namespace_annotations;
    Read<std::vector<core::LimitRangeItem>> limit_ranges;
    Read<std::vector<core::QuotaFacts>> quotas;
    std::map<std::string, PreviewNode> nodes;  // by node name
    // updateStrategy.schedule.timezone as the shell loaded it (policy::TimeZones).
    std::optional<core::TimeZone> zone;
    core::Timestamp now;
};

// One row per pod and targeted container:
// {namespace, policy, kind, workload, pod, node, container,
//  action: resize | defer | hold | none | skip | unknown, reason, message,
//  current{cpuRequest, cpuLimit, memoryRequest, memoryLimit}, proposed{...}   (quantities; null when absent)
//  cpu "500m/1000m -> 200m/400m", memory "256Mi/512Mi -> 128Mi/512Mi"          (request/limit, as people read them)
//  dropped[{gate, resource, message}], unavailable[]}
// resize: the executor would send the /resize now (`dropped`: increases it
// would hold back while the rest goes ahead); defer: it waits its turn
// (maxConcurrentResizes, a resize of the pod still pending or in progress, a
// startup boost); hold: a gate or a setting keeps it (reason is the gate:
// cooldown, outside_schedule, node_capacity, budget_exhausted, limit_range,
// InPlaceResizeWouldChangeQoSClass, envelope_constraint, paused, idle,
// stale, opted_out, ...); none: the pod already has these values; skip: the
// pod is not running; unknown: an input the decision needs could not be
// read (`unavailable` says which).
struct PreviewResult {
    boost::json::array rows;
    std::vector<std::string> notes;  // about the whole policy
};

// Error "invalid_recommendations" / "invalid_history" when the policy's
// status does not decode.
core::Result<PreviewResult> preview_policy(const PreviewInputs& in);

std::vector<Column> preview_columns(bool all_namespaces);

}  // namespace attune::cli
