#pragma once
// Compact pod builders for core tests: pods are written as the apiserver's
// JSON and decoded, so tests exercise the same path as production.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string_view>

#include "attune/core/pod_model.hpp"

namespace attune::core::testing {

inline Pod pod_from_json(std::string_view json) {
    auto r = decode_pod(boost::json::parse(json));
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message) << "\n" << json;
    return r.ok() ? r.value() : Pod{};
}

inline Quantity qty(std::string_view s) {
    auto r = Quantity::parse(s);
    EXPECT_TRUE(r.ok()) << s;
    return r.ok() ? r.value() : Quantity{};
}

inline ResourceList rl(std::initializer_list<std::pair<const char*, const char*>> kv) {
    ResourceList l;
    for (const auto& [k, v] : kv) l.emplace(k, qty(v));
    return l;
}

}  // namespace attune::core::testing
