#include <attune/kube/watch_fsm.hpp>

#include <algorithm>

namespace attune::kube {

watch_fsm::watch_fsm(options opts, random_source rnd)
    : opts_(opts), rnd_(std::move(rnd)), backoff_(opts.backoff) {}

watch_fsm::step watch_fsm::next() {
    if (pending_wait_.count() > 0) {
        auto d = pending_wait_;
        pending_wait_ = std::chrono::milliseconds(0);
        return wait_step{d};
    }
    switch (phase_) {
        case phase::empty:
            phase_ = phase::listing;
            continue_.clear();
            return list_step{"", opts_.page_size};
        case phase::listing:
            return list_step{continue_, opts_.page_size};
        case phase::watching: {
            const double r = std::clamp(rnd_ ? rnd_() : 0.0, 0.0, 0.999);
            const auto base = std::max<long long>(opts_.watch_timeout_base.count(), 1);
            return watch_step{rv_, base + static_cast<long long>(static_cast<double>(base) * r)};
        }
    }
    return list_step{"", opts_.page_size};
}

bool watch_fsm::on_list_page(std::string_view list_rv, std::string_view continue_token) {
    if (!continue_token.empty()) {
        continue_ = std::string(continue_token);
        return false;
    }
    continue_.clear();
    rv_ = std::string(list_rv);
    phase_ = phase::watching;
    backoff_.reset();
    return true;
}

void watch_fsm::on_list_failed(bool gone, std::chrono::milliseconds at_least) {
    // Either way the pages gathered so far are discarded: a list is one snapshot.
    if (gone) ++relists_;
    phase_ = phase::empty;
    continue_.clear();
    pending_wait_ = std::max(backoff_.next(rnd_), at_least);
}

void watch_fsm::on_watch_started() { progressed_ = false; }

watch_fsm::event_action watch_fsm::on_event(std::string_view type, std::string_view rv, bool is_gone_error) {
    if (type == "ERROR") {
        if (is_gone_error) {
            relist();
            return event_action::relist;
        }
        fail();
        return event_action::restart;
    }
    // The resume point only ever comes from the server, never from arithmetic.
    if (!rv.empty()) rv_ = std::string(rv);
    progressed_ = true;
    backoff_.reset();
    return type == "BOOKMARK" ? event_action::skip : event_action::apply;
}

void watch_fsm::on_watch_ended(end_reason why, std::chrono::milliseconds at_least) {
    switch (why) {
        case end_reason::gone: relist(); break;
        case end_reason::failed: fail(at_least); break;
        case end_reason::closed:
            // A server-side timeout after progress: resume at once. A stream
            // that closes without delivering anything is treated as a failure
            // so a misbehaving server can't spin us in a hot loop.
            if (!progressed_) fail();
            break;
    }
}

void watch_fsm::relist() {
    ++relists_;
    phase_ = phase::empty;
    rv_.clear();
    continue_.clear();
    // The first relist after progress is immediate (compaction is routine);
    // back-to-back relists without progress back off.
    const bool first = backoff_.attempts() == 0;
    const auto d = backoff_.next(rnd_);
    pending_wait_ = first ? std::chrono::milliseconds(0) : d;
}

void watch_fsm::fail(std::chrono::milliseconds at_least) { pending_wait_ = std::max(backoff_.next(rnd_), at_least); }

}  // namespace attune::kube
