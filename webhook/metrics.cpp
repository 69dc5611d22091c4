#include <attune/webhook/metrics.hpp>

namespace attune::webhook {
using namespace prometheus;

WebhookMetrics::WebhookMetrics(Registry& r)
    : duration(BuildHistogram()
                   .Name("attune_webhook_duration_seconds")
                   .Help("time to answer one AdmissionReview, by operation (pod_create, workload_update)")
                   .Register(r)),
      admissions(
          BuildCounter()
              .Name("attune_webhook_admissions_total")
              .Help("AdmissionReviews answered, by operation and result (mutated, unchanged, skipped, malformed)")
              .Register(r)),
      validations(BuildCounter()
                      .Name("attune_webhook_validation_total")
                      .Help("policy admission decisions, by operation (validate_create, defaulting, ...) and result "
                            "(allowed, rejected)")
                      .Register(r)),
      skips(BuildCounter()
                .Name("attune_webhook_skips_total")
                .Help("AdmissionReviews left unchanged, by operation and reason")
                .Register(r)),
      startup_boosts(
          BuildCounter()
              .Name("attune_startup_boost_total")
              .Help("startup CPU boosts, by namespace, policy and action (applied at CREATE, restored, cleared)")
              .Register(r)),
      open_connections(BuildGauge()
                           .Name("attune_webhook_open_connections")
                           .Help("TLS connections the webhook server holds open")
                           .Register(r)
                           .Add({})),
      connection_events(BuildCounter()
                            .Name("attune_webhook_connection_events_total")
                            .Help("webhook server connection events (opened, handshake_failed, body_too_large, ...)")
                            .Register(r)),
      certificate_not_after(BuildGauge()
                                .Name("attune_webhook_certificate_expiry_timestamp_seconds")
                                .Help("notAfter of the served certificate and of its CA, unix seconds")
                                .Register(r)),
      certificate_rotations(BuildCounter()
                                .Name("attune_webhook_certificate_rotations_total")
                                .Help("certificates this replica generated, by kind")
                                .Register(r)),
      certificate_reloads(BuildCounter()
                              .Name("attune_webhook_certificate_reloads_total")
                              .Help("times the webhook server started serving a new certificate")
                              .Register(r)
                              .Add({})),
      certificate_sync_errors(BuildCounter()
                                  .Name("attune_webhook_certificate_sync_errors_total")
                                  .Help("failed certificate syncs, by stage (secret, mwc, vwc, generate)")
                                  .Register(r)) {}

std::shared_ptr<WebhookMetrics> WebhookMetrics::standalone() {
    auto reg = std::make_shared<Registry>();
    auto m = std::make_shared<WebhookMetrics>(*reg);
    m->owned_ = std::move(reg);
    return m;
}

std::string_view to_string(http::ServerEvent e) noexcept {
    switch (e) {
        case http::ServerEvent::ConnectionOpened: return "opened";
        case http::ServerEvent::ConnectionClosed: return "closed";
        case http::ServerEvent::HandshakeFailed: return "handshake_failed";
        case http::ServerEvent::BodyTooLarge: return "body_too_large";
        case http::ServerEvent::BadRequest: return "bad_request";
        case http::ServerEvent::ReadTimeout: return "read_timeout";
        case http::ServerEvent::AtCapacity: return "at_capacity";
        case http::ServerEvent::TooManyRequests: return "too_many_requests";
        case http::ServerEvent::UnsupportedMediaType: return "unsupported_media_type";
    }
    return "unknown";
}

void WebhookMetrics::on_server_event(http::ServerEvent e) {
    if (e == http::ServerEvent::ConnectionOpened) open_connections.Increment();
    if (e == http::ServerEvent::ConnectionClosed) open_connections.Decrement();
    connection_events.Add({{"event", std::string(to_string(e))}}).Increment();
}

}  // namespace attune::webhook
