#pragma once
// metav1.Condition as AttunePolicy.status.conditions holds them (listType
// map on type), with apimachinery's SetStatusCondition semantics: the
// transition time moves only when the status changes.
#include <boost/json/array.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/util/result.hpp"
#include "attune/core/util/timestamp.hpp"

namespace attune::core {

struct Condition {
    std::string type;
    std::string status;  // True | False | Unknown
    std::string reason;
    std::string message;
    Timestamp last_transition_time;
    std::int64_t observed_generation = 0;
    friend bool operator==(const Condition&, const Condition&) = default;
};

const Condition* find_condition(const std::vector<Condition>& conditions, std::string_view type);

// Adds or updates `c` by type. An unchanged status keeps the old
// lastTransitionTime; true when anything changed.
bool set_condition(std::vector<Condition>& conditions, Condition c);
// True when it was present.
bool remove_condition(std::vector<Condition>& conditions, std::string_view type);

boost::json::array conditions_json(const std::vector<Condition>& conditions);
// Error "invalid_conditions" naming the index and field.
Result<std::vector<Condition>> decode_conditions(const boost::json::value& json);

}  // namespace attune::core
