#include <attune/kube/leader_election.hpp>
#include <attune/kube/micro_time.hpp>

#include <attune/core/util/json_path.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include <spdlog/spdlog.h>

namespace attune::kube {
namespace json = boost::json;
namespace asio = boost::asio;

namespace {
json::value lease_body(const LeaderElectionConfig& cfg, const LeaseRecord& r, const std::string& rv) {
    json::object md{{"name", cfg.name}, {"namespace", cfg.ns}};
    if (!rv.empty()) md["resourceVersion"] = rv;  // optimistic concurrency: 409 if someone wrote first
    json::object spec{{"holderIdentity", r.holder},
                      {"leaseDurationSeconds", r.duration_seconds},
                      {"acquireTime", r.acquire_time},
                      {"renewTime", r.renew_time},
                      {"leaseTransitions", r.transitions}};
    return json::object{{"apiVersion", "coordination.k8s.io/v1"},
                        {"kind", "Lease"},
                        {"metadata", std::move(md)},
                        {"spec", std::move(spec)}};
}

bool same_record(const LeaseRecord& a, const LeaseRecord& b) {
    return a.holder == b.holder && a.renew_time == b.renew_time && a.resource_version == b.resource_version &&
           a.duration_seconds == b.duration_seconds;
}
}  // namespace

LeaseFsm::Action LeaseFsm::decide(const std::optional<LeaseRecord>& observed, Clock::time_point now) {
    if (!observed) {
        last_seen_.reset();
        return Action::Create;
    }
    if (!last_seen_ || !same_record(*last_seen_, *observed)) {
        last_seen_ = observed;
        last_seen_at_ = now;
    }
    if (observed->holder == cfg_.identity) return Action::Renew;
    if (observed->holder.empty()) return Action::Take;
    const auto duration = observed->duration_seconds > 0 ? std::chrono::seconds(observed->duration_seconds)
                                                          : cfg_.lease_duration;
    // The holder's timestamps are on its clock; only our observation counts.
    if (now >= last_seen_at_ + duration) return Action::Take;
    return Action::Wait;
}

void LeaseFsm::on_write(bool ok, Clock::time_point now) {
    if (ok) last_renew_ = now;
}

bool LeaseFsm::is_leader(Clock::time_point now) const {
    return last_renew_ && now - *last_renew_ < cfg_.renew_deadline;
}

std::optional<LeaseFsm::Clock::time_point> LeaseFsm::valid_until() const {
    if (!last_renew_) return std::nullopt;
    return *last_renew_ + cfg_.renew_deadline;
}

LeaseRecord lease_from_json(const json::value& lease) {
    LeaseRecord r;
    r.resource_version = std::string(core::string_at(lease, {"metadata", "resourceVersion"}));
    r.holder = std::string(core::string_at(lease, {"spec", "holderIdentity"}));
    r.acquire_time = std::string(core::string_at(lease, {"spec", "acquireTime"}));
    r.renew_time = std::string(core::string_at(lease, {"spec", "renewTime"}));
    r.duration_seconds = core::int_at(lease, {"spec", "leaseDurationSeconds"}).value_or(0);
    r.transitions = core::int_at(lease, {"spec", "leaseTransitions"}).value_or(0);
    return r;
}

LeaderElector::LeaderElector(Client& c, LeaderElectionConfig cfg, WallClock now, MonotonicClock mono)
    : client_(c), fsm_(std::move(cfg)),
      now_(now ? std::move(now) : WallClock([] { return std::chrono::system_clock::now(); })),
      mono_(mono ? std::move(mono) : MonotonicClock([] { return LeaseFsm::Clock::now(); })) {}

bool LeaderElector::is_leader_at(LeaseFsm::Clock::time_point now) const noexcept {
    return !stopping_ && fsm_.is_leader(now);
}

bool LeaderElector::is_leader() const noexcept { return is_leader_at(mono_()); }

FencingToken LeaderElector::fence() const noexcept {
    const auto until = fsm_.valid_until();
    return FencingToken(is_leader(), until.value_or(LeaseFsm::Clock::time_point{}));
}

std::chrono::milliseconds LeaderElector::budget(LeaseFsm::Clock::time_point until) const {
    // Rounded up: a budget truncated to the millisecond let the watchdog fire
    // just before `until`, the loop then still found itself leading and
    // waited out a whole further renew deadline before it noticed.
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - mono_());
    return std::max(left, std::chrono::milliseconds(100));
}

