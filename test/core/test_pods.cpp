#include "test_pods.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace attune::core::testing {

Pod pod_from_json(std::string_view json) {
    auto r = decode_pod(boost::json::parse(json));
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message) << "\n" << json;
    return r.ok() ? r.value() : Pod{};
}

Quantity qty(std::string_view s) {
    auto r = Quantity::parse(s);
    EXPECT_TRUE(r.ok()) << s;
    return r.ok() ? r.value() : Quantity{};
}

ResourceList rl(std::initializer_list<std::pair<const char*, const char*>> kv) {
    ResourceList l;
    for (const auto& [k, v] : kv) l.emplace(k, qty(v));
    return l;
}

}  // namespace attune::core::testing
