#pragma once
// What every feature of attune-manager shares: the io_context, the flags,
// the one client, Event recorder, metrics and informer registry, the
// --watch-namespaces scope, the stopping flag and the one place long-lived
// tasks are spawned. Each feature (feature_*.hpp, listed in docs/manager.md,
// "The manager's wiring") takes it by reference; app.cpp owns it.
#include "manager_metrics.hpp"
#include "options.hpp"

#include <attune/kube/client.hpp>
#include <attune/kube/event_recorder.hpp>
#include <attune/kube/informer_registry.hpp>
#include <attune/kube/kubeconfig.hpp>
#include <attune/kube/supervise.hpp>
#include <attune/kube/watch_scope.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>

#include <functional>
#include <string>
#include <vector>

namespace attune::manager {

struct ManagerContext {
    ManagerContext(boost::asio::io_context& io, const ManagerOptions& opts, kube::RestConfig cfg);

    // Every long-lived task goes through supervise(): failures are logged,
    // counted and restarted at this one place.
    void spawn(std::string task, std::function<boost::asio::awaitable<void>()> body);
    // Stops restarting every task spawned so far (shutdown).
    void stop_supervisors();

    // glibc keeps freed heap pages mapped; after a list its transient
    // memory is free and trimming hands it back (bench/RESULTS.md). Several
    // informers finishing together cost one trim.
    void release_free_memory_soon();

    boost::asio::io_context& io;
    const ManagerOptions& opts;
    std::string identity;  // the leader lease holder and the Events' reporting instance
    ManagerMetrics metrics;
    kube::Client client;
    kube::EventRecorder events;
    kube::InformerRegistry informers{client};
    kube::WatchScope scope;  // --watch-namespaces; cluster-wide when empty
    bool stopping = false;

private:
    std::vector<kube::SupervisorHandle> supervisors_;
    bool trim_pending_ = false;
};

// The pod's own namespace from its service account mount, empty outside a pod.
std::string pod_namespace();
// "a,b,c".
std::string join(const std::vector<std::string>& v);

}  // namespace attune::manager
