#include "attune/core/safety/original_values.hpp"

#include <boost/json.hpp>
#include <charconv>

namespace attune::core {
namespace {

std::string key(std::string_view resource, std::string_view kind, std::string_view container) {
    return std::string(kOriginalPrefix) + std::string(resource) + "-" + std::string(kind) + "." + std::string(container);
}

std::vector<std::string> split_commas(std::string_view s) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= s.size()) {
        const auto comma = s.find(',', start);
        const auto part = s.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        if (!part.empty()) out.emplace_back(part);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return out;
}

ContainerOriginal from_live(const Pod& live, const std::string& name) {
    ContainerOriginal o;
    if (const Container* c = live.find_container(name)) {
        for (std::string_view r : {kCpu, kMemory}) {
            if (const Quantity* q = find(c->resources.requests, r)) o.resources.requests.emplace(std::string(r), *q);
            if (const Quantity* q = find_positive(c->resources.limits, r)) o.resources.limits.emplace(std::string(r), *q);
        }
    }
    if (const ContainerStatus* s = live.find_status(name)) o.restart_count = s->restart_count;
    return o;
}

}  // namespace

OriginalValues capture_originals(const Pod& live, std::span<const std::string> containers) {
    OriginalValues out;
    auto existing = decode_originals(live.annotations);
    if (existing.ok() && existing.value()) out = *existing.value();
    for (const auto& name : containers)
        if (!out.containers.contains(name)) out.containers.emplace(name, from_live(live, name));
    return out;
}

boost::json::object tracking_patch(const OriginalValues& originals, std::string_view workload, Timestamp now) {
    boost::json::object ann;
    std::string names;
    for (const auto& [name, o] : originals.containers) {
        for (std::string_view r : {kCpu, kMemory}) {
            if (const Quantity* q = find(o.resources.requests, r)) ann[key(r, "request", name)] = q->to_string();
            if (const Quantity* q = find_positive(o.resources.limits, r)) ann[key(r, "limit", name)] = q->to_string();
        }
        ann[std::string(kOriginalRestartCountPrefix) + name] = std::to_string(o.restart_count);
        names += (names.empty() ? "" : ",") + name;
    }
    ann[kResizedAtAnnotation] = format_timestamp(now);
    ann[kResizedWorkloadAnnotation] = workload;
    ann[kResizedContainersAnnotation] = names;
    return boost::json::object{
        {"metadata", boost::json::object{{"labels", boost::json::object{{kTrackedLabel, "true"}}},
                                         {"annotations", std::move(ann)}}}};
}

boost::json::object clear_tracking_patch(const Pod& pod) {
    boost::json::object ann;
    for (const auto& [k, v] : pod.annotations) {
        const std::string_view kv = k;
        if (kv.starts_with(kOriginalPrefix) || kv == kResizedAtAnnotation || kv == kResizedWorkloadAnnotation ||
            kv == kResizedContainersAnnotation)
            ann[k] = nullptr;
    }
    return boost::json::object{
        {"metadata", boost::json::object{{"labels", boost::json::object{{kTrackedLabel, nullptr}}},
                                         {"annotations", std::move(ann)}}}};
}

Result<std::optional<OriginalValues>> decode_originals(const StringMap& annotations) {
    OriginalValues out;
    bool any = false;
    auto bad = [](const std::string& k, const std::string& why) {
        return make_error("invalid_original_annotation", "annotation " + k + ": " + why);
    };
    for (const auto& [k, v] : annotations) {
        const std::string_view kv = k;
        if (kv.starts_with(kOriginalRestartCountPrefix)) {
            const std::string name(kv.substr(kOriginalRestartCountPrefix.size()));
            std::int64_t n = -1;
            const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
            if (name.empty() || ec != std::errc{} || end != v.data() + v.size() || n < 0)
                return bad(k, "\"" + v + "\" is not a non-negative integer");
            out.containers[name].restart_count = n;
            any = true;
            continue;
        }
        if (!kv.starts_with(kOriginalPrefix)) continue;
        const std::string_view rest = kv.substr(kOriginalPrefix.size());  // cpu-request.app
        const auto dot = rest.find('.');
        const auto dash = rest.find('-');
        if (dot == std::string_view::npos || dash == std::string_view::npos || dash > dot || dot + 1 >= rest.size()) {
            if (rest.starts_with("target-cpu")) continue;  // an HPA key, not a pod original
            return bad(k, "not attune.io/original-{cpu,memory}-{request,limit}.<container>");
        }
        const std::string_view resource = rest.substr(0, dash);
        const std::string_view kind = rest.substr(dash + 1, dot - dash - 1);
        const std::string name(rest.substr(dot + 1));
        if ((resource != kCpu && resource != kMemory) || (kind != "request" && kind != "limit"))
            return bad(k, "not attune.io/original-{cpu,memory}-{request,limit}.<container>");
        auto q = Quantity::parse(v);
        if (!q.ok()) return bad(k, q.error().message);
        auto& rr = out.containers[name].resources;
        (kind == "request" ? rr.requests : rr.limits).insert_or_assign(std::string(resource), q.value());
        any = true;
    }
    if (const auto it = annotations.find(kResizedAtAnnotation); it != annotations.end()) {
        auto t = parse_timestamp(it->second);
        if (!t.ok()) return bad(it->first, t.error().message);
        out.resized_at = t.value();
        any = true;
    }
    if (const auto it = annotations.find(kResizedWorkloadAnnotation); it != annotations.end()) out.workload = it->second;
    if (const auto it = annotations.find(kResizedContainersAnnotation); it != annotations.end()) {
        for (const auto& name : split_commas(it->second))
            if (!out.containers.contains(name))
                return bad(it->first, "names container " + name + " but the pod has no original values for it");
    }
    if (!any) return std::optional<OriginalValues>{};
    return std::optional<OriginalValues>{std::move(out)};
}

}  // namespace attune::core
