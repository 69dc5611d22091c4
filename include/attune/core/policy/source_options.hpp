#pragma once
// The metrics-source choices that the API (policy.hpp) and the sources that
// read them (promql.hpp, vpa_source.hpp) share: one definition, so a policy's
// value reaches a query or a VPA read without a translation step.
namespace attune::core {

// How per-pod series are reduced in a usage query (metricsSource.podAggregation).
enum class PodAggregation { Max, Avg, None };

// Which bound of a VPA recommendation is used (metricsSource.vpa.selection).
enum class VpaSelection { Target, LowerBound, UpperBound };

}  // namespace attune::core
