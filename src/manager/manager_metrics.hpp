#pragma once
// The manager's one metrics struct: one registry, built once at startup,
// holding the runtime's and the controller's metrics. /metrics serialises it.
#include <attune/controller/executor/executor_metrics.hpp>
#include <attune/controller/metrics.hpp>
#include <attune/kube/metrics.hpp>
#include <attune/webhook/metrics.hpp>

#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <memory>
#include <string>

namespace attune::manager {

struct ManagerMetrics {
    std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();
    std::shared_ptr<kube::KubeMetrics> kube = std::make_shared<kube::KubeMetrics>(*registry);
    controller::ControllerMetrics controller{*registry};
    webhook::WebhookMetrics webhook{*registry};
    controller::ExecutorMetrics executor{*registry};

    std::string text() const { return prometheus::TextSerializer().Serialize(registry->Collect()); }
};

}  // namespace attune::manager
