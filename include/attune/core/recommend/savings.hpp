#pragma once
// Estimated request savings over a policy's recommendations
// (docs/cli.md#kubectl-attune-savings): per container, current minus
// recommended cpu and memory requests, split into reductions and increases,
// priced with the effective costPricing. As the Go Attune v0.1.23 computes
// status.savings: one container of each recommendation counts once (the
// pod template's requests, not multiplied by replicas), cpu in whole
// millicores and memory in bytes, a month is 730 hours. Pure.
#include <boost/json/object.hpp>
#include <cstdint>
#include <span>
#include <string>

#include "attune/core/policy/policy.hpp"  // CostPricing
#include "attune/core/recommend/recommender.hpp"

namespace attune::core {

inline constexpr double kHoursPerMonth = 730;

struct RequestSavings {
    std::int64_t cpu_total_milli = 0;  // sum of the current cpu requests
    std::int64_t memory_total_bytes = 0;
    std::int64_t cpu_reduction_milli = 0;  // sum of (current - recommended) where positive
    std::int64_t memory_reduction_bytes = 0;
    std::int64_t cpu_increase_milli = 0;  // sum of (recommended - current) where positive
    std::int64_t memory_increase_bytes = 0;
    int containers = 0;  // containers counted
    friend bool operator==(const RequestSavings&, const RequestSavings&) = default;

    RequestSavings& operator+=(const RequestSavings& o);
};

// Adds every container of `rec` (its current and recommended requests).
void add_savings(RequestSavings& into, const WorkloadRecommendation& rec);

// ($ per core-hour x cores + $ per GiB-hour x GiB) x 730, unrounded.
double monthly_cost(std::int64_t cpu_milli, std::int64_t memory_bytes, const CostPricing& pricing);

// "$12.50": two decimals, as status.savings spells money.
std::string format_money(double dollars);

// status.savings as the Go Attune writes it: {cpuRequestTotal,
// memoryRequestTotal, cpuRequestReduction, memoryRequestReduction,
// reclaimedCpuRequest, reclaimedMemoryRequest, cpuRequestIncrease,
// memoryRequestIncrease} as quantities (cpu DecimalSI from millicores,
// memory BinarySI from bytes), estimatedMonthlySavings and
// estimatedMonthlyCostIncrease as "$12.50"; a field whose value is zero is
// left out (omitempty).
boost::json::object savings_status_json(const RequestSavings& s, const CostPricing& pricing);

}  // namespace attune::core