asio::awaitable<void> LeaderElector::step() {
    const auto& cfg = fsm_.config();
    // The whole step (read and write) must end before leadership would
    // lapse anyway; a campaigning manager allows itself one renew deadline.
    const auto started = mono_();
    const auto valid = fsm_.valid_until();
    const auto until = valid && *valid > started ? *valid : started + cfg.renew_deadline;
    auto got = co_await client_.direct(http::Verb::Get, object_path(resources::leases(), cfg.ns, cfg.name),
                                       std::nullopt, budget(until), "get");
    if (!got && !got.error().is_not_found()) {
        spdlog::warn("leader election read failed namespace={} name={} error=\"{}\"", cfg.ns, cfg.name,
                     got.error().describe());
        co_return;
    }
    std::optional<LeaseRecord> observed;
    if (got) observed = lease_from_json(got.value());
    current_ = observed;
    const auto act = fsm_.decide(observed, mono_());
    if (act == LeaseFsm::Action::Wait) co_return;
    json::value body = lease_body(cfg, next_record(act, observed), observed ? observed->resource_version : "");
    // Leadership counts from before the write went out: the server applied
    // it no earlier, so others time our lease from later still.
    const auto sent_at = mono_();
    auto res = co_await write(act == LeaseFsm::Action::Create, std::move(body), budget(until));
    if (!res) {
        // 409: someone else wrote first; we re-read next round.
        spdlog::info("leader election write lost namespace={} name={} identity={} error=\"{}\"", cfg.ns, cfg.name,
                     cfg.identity, res.error().describe());
        co_return;
    }
    current_ = lease_from_json(res.value());
    fsm_.on_write(true, sent_at);
}

LeaseRecord LeaderElector::next_record(LeaseFsm::Action act, const std::optional<LeaseRecord>& observed) const {
    const auto& cfg = fsm_.config();
    const auto stamp = format_micro_time(now_());
    LeaseRecord next;
    next.holder = cfg.identity;
    next.duration_seconds = cfg.lease_duration.count();
    next.renew_time = stamp;
    if (act == LeaseFsm::Action::Renew && observed) {
        next.acquire_time = observed->acquire_time.empty() ? stamp : observed->acquire_time;
        next.transitions = observed->transitions;
    } else {
        next.acquire_time = stamp;
        next.transitions = observed ? observed->transitions + 1 : 0;
    }
    return next;
}

asio::awaitable<Client::JsonResult> LeaderElector::write(bool create, json::value body,
                                                         std::chrono::milliseconds deadline) {
    const auto& cfg = fsm_.config();
    const std::string query = "?fieldManager=attune";
    Client::JsonResult r;
    if (create) {
        r = co_await client_.direct(http::Verb::Post, collection_path(resources::leases(), cfg.ns) + query,
                                    std::move(body), deadline, "create");
    } else {
        r = co_await client_.direct(http::Verb::Put, object_path(resources::leases(), cfg.ns, cfg.name) + query,
                                    std::move(body), deadline, "update");
    }
    co_return r;
}

asio::awaitable<void> LeaderElector::release() {
    if (!leading_ && !(current_ && current_->holder == fsm_.config().identity)) co_return;
    // Fence first: nothing of ours may be written once we give the lease up.
    stopping_ = true;
    const auto& cfg = fsm_.config();
    const auto stamp = format_micro_time(now_());
    LeaseRecord released;
    released.holder = "";
    released.duration_seconds = 1;
    released.acquire_time = current_ ? current_->acquire_time : stamp;
    released.renew_time = stamp;
    released.transitions = current_ ? current_->transitions : 0;
    json::value body = lease_body(cfg, released, current_ ? current_->resource_version : std::string());
    auto res = co_await write(false, std::move(body), cfg.renew_deadline);
    if (res) {
        spdlog::info("leader election released namespace={} name={} identity={}", cfg.ns, cfg.name, cfg.identity);
    } else {
        spdlog::warn("leader election release failed namespace={} name={} error=\"{}\"", cfg.ns, cfg.name,
                     res.error().describe());
    }
    if (leading_) {
        leading_ = false;
        client_.metrics().leader.Set(0);
        if (stopped_) stopped_();
    }
}

asio::awaitable<void> LeaderElector::run() {
    auto timer = std::make_shared<asio::steady_timer>(co_await asio::this_coro::executor);
    timer_ = timer;
    while (!stopping_) {
        co_await step();
        const bool now_leading = fsm_.is_leader(mono_());
        if (now_leading != leading_) {
            leading_ = now_leading;
            client_.metrics().leader.Set(leading_ ? 1 : 0);
            spdlog::info("leader election {} namespace={} name={} identity={}", leading_ ? "acquired" : "lost",
                         fsm_.config().ns, fsm_.config().name, fsm_.config().identity);
            if (leading_ && started_) started_();
            if (!leading_ && stopped_) stopped_();
        }
        if (stopping_) break;
        timer->expires_after(fsm_.config().retry_period);
        co_await timer->async_wait(asio::as_tuple(asio::use_awaitable));
    }
    co_await release();
}

void LeaderElector::stop() noexcept {
    stopping_ = true;
    if (timer_) static_cast<asio::steady_timer*>(timer_.get())->cancel();
}

}  // namespace attune::kube
