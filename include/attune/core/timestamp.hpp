#pragma once
// RFC 3339 timestamps as Kubernetes writes them (metav1.Time, seconds,
// UTC "Z"). Pure: the caller passes "now"; nothing here reads a clock.
#include <chrono>
#include <string>
#include <string_view>

#include "attune/core/result.hpp"

namespace attune::core {

using Timestamp = std::chrono::sys_seconds;

// "2026-12-01T10:00:00Z", "2026-12-01T10:00:00.123456Z",
// "2026-12-01T11:00:00+01:00". Fractions are truncated to the second.
// Error code "invalid_timestamp".
result<Timestamp> parse_rfc3339(std::string_view text);

// "2026-12-01T10:00:00Z" (UTC, whole seconds, as metav1.Time marshals).
std::string format_rfc3339(Timestamp t);

// Go's time.Duration String() for whole seconds: "1h0m0s", "5m0s", "0s".
std::string format_go_duration(std::chrono::seconds d);

}  // namespace attune::core
