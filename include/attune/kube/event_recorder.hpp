#pragma once
// events.k8s.io/v1 Events on the operator's behalf. Repeats of the same event
// (same object, type, reason, action and note) within a window become one
// Event whose series.count grows, patched at most once per patch interval,
// so a hot loop cannot flood the apiserver.
#include <attune/kube/client.hpp>

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <list>
#include <string>
#include <unordered_map>

namespace attune::kube {

// Not aggregates on purpose (GCC 12 coroutine bug, see client.hpp).
struct object_reference {
    object_reference() = default;
    object_reference(std::string api_version_, std::string kind_, std::string ns_, std::string name_, std::string uid_)
        : api_version(std::move(api_version_)), kind(std::move(kind_)), ns(std::move(ns_)), name(std::move(name_)),
          uid(std::move(uid_)) {}
    std::string api_version;
    std::string kind;
    std::string ns;
    std::string name;
    std::string uid;
};

struct k8s_event {
    k8s_event() = default;
    k8s_event(object_reference regarding_, std::string type_, std::string reason_, std::string action_,
              std::string note_)
        : regarding(std::move(regarding_)), type(std::move(type_)), reason(std::move(reason_)),
          action(std::move(action_)), note(std::move(note_)) {}
    object_reference regarding;
    std::string type = "Normal";  // Normal | Warning
    std::string reason;           // CamelCase, e.g. Resized
    std::string action;           // e.g. Resize
    std::string note;             // human text, truncated to 1 KiB
};

// The pure de-duplication state.
class event_series_tracker {
public:
    using clock = std::chrono::steady_clock;

    struct options {
        options() = default;
        options(std::chrono::seconds window, std::chrono::seconds patch_every, std::size_t max)
            : series_window(window), patch_interval(patch_every), max_tracked(max) {}
        std::chrono::seconds series_window{6 * 60};  // a repeat after this starts a new Event
        std::chrono::seconds patch_interval{30};
        std::size_t max_tracked = 4096;  // least recently seen series are forgotten beyond this
    };

    enum class verdict { create, patch, suppress };
    struct decision {
        verdict what = verdict::create;
        std::string key;
        std::string event_name;  // for patch
        int count = 1;
    };

    explicit event_series_tracker(options o) : opts_(o) {}

    decision observe(const k8s_event& ev, clock::time_point now);
    void created(const std::string& key, std::string event_name);
    void patched(const std::string& key, clock::time_point now);
    void forget(const std::string& key);
    // Series with suppressed repeats whose patch interval has passed.
    std::vector<decision> due(clock::time_point now) const;
    std::size_t size() const noexcept { return series_.size(); }
    bool contains(const std::string& key) const { return series_.contains(key); }

    static std::string key_of(const k8s_event& ev);

private:
    struct series {
        std::string event_name;
        int count = 1;
        int patched_count = 1;
        clock::time_point first_seen, last_seen, last_patch;
        std::list<std::string>::iterator lru;
    };
    options opts_;
    std::unordered_map<std::string, series> series_;
    std::list<std::string> lru_;  // front: most recently seen
};

class event_recorder {
public:
    using wall_clock = std::function<std::chrono::system_clock::time_point()>;

    event_recorder(client& c, std::string reporting_controller, std::string reporting_instance,
                   event_series_tracker::options opts = {}, wall_clock now = nullptr);

    // Never throws on API errors: Events are best effort (logged and counted).
    boost::asio::awaitable<void> emit(k8s_event ev);
    // Patches series whose counts moved since their last patch.
    boost::asio::awaitable<void> flush();

    const event_series_tracker& tracker() const noexcept { return tracker_; }

private:
    boost::asio::awaitable<bool> create(const std::string& key, const k8s_event& ev);
    boost::asio::awaitable<void> patch_series(const event_series_tracker::decision& d, const std::string& ns);

    client& client_;
    std::string controller_, instance_;
    event_series_tracker tracker_;
    wall_clock now_;
    std::unordered_map<std::string, k8s_event> originals_;  // for re-create after a 404 and flush
    unsigned long long seq_ = 0;
};

}  // namespace attune::kube
