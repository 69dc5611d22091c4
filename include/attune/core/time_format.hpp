#pragma once
// metav1.Time as the apiserver writes it: RFC 3339, UTC, whole seconds
// ("2026-12-01T10:00:00Z"). Pure: the time is passed in.
#include <string>

namespace attune::core {

// `seconds` since the Unix epoch, rounded down to the second.
std::string format_rfc3339(double seconds);

}  // namespace attune::core
