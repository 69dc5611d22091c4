#pragma once
// Private helpers for writing decided resources back onto a PodSpec's JSON
// (CREATE sizing, deferred persistence). The caller then diffs the edited
// copy against the original (json_patch_diff), so only changed values move.
#include <boost/json.hpp>
#include <string_view>

#include "attune/core/model/pod_model.hpp"

namespace attune::core::detail {

// o[key] as an object, created (or replacing a null) when absent.
inline boost::json::object& ensure_object(boost::json::object& o, std::string_view key) {
    auto& v = o[key];
    if (!v.is_object()) v = boost::json::object();
    return v.get_object();
}

// o[key] := {requests, limits}; a list that is empty and was absent stays absent.
inline void write_resources(boost::json::object& o, std::string_view key, const ResourceRequirements& rr) {
    auto& res = ensure_object(o, key);
    if (!rr.requests.empty() || res.contains("requests")) res["requests"] = resource_list_json(rr.requests);
    if (!rr.limits.empty() || res.contains("limits")) res["limits"] = resource_list_json(rr.limits);
}

// The container `name` of spec.containers, else of spec.initContainers; false when neither has it.
inline bool write_container_resources(boost::json::object& spec, std::string_view name, const ResourceRequirements& rr) {
    for (std::string_view list : {"containers", "initContainers"}) {
        auto* arr = spec.if_contains(list);
        if (!arr || !arr->is_array()) continue;
        for (auto& c : arr->get_array()) {
            auto* co = c.if_object();
            if (!co) continue;
            const auto* n = co->if_contains("name");
            if (n && n->is_string() && n->get_string() == name) {
                write_resources(*co, "resources", rr);
                return true;
            }
        }
    }
    return false;
}

}  // namespace attune::core::detail
