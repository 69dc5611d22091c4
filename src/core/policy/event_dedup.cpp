#include "attune/core/policy/event_dedup.hpp"

#include <algorithm>

namespace attune::core {

namespace {
std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}
}  // namespace

bool suppresses(std::string_view annotation_value, std::string_view reason) {
    if (reason.empty()) return false;
    while (!annotation_value.empty()) {
        const auto comma = annotation_value.find(',');
        if (trim(annotation_value.substr(0, comma)) == reason) return true;
        if (comma == std::string_view::npos) break;
        annotation_value.remove_prefix(comma + 1);
    }
    return false;
}

EventDedup::EventDedup(std::size_t max_keys, std::chrono::seconds window)
    : max_keys_(std::max<std::size_t>(max_keys, 1)), window_(window) {}

bool EventDedup::admit(std::string_view uid, std::string_view reason, std::string_view message, Timestamp now) {
    std::string key;
    key.reserve(uid.size() + reason.size() + message.size() + 2);
    key.append(uid).push_back('\0');
    key.append(reason).push_back('\0');
    key.append(message);
    if (auto it = last_.find(key); it != last_.end()) {
        if (now - it->second < window_) return false;
        it->second = now;
        return true;
    }
    if (last_.size() >= max_keys_) prune(now);
    last_.emplace(std::move(key), now);
    return true;
}

void EventDedup::prune(Timestamp now) {
    std::erase_if(last_, [&](const auto& e) { return now - e.second >= window_; });
    while (last_.size() >= max_keys_) {
        auto oldest = std::min_element(last_.begin(), last_.end(),
                                       [](const auto& a, const auto& b) { return a.second < b.second; });
        last_.erase(oldest);
    }
}

}  // namespace attune::core
