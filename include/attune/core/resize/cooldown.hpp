#pragma once
// The per-policy resize cooldown with revert backoff (docs/safety.md#cooldown-backoff,
// status.cooldown): the base (default 1h) doubles per consecutive revert
// up to 16x. Anchored on the policy's attune.io/last-resize-time.
#include <boost/json/value.hpp>
#include <chrono>
#include <optional>
#include <string>

#include "attune/core/util/timestamp.hpp"

namespace attune::core {

inline constexpr std::chrono::seconds kDefaultCooldown{3600};
inline constexpr int kMaxBackoffMultiplier = 16;

struct CooldownState {
    std::chrono::seconds effective{kDefaultCooldown};
    int backoff_multiplier = 1;  // 1, 2, 4, 8, 16
    int consecutive_reverts = 0;
    friend bool operator==(const CooldownState&, const CooldownState&) = default;
};

// `consecutive_reverts` from count_consecutive_reverts(history).
CooldownState cooldown_state(std::chrono::seconds base, int consecutive_reverts);

struct CooldownCheck {
    bool active = false;
    std::chrono::seconds remaining{0};
    bool anchor_invalid = false;  // the annotation does not parse: fails closed (active), report it
    std::string message;
};

// `last_resize_time`: the raw attune.io/last-resize-time value, nullopt
// when absent (never resized: no cooldown). An unparseable value keeps the
// cooldown on (fail closed) until a user corrects or removes it.
CooldownCheck check_cooldown(const CooldownState& state, const std::optional<std::string>& last_resize_time,
                             Timestamp now);

// status.cooldown: {"effectiveCooldown":"2h0m0s","backoffMultiplier":2,"consecutiveReverts":1}
boost::json::value cooldown_status_json(const CooldownState& state);

}  // namespace attune::core
