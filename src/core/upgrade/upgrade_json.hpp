#pragma once
// Private to the upgrade core: lenient reads of Kubernetes objects, where a
// missing or mistyped field reads as absent (the callers decide what absence means).
#include <boost/json/value.hpp>

#include <initializer_list>
#include <string>
#include <string_view>

namespace attune::core::detail {

inline const boost::json::value* at(const boost::json::value* v, std::initializer_list<std::string_view> path) {
    for (auto k : path) {
        if (v == nullptr || !v->is_object()) return nullptr;
        v = v->get_object().if_contains(k);
    }
    return v;
}

inline std::string string_at(const boost::json::value* v, std::initializer_list<std::string_view> path) {
    const auto* s = at(v, path);
    return s && s->is_string() ? std::string(s->get_string()) : std::string();
}

}  // namespace attune::core::detail
