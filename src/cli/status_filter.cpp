#include "status_filter.hpp"

#include <attune/core/util/json_path.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>
#include <string>

namespace attune::cli {
namespace json = boost::json;

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

// The record's condition of `type`, or nullptr.
const json::value* condition(const json::object& record, std::string_view type) {
    const auto* list = record.if_contains("conditions");
    if (list == nullptr || !list->is_array()) return nullptr;
    for (const auto& c : list->get_array())
        if (core::string_at(c, {"type"}) == type) return &c;
    return nullptr;
}

std::string_view field(const json::value* c, std::string_view key) {
    return c == nullptr ? std::string_view() : core::string_at(*c, {key});
}

}  // namespace

bool status_matches_filter(const json::object& record, std::string_view filter) {
    if (filter.empty()) return true;
    const auto* ready = condition(record, "Ready");
    const auto* degraded = condition(record, "Degraded");
    const std::string word = lower(filter);
    if (word == "degraded") return field(degraded, "status") == "True";
    if (word == "pending") return ready == nullptr;
    if (word == "collecting") return field(ready, "reason") == "InsufficientData";
    if (word == "ready") return field(ready, "status") == "True";
    if (word == "noworkloads") return field(ready, "reason") == "NoWorkloadsFound";
    const auto* phase = record.if_contains("phase");
    const std::string phase_text = phase != nullptr && phase->is_string() ? lower(phase->get_string()) : "";
    return phase_text.find(word) != std::string::npos || lower(field(ready, "reason")).find(word) != std::string::npos;
}

}  // namespace attune::cli
