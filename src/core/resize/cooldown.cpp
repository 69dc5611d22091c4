#include "attune/core/resize/cooldown.hpp"
#include "attune/core/policy/annotations.hpp"
#include "attune/core/util/duration.hpp"

#include <boost/json.hpp>

namespace attune::core {

CooldownState cooldown_state(std::chrono::seconds base, int consecutive_reverts) {
    CooldownState s;
    s.consecutive_reverts = consecutive_reverts < 0 ? 0 : consecutive_reverts;
    s.backoff_multiplier = 1;
    for (int i = 0; i < s.consecutive_reverts && s.backoff_multiplier < kMaxBackoffMultiplier; ++i) s.backoff_multiplier *= 2;
    s.effective = base * s.backoff_multiplier;
    return s;
}

CooldownCheck check_cooldown(const CooldownState& state, const std::optional<std::string>& last_resize_time,
                             Timestamp now) {
    CooldownCheck c;
    if (!last_resize_time || state.effective.count() <= 0) return c;
    const auto anchor = parse_timestamp(*last_resize_time);
    if (!anchor.ok()) {
        c.active = true;
        c.anchor_invalid = true;
        c.message = std::string(kLastResizeTimeAnnotation) + " is invalid (" + anchor.error().message +
                    "); resizes wait until it is corrected or removed";
        return c;
    }
    const auto until = anchor.value() + state.effective;
    if (now >= until) return c;
    c.active = true;
    // A future anchor (clock skew) counts from now, never longer than one cooldown.
    c.remaining = std::min(until - now, state.effective);
    c.message = "cooldown " + format_duration(state.effective) + " (x" + std::to_string(state.backoff_multiplier) +
                " after " + std::to_string(state.consecutive_reverts) + " consecutive revert(s)) active for another " +
                format_duration(c.remaining);
    return c;
}

boost::json::value cooldown_status_json(const CooldownState& state) {
    return boost::json::object{{"effectiveCooldown", format_duration(state.effective)},
                               {"backoffMultiplier", state.backoff_multiplier},
                               {"consecutiveReverts", state.consecutive_reverts}};
}

}  // namespace attune::core
