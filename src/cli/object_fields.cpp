#include "object_fields.hpp"

#include <attune/core/util/json_path.hpp>

#include <algorithm>
#include <cctype>

namespace attune::cli {

namespace json = boost::json;

bool iequals(std::string_view a, std::string_view b) noexcept {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

double number_at(const json::value& v, std::string_view key, double fallback) {
    const auto* n = core::json_at(v, {key});
    if (n == nullptr) return fallback;
    if (n->is_double()) return n->get_double();
    if (n->is_int64()) return static_cast<double>(n->get_int64());
    if (n->is_uint64()) return static_cast<double>(n->get_uint64());
    return fallback;
}

json::value str_or_null(std::string_view s) { return s.empty() ? json::value(nullptr) : json::value(s); }

const json::value* find_condition(const json::value& obj, std::string_view type) {
    if (const auto* conds = core::array_at(obj, {"status", "conditions"}))
        for (const auto& c : *conds)
            if (core::string_at(c, {"type"}) == type) return &c;
    return nullptr;
}

bool condition_true(const json::value& obj, std::string_view type) {
    const auto* c = find_condition(obj, type);
    return c != nullptr && core::string_at(*c, {"status"}) == "True";
}

json::object resource_values(const json::value* v) {
    json::object o;
    for (const char* k : {"cpuRequest", "cpuLimit", "memoryRequest", "memoryLimit"}) {
        const auto s = v ? core::string_at(*v, {k}) : std::string_view();
        o[k] = s.empty() ? "0" : s;
    }
    return o;
}

std::string canonical_kind(std::string_view k) {
    for (const char* c : {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob"})
        if (iequals(k, c) || iequals(k, std::string(c) + "s")) return c;
    if (iequals(k, "deploy")) return "Deployment";
    if (iequals(k, "sts")) return "StatefulSet";
    if (iequals(k, "ds")) return "DaemonSet";
    if (iequals(k, "rs")) return "ReplicaSet";
    if (iequals(k, "cj")) return "CronJob";
    return "";
}

}  // namespace attune::cli
