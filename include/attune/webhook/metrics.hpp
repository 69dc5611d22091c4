#pragma once
// The webhook's metrics, built once against the manager's registry.
// attune_webhook_duration_seconds{operation}, attune_webhook_validation_total
// and attune_startup_boost_total are the names docs/api.md#metrics lists; the others are Attune's own. Labels are
// keywords, or namespace and policy (bounded by the AttunePolicies): the
// boost counter is {namespace, policy, action}, not the per-workload
// {namespace, workload, action}, whose series grow with the cluster.
#include <attune/http/https_server.hpp>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <memory>
#include <string_view>

namespace attune::webhook {

struct WebhookMetrics {
    explicit WebhookMetrics(prometheus::Registry& registry);
    static std::shared_ptr<WebhookMetrics> standalone();  // tests and the bench

    prometheus::Family<prometheus::Histogram>& duration;      // {operation}: pod_create | workload_update
    prometheus::Family<prometheus::Counter>& admissions;      // {operation, result}: mutated | unchanged | skipped | malformed
    // The policy webhooks' decisions, as the Go Attune counts them:
    // {operation (validation_operation), result}: allowed | rejected
    prometheus::Family<prometheus::Counter>& validations;
    prometheus::Family<prometheus::Counter>& skips;           // {operation, reason}
    prometheus::Family<prometheus::Counter>& startup_boosts;  // {namespace, policy, action}
    prometheus::Gauge& open_connections;
    prometheus::Family<prometheus::Counter>& connection_events;  // {event}
    prometheus::Family<prometheus::Gauge>& certificate_not_after;  // {certificate}: serving | ca, unix seconds
    prometheus::Family<prometheus::Counter>& certificate_rotations;  // {kind}: ca_created | ca_staged | ca_promoted | serving_issued
    prometheus::Counter& certificate_reloads;                       // the server took a new serving certificate
    prometheus::Family<prometheus::Counter>& certificate_sync_errors;  // {stage}: secret | mwc | vwc | generate

    // http::ServerOptions::on_event
    void on_server_event(http::ServerEvent e);

private:
    std::shared_ptr<prometheus::Registry> owned_;
};

std::string_view to_string(http::ServerEvent e) noexcept;

}  // namespace attune::webhook
