#pragma once
// The reflector as a pure state machine (kube-rs watcher style):
//
//   Empty --watch-list--> Streaming(initial events) --end bookmark--> Watching(rv)
//   Empty --list--> Listing(continue) --last page------------------> Watching(rv)
//     ^                                                                  |
//     +---- Relist on 410 (ERROR event or HTTP 410), or an event that ---+
//           keeps failing to decode
//
// The driver asks next() what to do, does it, and reports back. The machine
// owns the resume point (opaque resourceVersion, only ever copied from the
// server), the jittered watch timeout and the reconnect backoff.
//
// Initial state comes from a WatchList (sendInitialEvents=true,
// resourceVersionMatch=NotOlderThan, ended by the k8s.io/initial-events-end
// bookmark) while the server serves it, else from a paged LIST. A relist
// after a 410 asks for any state at least as new as the last resourceVersion
// seen (NotOlderThan: served from the apiserver's watch cache) and falls back
// to a quorum read at "" only when that is refused too, as client-go does.
#include <attune/kube/backoff.hpp>

#include <chrono>
#include <string>
#include <string_view>
#include <variant>

namespace attune::kube {

class WatchFsm {
public:
    struct Options {
        long long page_size = 500;
        // Each watch asks for timeoutSeconds in [base, 2*base) so that many
        // clients don't reconnect in lockstep.
        std::chrono::seconds watch_timeout_base{300};
        // client-go's reflector backoff: 0.8 s doubling to 30 s, jitter 1.0,
        // so the first wait (a relist after a 410 included) is 0.8-1.6 s.
        BackoffPolicy backoff{std::chrono::milliseconds(800), 2.0, std::chrono::milliseconds(30'000), 1.0};
        // Try the streaming WatchList for the initial state.
        bool watch_list = true;
        // Consecutive decode failures at one resourceVersion that force a relist.
        unsigned decode_failures_before_relist = 3;
    };

    struct ListStep {
        std::string continue_token;  // "" for the first page
        long long limit = 0;
        // First page only: "" (quorum) or the last version seen, with NotOlderThan.
        std::string resource_version;
        std::string resource_version_match;
    };
    struct WatchStep {
        std::string resource_version;
        long long timeout_seconds = 0;
        // WatchList: the stream starts with the current state (resource_version_match NotOlderThan).
        bool send_initial_events = false;
        std::string resource_version_match;
    };
    struct WaitStep {
        std::chrono::milliseconds delay{0};
    };
    using Step = std::variant<ListStep, WatchStep, WaitStep>;

    enum class Phase { Empty, Streaming, Listing, Watching };

    // What the driver does with a watch event.
    enum class EventAction {
        Apply,    // apply the object to the cache (rv already recorded)
        Skip,     // bookmark: nothing to apply
        Synced,   // the WatchList's initial state is complete: drop what it did not mention
        Relist,   // 410: stop reading, the next step is a list
        Restart,  // other ERROR: stop reading, back off, watch again from rv
    };

    // Why a watch stream ended.
    enum class EndReason {
        Closed,  // clean EOF (server timeout)
        Failed,  // transport failure, non-410 HTTP error
        Gone,    // HTTP 410
    };

    WatchFsm(Options opts, RandomSource rnd);

    Step next();

    // A list page arrived. Returns true when it was the last page: the
    // driver then drops the cached objects the list did not mention.
    bool on_list_page(std::string_view list_resource_version, std::string_view continue_token);
    // The list failed; `gone` when the server refused the version (410):
    // the next list is a quorum read from the beginning.
    // `at_least` is the server's Retry-After, honoured over a shorter backoff.
    void on_list_failed(bool gone, std::chrono::milliseconds at_least = std::chrono::milliseconds(0));
    // The stream is open.
    void on_watch_started();
    // `initial_events_end`: a BOOKMARK carrying the k8s.io/initial-events-end annotation.
    EventAction on_event(std::string_view type, std::string_view resource_version, bool is_gone_error,
                         bool initial_events_end = false);
    void on_watch_ended(EndReason why, std::chrono::milliseconds at_least = std::chrono::milliseconds(0));
    // The server answered a WatchList request with a client error other than
    // 410/429: it does not serve WatchList. Lists from now on.
    void on_watch_list_refused();
    // A watch line did not decode. The stream is dropped; returns true when
    // this was the last straw (the same resume point failed too often) and
    // the next step is a relist, so the cache cannot stay stale behind it.
    bool on_decode_failed();

    Phase current_phase() const noexcept { return phase_; }
    const std::string& resource_version() const noexcept { return rv_; }
    unsigned relists() const noexcept { return relists_; }
    bool watch_list_enabled() const noexcept { return opts_.watch_list; }

private:
    void relist();
    void fail(std::chrono::milliseconds at_least = std::chrono::milliseconds(0));
    long long watch_timeout();

    Options opts_;
    RandomSource rnd_;
    BackoffState backoff_;
    Phase phase_ = Phase::Empty;
    std::string rv_;
    std::string relist_rv_;  // where a relist resumes (NotOlderThan); "" = quorum
    std::string continue_;
    std::chrono::milliseconds pending_wait_{0};
    bool progressed_ = false;  // the current watch delivered something
    unsigned relists_ = 0;
    std::string decode_failed_at_;
    unsigned decode_failures_ = 0;
};

}  // namespace attune::kube
