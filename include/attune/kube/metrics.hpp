#pragma once
// Every runtime metric, built once against one registry. Labels are
// low-cardinality by construction: verb, status code class, resource label,
// event type, reason keywords; never names or uids, and namespaces only
// where the operator listed them (--watch-namespaces).
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <memory>
#include <string>

namespace attune::kube {

struct KubeMetrics {
    explicit KubeMetrics(prometheus::Registry& registry);

    // A private registry, for tests and tools that do not export metrics.
    static std::shared_ptr<KubeMetrics> standalone();

    prometheus::Family<prometheus::Counter>& requests;             // {verb, code}
    prometheus::Family<prometheus::Histogram>& request_duration;   // {verb}
    prometheus::Family<prometheus::Counter>& retries;              // {reason}
    prometheus::Histogram& rate_limiter_wait;
    prometheus::Gauge& requests_inflight;
    prometheus::Gauge& requests_queued;
    prometheus::Gauge& request_queue_capacity;
    prometheus::Counter& request_queue_rejected;
    prometheus::Family<prometheus::Counter>& watch_events;         // {resource, type}
    prometheus::Family<prometheus::Counter>& watch_restarts;       // {resource, reason}
    prometheus::Family<prometheus::Counter>& relists;              // {resource}
    prometheus::Family<prometheus::Gauge>& informer_objects;       // {resource}
    // {resource, namespace}: one series per list/watch stream; the namespace
    // is "" cluster-wide, else one of --watch-namespaces (bounded by the flag).
    prometheus::Family<prometheus::Gauge>& informer_synced;
    prometheus::Family<prometheus::Gauge>& informer_bytes;         // {resource}
    prometheus::Family<prometheus::Counter>& k8s_events;           // {result}
    prometheus::Gauge& leader;

    void count_request(std::string_view verb, unsigned code);  // code 0: transport failure
    void observe_duration(std::string_view verb, double seconds);

private:
    std::shared_ptr<prometheus::Registry> owned_;
};

}  // namespace attune::kube
