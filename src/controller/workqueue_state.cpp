#include <attune/controller/workqueue_state.hpp>

namespace attune::controller {

std::chrono::milliseconds backoff_for(const RateLimitOptions& opts, unsigned failures) {
    auto d = opts.base;
    for (unsigned i = 0; i < failures && d < opts.cap; ++i) d *= 2;
    return d < opts.cap ? d : opts.cap;
}

bool WorkqueueState::add(const std::string& key) {
    if (shutting_down_ || dirty_.contains(key)) return false;
    dirty_.insert(key);
    if (processing_.contains(key)) return false;  // done() re-queues it
    queue_.push_back(key);
    return true;
}

void WorkqueueState::add_after(const std::string& key, time_point when) {
    if (shutting_down_) return;
    settled_.erase(key);
    if (auto it = delayed_at_.find(key); it != delayed_at_.end()) {
        if (it->second <= when) return;
        delayed_.erase({it->second, key});
        it->second = when;
    } else {
        delayed_at_.emplace(key, when);
    }
    delayed_.emplace(when, key);
}

void WorkqueueState::add_settled(const std::string& key, time_point when) {
    if (shutting_down_) return;
    const bool pending_timer = delayed_at_.contains(key) && !settled_.contains(key);
    add_after(key, when);
    if (!pending_timer) settled_.insert(key);
}

std::chrono::milliseconds WorkqueueState::add_rate_limited(const std::string& key, time_point now) {
    auto& n = failures_[key];
    const auto d = backoff_for(opts_, n);
    ++n;
    add_after(key, now + d);
    return d;
}

void WorkqueueState::forget(const std::string& key) { failures_.erase(key); }

unsigned WorkqueueState::failures(const std::string& key) const {
    auto it = failures_.find(key);
    return it == failures_.end() ? 0 : it->second;
}

std::size_t WorkqueueState::promote(time_point now) {
    std::size_t n = 0;
    while (!delayed_.empty() && delayed_.begin()->first <= now) {
        auto node = delayed_.extract(delayed_.begin());
        delayed_at_.erase(node.value().second);
        settled_.erase(node.value().second);
        if (add(node.value().second)) ++n;
    }
    return n;
}

std::optional<std::string> WorkqueueState::take(time_point now) {
    if (shutting_down_) return std::nullopt;
    promote(now);
    if (queue_.empty()) return std::nullopt;
    auto key = std::move(queue_.front());
    queue_.pop_front();
    dirty_.erase(key);
    if (settled_.erase(key)) {
        // Requested before this processing began, which answers it.
        delayed_.erase({delayed_at_.at(key), key});
        delayed_at_.erase(key);
    }
    processing_.insert(key);
    return key;
}

void WorkqueueState::done(const std::string& key) {
    processing_.erase(key);
    if (dirty_.contains(key) && !shutting_down_) queue_.push_back(key);
}

std::optional<WorkqueueState::time_point> WorkqueueState::next_due() const {
    if (delayed_.empty()) return std::nullopt;
    return delayed_.begin()->first;
}

}  // namespace attune::controller
