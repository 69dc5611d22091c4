#pragma once
// Numbers as a person reads them, for text meant for people (the CLI's text
// output, Events, the messages and explanations in status, the demo): a fraction as a percentage with two significant
// figures, CPU in millicores, memory in Ki, Mi or Gi. JSON and YAML output
// keep the exact values (docs/cli.md#numbers-in-text-output).
#include <string>
#include <string_view>

#include "attune/core/model/quantity.hpp"

namespace attune::core {

// Which form a text meant for a person or for a program takes: Exact keeps
// the quantities as Kubernetes writes them (status fields, logs), Readable
// uses the functions below.
enum class NumberStyle { Exact, Readable };

// What readable_percent prints for NaN and infinities: never "nan".
inline constexpr std::string_view kNotANumber = "n/a";

// Two significant figures, trailing zeros dropped, never an exponent:
// 4.1335978835978834e-05 -> "0.0041%", 0.93 -> "93%", 5e-05 -> "0.005%",
// 1 -> "100%"; NaN and infinities -> kNotANumber.
std::string readable_percent(double fraction);
// Millicores, rounded up as the kubelet does: "6m", "250m", "1500m".
std::string readable_cpu(const Quantity& q);
// Bytes in the largest of Ki, Mi and Gi that keeps at least 1, to three
// significant figures (a whole number keeps every digit): "512Ki", "234Mi",
// "1.5Gi", "1024Mi"; below 1Ki in bytes.
std::string readable_memory(const Quantity& q);
// readable_cpu or readable_memory by resource name ("cpu", "memory"); any
// other resource comes back in its canonical form (to_string).
std::string readable_quantity(std::string_view resource, const Quantity& q);
// The same for a quantity's text; text that is not a quantity comes back as it is.
std::string readable_quantity(std::string_view resource, std::string_view text);

}  // namespace attune::core
