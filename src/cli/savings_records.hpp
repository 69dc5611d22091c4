#pragma once
// What `kubectl attune savings` prints (docs/cli.md#kubectl-attune-savings):
// one record per policy, from its status.recommendations through
// core::add_savings (the Go Attune's status.savings arithmetic), priced with
// the policy's effective costPricing, and a total. The table shows the
// numbers as people read them; the records also carry the exact values,
// which -o json|yaml print. Pure.
#include "output.hpp"

#include <attune/core/policy/policy.hpp>
#include <attune/core/recommend/savings.hpp>
#include <attune/core/util/result.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace attune::cli {

// {namespace, name, mode, workloads, containers,
//  cpuRequestTotal, memoryRequestTotal, cpuRequestReduction, memoryRequestReduction,
//  cpuRequestIncrease, memoryRequestIncrease          (quantities, exact; "0" when none)
//  estimatedMonthlySavings, estimatedMonthlyCostIncrease (dollars, unrounded numbers)
//  pricing{cpuPerCoreHour, memoryPerGiBHour, source: "effective" | "built-in"},
//  savings{...}                                      (status.savings as the Go Attune writes it)
//  cpuSaved, memorySaved, percentSaved, monthlySavings, cpuIncrease, memoryIncrease,
//  monthlyCostIncrease, pricingText                  (text: CPU in millicores, memory in Ki/Mi/Gi, "$12.50")}
// `effective`: the policy's settings (its costPricing); nullptr when its
// settings do not resolve, then the built-in prices (0.031 / 0.004) are used
// and pricing.source says "built-in". Error "invalid_recommendations" when
// status.recommendations does not decode.
core::Result<boost::json::object> savings_record(const boost::json::value& policy,
                                                 const core::EffectivePolicy* effective);

// The total over `records` (savings_record's): name "TOTAL", the sums, and
// money summed per policy (each priced at its own rates).
boost::json::object savings_total(const boost::json::array& records);

std::vector<Column> savings_columns(bool all_namespaces);

// --sort-by for savings: the Go plugin's keywords (name, namespace, age:
// creation time, savings: the largest estimated monthly savings first), else
// kubectl's JSONPath or column header (sort_order). Error "bad_usage".
core::Result<std::vector<std::size_t>> savings_order(const boost::json::array& records, std::string_view sort_by,
                                                     bool all_namespaces);

}  // namespace attune::cli
