#include "feature_leader_election.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <spdlog/spdlog.h>

namespace attune::manager {
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {
constexpr auto kLeaseReleaseWait = 5s;  // part of the shutdown deadline, for the lease release
}

std::string lease_namespace(const ManagerOptions& opts) {
    if (!opts.leader_election_namespace.empty()) return opts.leader_election_namespace;
    auto ns = pod_namespace();
    return ns.empty() ? "default" : ns;
}

LeaderElectionFeature::LeaderElectionFeature(ManagerContext& ctx, std::function<void()> on_started,
                                             std::function<void()> on_lost)
    : ctx_(ctx) {
    kube::LeaderElectionConfig lc;
    lc.ns = lease_namespace(ctx_.opts);
    lc.name = ctx_.opts.leader_election_id;
    lc.identity = ctx_.identity;
    elector_ = std::make_unique<kube::LeaderElector>(ctx_.client, lc);
    // Every write (status, Events, and the executor's) is fenced on
    // the lease: none leaves once the renew deadline passed without a
    // renewal, retries included. The lease itself goes through
    // client::direct, which the fence does not see.
    ctx_.client.set_write_fence(
        [this](std::chrono::steady_clock::time_point now) { return elector_->is_leader_at(now); });
    elector_->on_started_leading(std::move(on_started));
    elector_->on_stopped_leading([this, on_lost = std::move(on_lost)] {
        if (ctx_.stopping) return;  // our own release at shutdown
        spdlog::error("lost the leader lease; exiting so that another replica takes over identity={}",
                      ctx_.identity);
        on_lost();
    });
}

void LeaderElectionFeature::start() {
    ctx_.spawn("leader-election", [this]() -> asio::awaitable<void> {
        co_await elector_->run();
        done_ = true;
    });
}

asio::awaitable<void> LeaderElectionFeature::release() {
    elector_->stop();
    asio::steady_timer t(ctx_.io);
    const auto until = std::chrono::steady_clock::now() + kLeaseReleaseWait;
    while (!done_ && std::chrono::steady_clock::now() < until) {
        t.expires_after(50ms);
        co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
    }
    if (!done_) spdlog::warn("lease not released in time");
}

}  // namespace attune::manager
