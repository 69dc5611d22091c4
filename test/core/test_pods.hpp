#pragma once
// Compact pod builders for core tests: pods are written as the apiserver's
// JSON and decoded, so tests exercise the same path as production. Kept
// free of Boost.JSON so most test files compile quickly.
#include <initializer_list>
#include <string_view>
#include <utility>

#include "attune/core/model/pod_model.hpp"

namespace attune::core::testing {

Pod pod_from_json(std::string_view json);
Quantity qty(std::string_view s);
ResourceList rl(std::initializer_list<std::pair<const char*, const char*>> kv);

}  // namespace attune::core::testing
