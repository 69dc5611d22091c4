#include "attune/core/upgrade/upgrade_reason.hpp"

#include <algorithm>

namespace attune::core {

std::string_view tag_of(BlockClass c) {
    switch (c) {
        case BlockClass::Actionable: return "ACTIONABLE";
        case BlockClass::Waiting: return "WAITING";
        case BlockClass::Pinned: return "PINNED";
    }
    return "ACTIONABLE";
}

std::string GateReason::line() const {
    return "[" + std::string(tag_of(cls)) + "] " + subject + ": " + message;
}

int gate_exit_code(std::span<const GateReason> reasons) {
    if (reasons.empty()) return kGateSafe;
    const bool held = std::any_of(reasons.begin(), reasons.end(), [](const GateReason& r) { return is_held(r.cls); });
    return held ? kGateHeld : kGateActionable;
}

ReasonLine parse_reason_line(std::string_view line) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    for (auto c : {BlockClass::Actionable, BlockClass::Waiting, BlockClass::Pinned}) {
        const std::string tag = "[" + std::string(tag_of(c)) + "]";
        if (line.substr(0, tag.size()) == tag) {
            auto rest = line.substr(tag.size());
            while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
            return {c, std::string(rest)};
        }
    }
    return {std::nullopt, std::string(line)};
}

}  // namespace attune::core
