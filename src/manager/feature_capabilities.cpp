#include "feature_capabilities.hpp"

#include <attune/controller/controller.hpp>
#include <attune/controller/executor/resize_executor.hpp>
#include <attune/core/model/capabilities.hpp>
#include <attune/kube/discovery.hpp>

#include <spdlog/spdlog.h>

namespace attune::manager {

boost::asio::awaitable<void> probe_capabilities(ManagerContext& ctx, controller::Controller& controller,
                                                controller::ResizeExecutor& executor) {
    try {
        const auto probes = co_await kube::probe_all(ctx.client);
        auto decided = core::decide_capabilities(probes.version, probes.resources, probes.openapi, probes.nodes);
        const bool probed = decided.ok();
        auto caps = probed ? decided.value() : core::safe_defaults();
        controller.set_capabilities(caps);
        executor.set_capabilities(caps);
        const auto& c = controller.capabilities();
        spdlog::info(
            "capabilities source={} git_version={} major={} minor={} pods_resize={} pod_level_resources_field={} "
            "in_place_pod_level_resources={} declared_features_reported={} hpa_scale_to_zero={} "
            "allow_in_place_memory_limit_decrease={} in_place_sidecar_resize={} "
            "scheduler_resize_preemption={} memory_backed_volume_resize={} exclusive_cpu_in_place={} "
            "decision_error=\"{}\" version_error=\"{}\" resources_error=\"{}\" openapi_error=\"{}\" "
            "nodes_error=\"{}\"",
            probed ? "probed" : "safe_defaults", c.git_version.empty() ? "unknown" : c.git_version, c.major,
            c.minor, c.pods_resize, c.pod_level_resources_field, c.in_place_pod_level_resources,
            c.declared_features_reported, c.hpa_scale_to_zero, c.allow_in_place_memory_limit_decrease, c.in_place_sidecar_resize,
            c.scheduler_resize_preemption,
            c.memory_backed_volume_resize, c.exclusive_cpu_in_place, probed ? "" : decided.error().message,
            probes.version.error, probes.resources.error, probes.openapi.error, probes.nodes.error);
    } catch (const std::exception& e) {
        ctx.metrics.controller.coroutine_restarts.Add({{"task", "capabilities"}}).Increment();
        controller.set_capabilities(core::safe_defaults());
        executor.set_capabilities(core::safe_defaults());
        spdlog::error("capabilities probe failed; using safe defaults error=\"{}\"", e.what());
    }
    // The OpenAPI documents were parsed whole (a few MB, once): hand it back.
    ctx.release_free_memory_soon();
}

}  // namespace attune::manager
