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
struct ObjectReference {
    ObjectReference() = default;
    ObjectReference(std::string api_version, std::string kind, std::string ns, std::string name, std::string uid)
        : api_version(std::move(api_version)), kind(std::move(kind)), ns(std::move(ns)), name(std::move(name)),
          uid(std::move(uid)) {}
    std::string api_version;
    std::string kind;
    std::string ns;
    std::string name;
    std::string uid;
};

struct K8sEvent {
    K8sEvent() = default;
    K8sEvent(ObjectReference regarding, std::string type, std::string reason, std::string action, std::string note)
        : regarding(std::move(regarding)), type(std::move(type)), reason(std::move(reason)), action(std::move(action)),
          note(std::move(note)) {}
    ObjectReference regarding;
    std::string type = "Normal";  // Normal | Warning
    std::string reason;           // CamelCase, e.g. Resized
    std::string action;           // e.g. Resize
    std::string note;             // human text, truncated to 1 KiB
};

// The pure de-duplication state.
class EventSeriesTracker {
public:
    using Clock = std::chrono::steady_clock;

    struct Options {
        Options() = default;
        Options(std::chrono::seconds window, std::chrono::seconds patch_every, std::size_t max)
            : series_window(window), patch_interval(patch_every), max_tracked(max) {}
        std::chrono::seconds series_window{6 * 60};  // a repeat after this starts a new Event
        std::chrono::seconds patch_interval{30};
        std::size_t max_tracked = 4096;  // least recently seen series are forgotten beyond this
    };

    enum class Verdict { Create, Patch, Suppress };
    struct Decision {
        Verdict what = Verdict::Create;
        std::string key;
        std::string event_name;  // for patch
        int count = 1;
    };

    explicit EventSeriesTracker(Options o) : opts_(o) {}

    Decision observe(const K8sEvent& ev, Clock::time_point now);
    void created(const std::string& key, std::string event_name);
    void patched(const std::string& key, Clock::time_point now);
    void forget(const std::string& key);
    // Series with suppressed repeats whose patch interval has passed.
    std::vector<Decision> due(Clock::time_point now) const;
    std::size_t size() const noexcept { return series_.size(); }
    bool contains(const std::string& key) const { return series_.contains(key); }

    static std::string key_of(const K8sEvent& ev);

private:
    struct Series {
        std::string event_name;
        int count = 1;
        int patched_count = 1;
        Clock::time_point first_seen, last_seen, last_patch;
        std::list<std::string>::iterator lru;
    };
    Options opts_;
    std::unordered_map<std::string, Series> series_;
    std::list<std::string> lru_;  // front: most recently seen
};

class EventRecorder {
public:
    using WallClock = std::function<std::chrono::system_clock::time_point()>;

    EventRecorder(Client& c, std::string reporting_controller, std::string reporting_instance,
                  EventSeriesTracker::Options opts = {}, WallClock now = nullptr);

    // Never throws on API errors: Events are best effort (logged and counted).
    boost::asio::awaitable<void> emit(K8sEvent ev);
    // Patches series whose counts moved since their last patch.
    boost::asio::awaitable<void> flush();

    const EventSeriesTracker& tracker() const noexcept { return tracker_; }

private:
    boost::asio::awaitable<bool> create(const std::string& key, const K8sEvent& ev);
    boost::asio::awaitable<void> patch_series(const EventSeriesTracker::Decision& d, const std::string& ns);

    Client& client_;
    std::string controller_, instance_;
    EventSeriesTracker tracker_;
    WallClock now_;
    std::unordered_map<std::string, K8sEvent> originals_;  // for re-create after a 404 and flush
    unsigned long long seq_ = 0;
};

}  // namespace attune::kube
