#pragma once
// The shell's one reading of the wall clock as the core's Timestamp (whole
// seconds): the core takes time as a value and never reads a clock.
#include <chrono>

#include "attune/core/util/timestamp.hpp"

namespace attune::kube {

inline core::Timestamp wall_now() {
    return std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
}

}  // namespace attune::kube
