#pragma once
// metav1.Time on the wire: RFC 3339 in UTC with whole seconds
// ("2026-12-01T10:00:00Z"). The core keeps times as sys_seconds, so a
// value survives a status round trip unchanged and a decision taken after a
// restart compares the same instants as before it. Pure.
#include <chrono>
#include <string>
#include <string_view>

#include "attune/core/util/result.hpp"

namespace attune::core {

using Timestamp = std::chrono::sys_seconds;

// "2006-01-02T15:04:05Z".
std::string format_timestamp(Timestamp t);

// RFC 3339: "YYYY-MM-DDTHH:MM:SS", an optional fraction (dropped: metav1.Time
// has whole seconds), then "Z" or "+HH:MM"/"-HH:MM"; upper-case 'T' and 'Z'
// only, as Go's time.RFC3339 parser (the apiserver's) wants. Error code
// "invalid_timestamp".
Result<Timestamp> parse_timestamp(std::string_view text);

}  // namespace attune::core
