#pragma once
// The informers and their caches: defines every informer of the catalog,
// fences requests to the watched namespaces, needs the ones the controller
// and the resize executor read, starts them, and tells when all have listed
// (readiness, and the gate in front of leader election and the workers).
#include "manager_context.hpp"

#include <attune/policy/cache_views.hpp>

#include <boost/asio/steady_timer.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace attune::manager {

class InformersFeature {
public:
    // Defines the catalog's informers; nothing runs yet.
    explicit InformersFeature(ManagerContext& ctx);

    // --watch-namespaces: no request (read or write) may name another
    // namespace than the watched ones and `also_allowed` (the Lease's, the
    // webhook Secret's). The caches hold nothing else, so nothing should
    // try; this makes it so by construction, and a bug shows as one refused
    // request in the log instead of a 403 from an apiserver that never
    // granted it. Does nothing cluster-wide.
    void fence_namespaces(std::vector<std::string> also_allowed);

    // Needs what the recommendations and the resize executor read, and
    // --start-informers; returns the caches the controller reads. `vpa_synced`
    // answers for the VPA informer, which is not in the registry.
    policy::CacheViews need_feature_caches(std::function<bool()> vpa_synced);

    // Spawns every needed informer.
    void start();
    // Returns once every needed informer has listed, or at shutdown.
    boost::asio::awaitable<void> wait_for_sync();
    // wait_for_sync() saw every needed informer listed.
    bool synced() const noexcept { return ready_; }
    // Empty once synced, else the /readyz body naming what has not listed.
    std::string not_ready_reason() const;
    void stop();

private:
    bool cache_synced(std::string_view what) const;

    ManagerContext& ctx_;
    boost::asio::steady_timer sync_wait_;
    std::function<bool()> vpa_synced_;
    bool ready_ = false;
};

}  // namespace attune::manager
