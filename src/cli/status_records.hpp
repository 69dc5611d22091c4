#pragma once
// What `kubectl attune status`, `recommendations` and `history` print, as
// JSON records built from what the API serves (an AttunePolicy's status,
// docs/api.md#attunepolicy-status). The same records feed the table (columns are
// paths into them) and -o json/yaml, so scripts read exactly what people
// see. Field names are stable; absent status fields read as 0, "" or [].
// Pure.
#include "output.hpp"

#include <attune/core/policy/policy.hpp>
#include <attune/core/util/result.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace attune::cli {

// ---- status: one record per policy ----
// {namespace, name, mode, paused, phase, message,
//  workloads{discovered, withRecommendations, resized, pending, deferred, infeasible},
//  idle, idleWorkloads[{workload, kind, reason}],
//  conditions[{type, status, reason, message, lastTransitionTime}], conditionSummary["Ready=True"],
//  lastReconcileTime, observedGeneration}
//
// phase: Paused (spec.paused), else Degraded (Degraded=True), else Resizing
// (Resizing=True), else the Ready condition's reason (Monitoring,
// InsufficientData, PrometheusUnavailable, ...), else Unknown when the
// status has no Ready condition yet, or Pending when there is no status.
// mode: the effective updateStrategy.type (the defaults merge) when
// `effective` is given, else the spec's, else Recommend.
boost::json::object status_record(const boost::json::value& policy, const core::EffectivePolicy* effective);
std::vector<Column> status_columns(bool all_namespaces);

// ---- recommendations: one record per container ----
// {namespace, policy, kind, workload, container, current{cpuRequest, cpuLimit,
//  memoryRequest, memoryLimit}, recommended{...}, confidence, dataPoints,
//  lastUpdated, stale, lastDataTime, cpuRequest "250m -> 100m",
//  memoryRequest, cpuLimit, memoryLimit}
// `workload`: "" for all, else "name" or "Kind/name" (case-insensitive kind).
boost::json::array recommendation_records(const boost::json::value& policy, const std::string& workload);
std::vector<Column> recommendation_columns(bool all_namespaces);

// ---- history: one record per status.resizeHistory entry, oldest first ----
// {namespace, policy, timestamp, workload, container, resource, method,
//  result, reason, from, to}. Error "invalid_history" (core::decode_history)
// when the status holds an entry that does not decode.
core::Result<boost::json::array> history_records(const boost::json::value& policy, const std::string& workload);
std::vector<Column> history_columns(bool all_namespaces);

// "Deployment/web" or "web" against a status entry's kind and workload name.
bool workload_matches(const std::string& filter, std::string_view kind, std::string_view name);

}  // namespace attune::cli
