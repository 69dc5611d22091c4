#include <attune/kube/watch_fsm.hpp>

#include <algorithm>

namespace attune::kube {

namespace {
constexpr std::string_view kNotOlderThan = "NotOlderThan";
}

WatchFsm::WatchFsm(Options opts, RandomSource rnd) : opts_(opts), rnd_(std::move(rnd)), backoff_(opts.backoff) {}

long long WatchFsm::watch_timeout() {
    const double r = std::clamp(rnd_ ? rnd_() : 0.0, 0.0, 0.999);
    const auto base = std::max<long long>(opts_.watch_timeout_base.count(), 1);
    return base + static_cast<long long>(static_cast<double>(base) * r);
}

WatchFsm::Step WatchFsm::next() {
    if (pending_wait_.count() > 0) {
        auto d = pending_wait_;
        pending_wait_ = std::chrono::milliseconds(0);
        return WaitStep{d};
    }
    switch (phase_) {
        case Phase::Empty: {
            continue_.clear();
            if (opts_.watch_list) {
                phase_ = Phase::Streaming;
                WatchStep w;
                w.resource_version = relist_rv_;
                w.timeout_seconds = watch_timeout();
                w.send_initial_events = true;
                w.resource_version_match = std::string(kNotOlderThan);
                return w;
            }
            phase_ = Phase::Listing;
            ListStep l{"", opts_.page_size, relist_rv_, relist_rv_.empty() ? "" : std::string(kNotOlderThan)};
            return l;
        }
        case Phase::Streaming:
            // A stream that ended before its initial state was complete starts over.
            phase_ = Phase::Empty;
            return next();
        case Phase::Listing:
            // resourceVersion must not be combined with continue.
            return ListStep{continue_, opts_.page_size, "", ""};
        case Phase::Watching: {
            WatchStep w;
            w.resource_version = rv_;
            w.timeout_seconds = watch_timeout();
            return w;
        }
    }
    return ListStep{"", opts_.page_size, "", ""};
}

bool WatchFsm::on_list_page(std::string_view list_rv, std::string_view continue_token) {
    if (!continue_token.empty()) {
        continue_ = std::string(continue_token);
        return false;
    }
    continue_.clear();
    rv_ = std::string(list_rv);
    relist_rv_.clear();
    phase_ = Phase::Watching;
    backoff_.reset();
    return true;
}

void WatchFsm::on_list_failed(bool gone, std::chrono::milliseconds at_least) {
    // Either way the list starts over: a list is one snapshot.
    if (gone) {
        ++relists_;
        relist_rv_.clear();  // the version was refused: quorum read
    }
    phase_ = Phase::Empty;
    continue_.clear();
    pending_wait_ = std::max(backoff_.next(rnd_), at_least);
}

void WatchFsm::on_watch_started() { progressed_ = false; }

WatchFsm::EventAction WatchFsm::on_event(std::string_view type, std::string_view rv, bool is_gone_error,
                                         bool initial_events_end) {
    if (type == "ERROR") {
        if (is_gone_error) {
            if (phase_ == Phase::Streaming) relist_rv_.clear();  // the WatchList's version was refused
            relist();
            return EventAction::Relist;
        }
        fail();
        return EventAction::Restart;
    }
    // The resume point only ever comes from the server, never from arithmetic.
    if (!rv.empty()) rv_ = std::string(rv);
    progressed_ = true;
    decode_failures_ = 0;
    if (type != "BOOKMARK") {
        if (phase_ != Phase::Streaming) backoff_.reset();
        return EventAction::Apply;
    }
    if (phase_ == Phase::Streaming && initial_events_end) {
        phase_ = Phase::Watching;
        relist_rv_.clear();
        backoff_.reset();
        return EventAction::Synced;
    }
    if (phase_ != Phase::Streaming) backoff_.reset();
    return EventAction::Skip;
}

void WatchFsm::on_watch_ended(EndReason why, std::chrono::milliseconds at_least) {
    switch (why) {
        case EndReason::Gone:
            if (phase_ == Phase::Streaming) relist_rv_.clear();
            relist();
            break;
        case EndReason::Failed: fail(at_least); break;
        case EndReason::Closed:
            // A server-side timeout after progress: resume at once. A stream
            // that closes without delivering anything is treated as a failure
            // so a misbehaving server can't spin us in a hot loop. A WatchList
            // cut short always waits: its initial state starts over.
            if (!progressed_ || phase_ == Phase::Streaming) fail(at_least);
            break;
    }
}

void WatchFsm::on_watch_list_refused() {
    opts_.watch_list = false;
    phase_ = Phase::Empty;
    pending_wait_ = std::chrono::milliseconds(0);
}

bool WatchFsm::on_decode_failed() {
    if (decode_failures_ > 0 && decode_failed_at_ == rv_) {
        ++decode_failures_;
    } else {
        decode_failed_at_ = rv_;
        decode_failures_ = 1;
    }
    if (decode_failures_ >= std::max(opts_.decode_failures_before_relist, 1u)) {
        decode_failures_ = 0;
        relist();
        return true;
    }
    fail();
    return false;
}

void WatchFsm::relist() {
    ++relists_;
    // Resume at the last version seen; the list (or WatchList) says
    // NotOlderThan, so the apiserver can answer from its watch cache.
    if (phase_ == Phase::Watching) relist_rv_ = rv_;
    phase_ = Phase::Empty;
    continue_.clear();
    // client-go waits 0.8-1.6 s before it relists; so do we, and back-to-back
    // relists without progress back off further.
    pending_wait_ = backoff_.next(rnd_);
}

void WatchFsm::fail(std::chrono::milliseconds at_least) { pending_wait_ = std::max(backoff_.next(rnd_), at_least); }

}  // namespace attune::kube
