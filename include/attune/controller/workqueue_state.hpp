#pragma once
// The workqueue's bookkeeping, controller-runtime semantics, with no I/O and
// no clock of its own (callers pass `now`, tests pass a fake one):
//  - dedupe: a key waiting to be processed is queued once;
//  - per-key serialisation: a key being processed is never handed out again;
//    an add while it is processed marks it dirty and it is re-queued by done();
//  - delayed adds and a per-key exponential backoff for failed keys;
//  - settled adds: delayed, and answered by any processing that starts first.
#include <chrono>
#include <deque>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace attune::controller {

struct RateLimitOptions {
    // Delay of the first retry, doubled per consecutive failure of the key.
    std::chrono::milliseconds base{5};
    std::chrono::milliseconds cap{std::chrono::seconds(300)};
};

class WorkqueueState {
public:
    using Clock = std::chrono::steady_clock;
    using time_point = Clock::time_point;

    explicit WorkqueueState(RateLimitOptions opts = {}) : opts_(opts) {}

    // Queues the key unless it is already waiting. Returns true when the key
    // became ready (a waiter should wake); ignored after shut_down().
    bool add(const std::string& key);
    // Makes the key ready at `when` (the earliest of several requests wins).
    void add_after(const std::string& key, time_point when);
    // Makes the key ready at `when` unless it is taken before then: the
    // processing that takes it reads every change made before it, so it
    // answers this request too. For coalescing delays (a burst of pod
    // events settling), not for timers (a refresh, a backoff), which stay
    // with add_after. A later add_after makes the request a timer.
    void add_settled(const std::string& key, time_point when);
    // add_after(now + backoff of this key), and counts one more failure.
    std::chrono::milliseconds add_rate_limited(const std::string& key, time_point now);
    // The key succeeded: its backoff starts over.
    void forget(const std::string& key);
    unsigned failures(const std::string& key) const;

    // Moves delayed keys whose time has come to the ready queue. Returns how many.
    std::size_t promote(time_point now);
    // The next ready key, now being processed; nullopt when none is ready or
    // after shut_down() (no new work is handed out).
    std::optional<std::string> take(time_point now);
    // Processing of `key` finished; a dirty key is queued again.
    void done(const std::string& key);

    std::optional<time_point> next_due() const;
    void shut_down() noexcept { shutting_down_ = true; }
    bool shutting_down() const noexcept { return shutting_down_; }

    std::size_t ready() const noexcept { return queue_.size(); }
    std::size_t delayed() const noexcept { return delayed_.size(); }
    std::size_t in_progress() const noexcept { return processing_.size(); }
    bool is_processing(const std::string& key) const { return processing_.contains(key); }

private:
    RateLimitOptions opts_;
    std::deque<std::string> queue_;
    std::unordered_set<std::string> dirty_;       // needs processing (queued, or re-queued on done)
    std::unordered_set<std::string> processing_;
    std::set<std::pair<time_point, std::string>> delayed_;
    std::unordered_map<std::string, time_point> delayed_at_;
    std::unordered_set<std::string> settled_;  // delayed keys that taking answers (add_settled)
    std::unordered_map<std::string, unsigned> failures_;
    bool shutting_down_ = false;
};

// base * 2^failures, capped.
std::chrono::milliseconds backoff_for(const RateLimitOptions& opts, unsigned failures);

}  // namespace attune::controller
