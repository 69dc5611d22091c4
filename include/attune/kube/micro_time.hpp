#pragma once
// Kubernetes MicroTime ("2006-01-02T15:04:05.000000Z"), UTC. Pure.
#include <chrono>
#include <string>

namespace attune::kube {

std::string format_micro_time(std::chrono::system_clock::time_point t);

}  // namespace attune::kube
