#include "attune/core/resize/resize_report.hpp"

namespace attune::core {
namespace {

ResourceRequirements cpu_memory(const ResourceRequirements& rr) {
    ResourceRequirements out;
    for (std::string_view r : {kCpu, kMemory}) {
        if (const Quantity* q = find(rr.requests, r)) out.requests.emplace(std::string(r), *q);
        if (const Quantity* q = find(rr.limits, r)) out.limits.emplace(std::string(r), *q);
    }
    return out;
}

void collect(const std::vector<Container>& planned, const Pod& live, bool sidecars_only,
             std::vector<ContainerChange>& out) {
    for (const auto& pc : planned) {
        if (sidecars_only && !pc.is_native_sidecar()) continue;
        const Container* lc = live.find_container(pc.name);
        if (!lc) continue;
        auto from = cpu_memory(lc->resources);
        auto to = cpu_memory(pc.resources);
        if (const auto r = changed_resources(from, to))
            out.push_back({pc.name, std::move(from), std::move(to), *r});
    }
}

}  // namespace

std::vector<ContainerChange> container_changes(const Pod& live, const Pod& planned) {
    std::vector<ContainerChange> out;
    collect(planned.containers, live, false, out);
    collect(planned.init_containers, live, true, out);
    return out;
}

std::vector<ContainerChange> target_changes(const Pod& live, std::span<const ContainerTarget> targets,
                                            ControlledValues controlled_values) {
    Pod planned = live;
    for (const auto& t : targets)
        if (Container* c = planned.find_container(t.name))
            c->resources = apply_target(c->resources, t.resources, controlled_values);
    return container_changes(live, planned);
}

std::vector<HistoryEntry> history_entries(std::span<const ContainerChange> changes, std::string_view workload,
                                          HistoryMethod method, HistoryResult result, std::string_view reason,
                                          Timestamp now) {
    std::vector<HistoryEntry> out;
    out.reserve(changes.size());
    for (const auto& c : changes) {
        HistoryEntry e;
        e.timestamp = now;
        e.workload = std::string(workload);
        e.container = c.container;
        e.resource = c.resource;
        e.from = describe_resources(c.from, c.resource);
        e.to = describe_resources(c.to, c.resource);
        e.method = method;
        e.result = result;
        e.reason = std::string(reason);
        out.push_back(std::move(e));
    }
    return out;
}

std::string describe_changes(std::span<const ContainerChange> changes, NumberStyle style) {
    std::string s;
    for (const auto& c : changes) {
        std::string parts;
        for (auto [r, name] : {std::pair{HistoryResource::Cpu, "cpu"}, std::pair{HistoryResource::Memory, "memory"}}) {
            if (c.resource != r && c.resource != HistoryResource::CpuAndMemory) continue;
            parts += (parts.empty() ? "" : ", ") + std::string(name) + " " + describe_resources(c.from, r, style) +
                     " -> " + describe_resources(c.to, r, style);
        }
        s += (s.empty() ? "" : "; ") + c.container + " " + parts;
    }
    return s;
}

}  // namespace attune::core
