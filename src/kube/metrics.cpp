#include <attune/kube/metrics.hpp>

namespace attune::kube {
using namespace prometheus;

namespace {
Histogram::BucketBoundaries latency_buckets() {
    return {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
}
}  // namespace

KubeMetrics::KubeMetrics(Registry& r)
    : requests(BuildCounter()
                   .Name("attune_kube_requests_total")
                   .Help("apiserver requests by verb and HTTP code")
                   .Register(r)),
      request_duration(BuildHistogram()
                           .Name("attune_kube_request_duration_seconds")
                           .Help("apiserver request latency including retries")
                           .Register(r)),
      retries(BuildCounter().Name("attune_kube_request_retries_total").Help("request retries by cause").Register(r)),
      rate_limiter_wait(BuildHistogram()
                            .Name("attune_kube_rate_limiter_wait_seconds")
                            .Help("time spent waiting for the client token bucket")
                            .Register(r)
                            .Add({}, latency_buckets())),
      requests_inflight(BuildGauge()
                            .Name("attune_kube_requests_inflight")
                            .Help("requests holding a slot of the bounded request queue")
                            .Register(r)
                            .Add({})),
      requests_queued(BuildGauge()
                          .Name("attune_kube_requests_queued")
                          .Help("requests waiting for a slot (backpressure)")
                          .Register(r)
                          .Add({})),
      request_queue_capacity(BuildGauge()
                                 .Name("attune_kube_request_queue_capacity")
                                 .Help("maximum number of waiting requests before rejection")
                                 .Register(r)
                                 .Add({})),
      request_queue_rejected(BuildCounter()
                                 .Name("attune_kube_request_queue_rejected_total")
                                 .Help("requests rejected because the queue was full")
                                 .Register(r)
                                 .Add({})),
      watch_events(BuildCounter().Name("attune_kube_watch_events_total").Help("watch events by type").Register(r)),
      watch_restarts(
          BuildCounter().Name("attune_kube_watch_restarts_total").Help("watch reconnects by cause").Register(r)),
      relists(BuildCounter().Name("attune_kube_relists_total").Help("full relists (410 or start)").Register(r)),
      informer_objects(
          BuildGauge().Name("attune_kube_informer_objects").Help("objects in the informer cache").Register(r)),
      informer_synced(BuildGauge()
                          .Name("attune_kube_informer_synced")
                          .Help("1 once the list/watch stream of this resource in this namespace (\"\": cluster-wide) "
                                "holds its initial state")
                          .Register(r)),
      informer_bytes(BuildGauge()
                         .Name("attune_kube_informer_cache_bytes")
                         .Help("bytes of transformed object text held by the informer cache")
                         .Register(r)),
      k8s_events(BuildCounter().Name("attune_kube_events_written_total").Help("Kubernetes Events written").Register(r)),
      leader(BuildGauge().Name("attune_leader").Help("1 while this replica holds the lease").Register(r).Add({})) {}

std::shared_ptr<KubeMetrics> KubeMetrics::standalone() {
    auto reg = std::make_shared<Registry>();
    auto m = std::make_shared<KubeMetrics>(*reg);
    m->owned_ = std::move(reg);
    return m;
}

void KubeMetrics::count_request(std::string_view verb, unsigned code) {
    requests.Add({{"verb", std::string(verb)}, {"code", code == 0 ? std::string("error") : std::to_string(code)}})
        .Increment();
}

void KubeMetrics::observe_duration(std::string_view verb, double seconds) {
    request_duration.Add({{"verb", std::string(verb)}}, latency_buckets()).Observe(seconds);
}

}  // namespace attune::kube
