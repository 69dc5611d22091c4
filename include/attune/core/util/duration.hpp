#pragma once
// Go durations (time.ParseDuration / Duration.String), the format of every
// duration field of the Attune API ("1h30m", "90s", "500ms"). Pure.
#include <chrono>
#include <string>
#include <string_view>

#include "attune/core/util/result.hpp"

namespace attune::core {

using Duration = std::chrono::nanoseconds;

// Accepts what Go's time.ParseDuration accepts: an optional sign, then one or
// more decimal numbers with a unit (ns, us, µs, μs, ms, s, m, h); "0" alone.
// Error code "invalid_duration"; the message quotes the text.
Result<Duration> parse_duration(std::string_view text);

// Go's Duration.String(): "1h30m0s", "1m30s", "500ms", "1.5µs", "0s".
std::string format_duration(Duration d);

}  // namespace attune::core
