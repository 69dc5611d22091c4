#pragma once
// The reflector as a pure state machine (kube-rs watcher style):
//
//   Empty --list--> Listing(continue) --last page--> Watching(rv)
//     ^                                                  |
//     +---- Relist on 410 (ERROR event or HTTP 410) -----+
//
// The driver asks next() what to do, does it, and reports back. The machine
// owns the resume point (opaque resourceVersion, only ever copied from the
// server), the jittered watch timeout and the reconnect backoff.
#include <attune/kube/backoff.hpp>

#include <chrono>
#include <string>
#include <string_view>
#include <variant>

namespace attune::kube {

class watch_fsm {
public:
    struct options {
        long long page_size = 500;
        // Each watch asks for timeoutSeconds in [base, 2*base) so that many
        // clients don't reconnect in lockstep.
        std::chrono::seconds watch_timeout_base{300};
        backoff_policy backoff{std::chrono::milliseconds(800), 2.0, std::chrono::milliseconds(30'000), 0.2};
    };

    struct list_step {
        std::string continue_token;  // "" for the first page
        long long limit = 0;
    };
    struct watch_step {
        std::string resource_version;
        long long timeout_seconds = 0;
    };
    struct wait_step {
        std::chrono::milliseconds delay{0};
    };
    using step = std::variant<list_step, watch_step, wait_step>;

    enum class phase { empty, listing, watching };

    // What the driver does with a watch event.
    enum class event_action {
        apply,    // apply the object to the cache (rv already recorded)
        skip,     // bookmark: nothing to apply
        relist,   // 410: stop reading, the next step is a list
        restart,  // other ERROR: stop reading, back off, watch again from rv
    };

    // Why a watch stream ended.
    enum class end_reason {
        closed,      // clean EOF (server timeout)
        failed,      // transport failure, decode failure, non-410 HTTP error
        gone,        // HTTP 410
    };

    watch_fsm(options opts, random_source rnd);

    step next();

    // A list page arrived. Returns true when it was the last page: the driver
    // then replaces its cache with everything accumulated since the first page.
    bool on_list_page(std::string_view list_resource_version, std::string_view continue_token);
    // The list failed; `gone` when the continue token expired (410).
    // `at_least` is the server's Retry-After, honoured over a shorter backoff.
    void on_list_failed(bool gone, std::chrono::milliseconds at_least = std::chrono::milliseconds(0));
    // The stream is open.
    void on_watch_started();
    event_action on_event(std::string_view type, std::string_view resource_version, bool is_gone_error);
    void on_watch_ended(end_reason why, std::chrono::milliseconds at_least = std::chrono::milliseconds(0));

    phase current_phase() const noexcept { return phase_; }
    const std::string& resource_version() const noexcept { return rv_; }
    unsigned relists() const noexcept { return relists_; }

private:
    void relist();
    void fail(std::chrono::milliseconds at_least = std::chrono::milliseconds(0));

    options opts_;
    random_source rnd_;
    backoff_state backoff_;
    phase phase_ = phase::empty;
    std::string rv_;
    std::string continue_;
    std::chrono::milliseconds pending_wait_{0};
    bool progressed_ = false;  // the current watch delivered something
    unsigned relists_ = 0;
};

}  // namespace attune::kube
