#pragma once
// Go duration strings ("1h30m", "90s", "500ms", "1.5h"), as Kubernetes APIs
// write metav1.Duration and time.ParseDuration reads them. Pure.
#include <chrono>
#include <string>
#include <string_view>

#include "attune/core/result.hpp"

namespace attune::core {

// time.ParseDuration: an optional sign, then one or more <decimal><unit>
// (units ns, us, µs, μs, ms, s, m, h); "0" alone needs no unit. Error code
// "invalid_duration" with a message that quotes the text.
result<std::chrono::nanoseconds> parse_go_duration(std::string_view text);

// time.Duration.String(): "1h30m0s", "5m0s", "1.5s", "500ms", "0s".
std::string format_go_duration(std::chrono::nanoseconds d);

}  // namespace attune::core
