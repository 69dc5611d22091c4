#include "attune/core/util/merge_patch.hpp"

#include <boost/json.hpp>

namespace attune::core {

boost::json::value apply_merge_patch(boost::json::value target, const boost::json::value& patch) {
    if (!patch.is_object()) return patch;
    if (!target.is_object()) target = boost::json::object{};
    auto& t = target.get_object();
    for (const auto& [k, v] : patch.get_object()) {
        if (v.is_null()) {
            t.erase(k);
            continue;
        }
        auto* existing = t.if_contains(k);
        t[k] = apply_merge_patch(existing ? std::move(*existing) : boost::json::value(nullptr), v);
    }
    return target;
}

}  // namespace attune::core
