#pragma once
// Numbers as a person reads them, for text meant for people (the CLI's
// explain text, the demo): a fraction as a percentage with two significant
// figures, CPU in millicores, memory in Ki, Mi or Gi. JSON and YAML output
// keep the exact values (docs/cli.md#numbers-in-text-output).
#include <string>
#include <string_view>

#include "attune/core/model/quantity.hpp"

namespace attune::core {

// Two significant figures, trailing zeros dropped: 4.1335978835978834e-05 ->
// "0.0041%", 0.93 -> "93%", 5e-05 -> "0.005%", 1 -> "100%".
std::string readable_percent(double fraction);
// Millicores, rounded up as the kubelet does: "6m", "250m", "1500m".
std::string readable_cpu(const Quantity& q);
// Bytes in the largest of Ki, Mi and Gi that keeps at least 1, to three
// significant figures (a whole number keeps every digit): "512Ki", "234Mi",
// "1.5Gi", "1024Mi"; below 1Ki in bytes.
std::string readable_memory(const Quantity& q);
// readable_cpu or readable_memory by resource name ("cpu", "memory"); any
// other resource, and text that is not a quantity, comes back as it is.
std::string readable_quantity(std::string_view resource, std::string_view text);

}  // namespace attune::core
