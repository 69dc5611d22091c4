#pragma once
// Leader election (--leader-elect): once the informers synced, the Lease is
// campaigned for; leading starts the workers, and losing it ends the process
// so that another replica takes over. Every write is fenced on the lease.
#include "manager_context.hpp"

#include <attune/kube/leader_election.hpp>

#include <functional>
#include <memory>
#include <string>

namespace attune::manager {

// The Lease's namespace: --leader-election-namespace, else the pod's own, else "default".
std::string lease_namespace(const ManagerOptions& opts);

class LeaderElectionFeature {
public:
    // `on_started` runs on becoming leader; `on_lost` when the lease is
    // lost other than by our own release at shutdown.
    LeaderElectionFeature(ManagerContext& ctx, std::function<void()> on_started, std::function<void()> on_lost);

    // Campaigns (and renews) until stop().
    void start();
    // Releases the lease, waiting for it a bounded time (part of the shutdown deadline).
    boost::asio::awaitable<void> release();

private:
    ManagerContext& ctx_;
    std::unique_ptr<kube::LeaderElector> elector_;
    bool done_ = false;
};

}  // namespace attune::manager
