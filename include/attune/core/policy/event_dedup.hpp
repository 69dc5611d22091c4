#pragma once
// The "D" rule of docs/api.md#events for Events regarding an AttunePolicy: the
// same uid + reason + message at most once per hour, and only such Events
// can be silenced by the policy's attune.io/suppress-warnings annotation (a
// comma-separated list of reasons). Pure: the caller passes the time.
#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <string_view>

#include "attune/core/policy/annotations.hpp"  // kSuppressWarningsAnnotation
#include "attune/core/util/timestamp.hpp"

namespace attune::core {

inline constexpr std::chrono::seconds kEventDedupWindow{3600};

// The annotation value names `reason` (entries trimmed of blanks; exact,
// case-sensitive match, as the Go original's).
bool suppresses(std::string_view annotation_value, std::string_view reason);

class EventDedup {
public:
    // At most `max_keys` remembered Events: past it, those older than the
    // window go first, then the oldest (which can at worst repeat early).
    explicit EventDedup(std::size_t max_keys = 4096, std::chrono::seconds window = kEventDedupWindow);

    // True when the same uid + reason + message was not admitted within the
    // window before `now`; an admitted Event starts a new window.
    bool admit(std::string_view uid, std::string_view reason, std::string_view message, Timestamp now);
    std::size_t size() const noexcept { return last_.size(); }

private:
    void prune(Timestamp now);

    std::size_t max_keys_;
    std::chrono::seconds window_;
    std::map<std::string, Timestamp, std::less<>> last_;
};

}  // namespace attune::core
