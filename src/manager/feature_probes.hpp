#pragma once
// The HTTP routes: /metrics, /healthz and /readyz on --metrics-bind-address,
// and /healthz and /readyz alone on --health-probe-bind-address when set.
#include "manager_context.hpp"
#include "probe_server.hpp"

#include <functional>
#include <memory>
#include <string>

namespace attune::manager {

class probes_feature {
public:
    // `not_ready` answers /readyz: empty when ready, else the 503 body.
    probes_feature(manager_context& ctx, std::function<std::string()> not_ready);

    // Throws std::system_error when an address cannot be bound.
    void listen();
    // Spawns the metrics server; the health server is started by start_health().
    void start_metrics();
    void start_health();
    void stop();

private:
    probe_response serve(std::string_view target, bool with_metrics) const;

    manager_context& ctx_;
    std::function<std::string()> not_ready_;
    std::unique_ptr<probe_server> metrics_server_, health_server_;
};

}  // namespace attune::manager
