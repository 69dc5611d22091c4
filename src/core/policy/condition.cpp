#include "attune/core/policy/condition.hpp"

#include <algorithm>
#include <boost/json.hpp>

#include "../util/json_decode.hpp"

namespace attune::core {

const Condition* find_condition(const std::vector<Condition>& conditions, std::string_view type) {
    for (const auto& c : conditions)
        if (c.type == type) return &c;
    return nullptr;
}

bool set_condition(std::vector<Condition>& conditions, Condition c) {
    for (auto& old : conditions) {
        if (old.type != c.type) continue;
        if (old.status == c.status) c.last_transition_time = old.last_transition_time;
        if (old == c) return false;
        old = std::move(c);
        return true;
    }
    conditions.push_back(std::move(c));
    return true;
}

bool remove_condition(std::vector<Condition>& conditions, std::string_view type) {
    const auto n = conditions.size();
    std::erase_if(conditions, [&](const Condition& c) { return c.type == type; });
    return conditions.size() != n;
}

boost::json::array conditions_json(const std::vector<Condition>& conditions) {
    boost::json::array a;
    for (const auto& c : conditions)
        a.push_back(boost::json::object{{"type", c.type},
                                        {"status", c.status},
                                        {"reason", c.reason},
                                        {"message", c.message},
                                        {"lastTransitionTime", format_timestamp(c.last_transition_time)},
                                        {"observedGeneration", c.observed_generation}});
    return a;
}

Result<std::vector<Condition>> decode_conditions(const boost::json::value& json) {
    using namespace detail;
    try {
        if (!json.is_array()) fail("conditions", "expected an array");
        std::vector<Condition> out;
        const auto& arr = json.get_array();
        for (std::size_t i = 0; i < arr.size(); ++i) {
            const std::string at = "conditions[" + std::to_string(i) + "]";
            const auto& o = as_object(arr[i], at);
            Condition c;
            c.type = opt_string(o, "type", at);
            if (c.type.empty()) fail(at + ".type", "missing");
            c.status = opt_string(o, "status", at);
            c.reason = opt_string(o, "reason", at);
            c.message = opt_string(o, "message", at);
            c.observed_generation = opt_int(o, "observedGeneration", at).value_or(0);
            const std::string t = opt_string(o, "lastTransitionTime", at);
            if (!t.empty()) {
                auto ts = parse_timestamp(t);
                if (!ts.ok()) fail(at + ".lastTransitionTime", ts.error().message);
                c.last_transition_time = ts.value();
            }
            out.push_back(std::move(c));
        }
        return out;
    } catch (const DecodeFailure& e) {
        return make_error("invalid_conditions", e.what());
    }
}

}  // namespace attune::core
