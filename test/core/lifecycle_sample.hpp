#pragma once
// One status.lifecycle entry with every field set, shared by the status
// tests and lifecycle_status_driver (the schema fragment e2e check).
#include "attune/core/lifecycle/lifecycle_status.hpp"

namespace attune::core::testing {

inline const Timestamp kSampleTime{std::chrono::sys_days{std::chrono::year{2026} / 12 / 1} + std::chrono::hours{10}};

LifecycleStatusEntry sample_lifecycle_entry();

}  // namespace attune::core::testing
