// kubectl attune preview [POLICY]: per pod, what the executor would do now if
// the policy's mode were Auto (preview_report.hpp). Reads what the executor
// reads from its caches, with GETs and lists: the policies and defaults, the
// capability probe, each recommended workload and its pods, the namespace,
// its LimitRanges and ResourceQuotas, and each pod's node with the pods
// bound to it.
#include "cluster_reads.hpp"
#include "commands.hpp"
#include "preview_report.hpp"
#include "session.hpp"

#include <attune/core/model/label_selector.hpp>
#include <attune/core/recommend/recommendation_status.hpp>
#include <attune/core/util/json_path.hpp>
#include <attune/kube/discovery.hpp>
#include <attune/policy/time_zones.hpp>
#include <attune/kube/wall_now.hpp>

#include <boost/json.hpp>

#include <spdlog/spdlog.h>

#include <ostream>
#include <set>
#include <type_traits>

namespace attune::cli {
namespace asio = boost::asio;
namespace json = boost::json;

namespace {

using Objects = std::vector<json::value>;

asio::awaitable<Read<Objects>> list_objects(kube::Client& c, kube::ResourceType rt, std::string ns,
                                            kube::ListOptions lo) {
    Read<Objects> out;
    auto r = co_await c.list_all(rt, ns, lo);
    if (!r) {
        out.error = one_line_error(r.error());
        co_return out;
    }
    out.value.emplace();
    for (auto& o : r.value().items) out.value->push_back(std::move(o));
    co_return out;
}

// The workload and its own pods (its whole selector over the listed ones).
asio::awaitable<PreviewWorkload> read_workload(kube::Client& c, const std::string& ns, const std::string& kind,
                                               const std::string& name) {
    PreviewWorkload w;
    auto rt = kube::workload_resource(kind);
    if (!rt) {
        w.object.error = rt.error().message;
        co_return w;
    }
    auto obj = co_await lookup_object(c, rt.value(), ns, name);
    if (!obj.found()) {
        w.object.error = obj.not_found() ? not_found_text(rt.value(), name) : obj.error;
        co_return w;
    }
    auto selector = core::parse_label_selector(core::json_at(*obj.object, {"spec", "selector"}));
    w.object.value = std::move(*obj.object);
    if (!selector) {
        w.pods.error = "its selector does not parse: " + selector.error().message;
        co_return w;
    }
    kube::ListOptions lo;
    lo.label_selector = match_labels_selector(*w.object.value);
    auto pods = co_await list_objects(c, kube::resources::pods(), ns, lo);
    if (pods.value)
        std::erase_if(*pods.value, [&](const json::value& p) { return !selector.value().matches(core::labels_of(p)); });
    w.pods = std::move(pods);
    co_return w;
}

asio::awaitable<PreviewNode> read_node(kube::Client& c, const std::string& name) {
    PreviewNode n;
    auto obj = co_await lookup_object(c, kube::resources::nodes(), "", name);
    if (obj.found()) n.object.value = std::move(*obj.object);
    else n.object.error = obj.not_found() ? not_found_text(kube::resources::nodes(), name) : obj.error;
    kube::ListOptions lo;
    lo.field_selector = "spec.nodeName=" + name;
    n.pods = co_await list_objects(c, kube::resources::pods(), "", lo);
    co_return n;
}

template <class T, class Decode>
Read<std::vector<T>> decode_all(const Read<Objects>& objects, Decode decode, std::vector<std::string>& notes,
                                const char* what) {
    Read<std::vector<T>> out;
    if (!objects.value) {
        out.error = objects.error;
        return out;
    }
    out.value.emplace();
    for (const auto& o : *objects.value) {
        auto d = decode(o);
        if (d) {
            if constexpr (std::is_same_v<std::decay_t<decltype(d.value())>, std::vector<T>>)
                out.value->insert(out.value->end(), d.value().begin(), d.value().end());
            else out.value->push_back(std::move(d).value());
        } else {
            // The executor logs and ignores it too (resize_snapshot).
            notes.push_back(std::string(what) + " " + std::string(core::string_at(o, {"metadata", "name"})) +
                            " does not decode and is ignored, as the manager ignores it: " + d.error().message);
        }
    }
    return out;
}

int run(Invocation& inv) {
    if (inv.flags.positionals.size() > 1)
        return usage_error(inv.err, "preview", "at most one policy name, got \"" + inv.flags.positionals[1] + "\"",
                           kExitUsage);
    const std::string policy = inv.flags.positionals.empty() ? "" : inv.flags.positionals[0];
    json::array rows;
    std::vector<std::string> notes;
    std::string ns;
    const int rc = run_in_session(inv, std::chrono::seconds(60), kExitError, [&](Session& s) -> asio::awaitable<int> {
        auto& c = s.client();
        ns = inv.common.all_namespaces ? "" : s.ns();
        auto listed = co_await read_report_policies(c, ns, policy);
        if (!listed) {
            inv.err << "error: " << listed.error().message << "\n";
            co_return kExitError;
        }
        const auto& ctx = listed.value();
        auto resolved = resolve_policies(ctx);
        // The capabilities the manager decides at start, by the same probe and rule.
        const auto probes = co_await kube::probe_all(c);
        auto decided = core::decide_capabilities(probes.version, probes.resources, probes.openapi, probes.nodes);
        policy::TimeZones zones;
        std::map<std::string, PreviewNode> nodes;  // shared by the policies
        for (const auto& p : ctx.policies) {
            PreviewInputs in;
            in.policy = p;
            const std::string pns(core::string_at(p, {"metadata", "namespace"}));
            const std::string key = pns + "/" + std::string(core::string_at(p, {"metadata", "name"}));
            if (auto it = resolved.find(key); it != resolved.end() && it->second.effective)
                in.effective = *it->second.effective;
            else in.config_error = it == resolved.end() ? "not resolved" : it->second.message;
            in.caps = decided ? decided.value() : core::safe_defaults();
            if (!decided) in.caps_error = decided.error().message;
            auto recs = core::decode_status_recommendations(p);
            if (!recs) {
                inv.err << "error: " << key << ": " << recs.error().message << "\n";
                co_return kExitError;
            }
            for (const auto& r : recs.value()) {
                auto w = co_await read_workload(c, pns, r.kind, r.workload);
                in.workloads.emplace(r.kind + "/" + r.workload, std::move(w));
            }
            if (auto n = co_await lookup_object(c, kube::resources::namespaces(), "", pns); n.found())
                in.namespace_annotations.value = core::annotations_of(*n.object);
            else in.namespace_annotations.error = n.error;
            const auto limit_ranges =
                co_await list_objects(c, kube::resources::limit_ranges(), pns, kube::ListOptions{});
            in.limit_ranges = decode_all<core::LimitRangeItem>(
                limit_ranges, [](const json::value& o) { return core::decode_limit_range(o); }, notes, "LimitRange");
            const auto quotas = co_await list_objects(c, kube::resources::resource_quotas(), pns, kube::ListOptions{});
            in.quotas = decode_all<core::QuotaFacts>(
                quotas, [](const json::value& o) { return core::decode_resource_quota(o); }, notes, "ResourceQuota");
            std::set<std::string> node_names;
            for (const auto& [_, w] : in.workloads)
                if (w.pods.value)
                    for (const auto& pod : *w.pods.value)
                        if (auto n = core::string_at(pod, {"spec", "nodeName"}); !n.empty()) node_names.emplace(n);
            for (const auto& n : node_names) {
                if (!nodes.contains(n)) {
                    auto read = co_await read_node(c, n);
                    nodes.emplace(n, std::move(read));
                }
                in.nodes.emplace(n, nodes.at(n));
            }
            if (in.effective && in.effective->update_strategy.schedule &&
                !in.effective->update_strategy.schedule->windows.empty()) {
                const auto& tz = in.effective->update_strategy.schedule->timezone;
                in.zone = zones.get(tz.empty() ? "UTC" : tz);
            }
            in.now = kube::wall_now();
            auto result = preview_policy(in);
            if (!result) {
                inv.err << "error: " << key << ": " << result.error().message << "\n";
                co_return kExitError;
            }
            for (auto& r : result.value().rows) rows.push_back(std::move(r));
            for (auto& n : result.value().notes) notes.push_back(key + ": " + n);
        }
        co_return kExitOk;
    });
    if (rc != kExitOk) return rc;
    json::array note_array;
    for (const auto& n : notes) note_array.emplace_back(n);
    if (auto doc = render_document(inv.common.output, json::object{{"items", rows}, {"notes", note_array}})) {
        inv.out << *doc;
        return kExitOk;
    }
    if (rows.empty()) {
        inv.err << "No pods to preview in " << (inv.common.all_namespaces ? "any namespace" : ns + " namespace")
                << ".\n";
    } else {
        TableOptions o;
        o.wide = inv.common.output == OutputFormat::Wide;
        o.no_headers = inv.common.no_headers;
        o.sort_by = inv.common.sort_by;
        const auto cols = preview_columns(inv.common.all_namespaces);
        auto t = render_table(rows, cols, o);
        if (!t) return usage_error(inv.err, "preview", t.error().message, kExitUsage);
        inv.out << t.value();
    }
    inv.out.flush();
    for (const auto& n : notes) inv.err << "Note: " << n << "\n";
    return kExitOk;
}

}  // namespace

Command make_preview_command() {
    Command c;
    c.name = "preview";
    c.summary = "Per pod: what Auto mode would do now (resize, defer, hold), the values and why";
    c.usage = "kubectl attune preview [POLICY] [-n NS | -A] [-o table|wide|json|yaml]";
    c.description =
        "For each pod of the workloads in the policy's status.recommendations: its requests/limits now, the values\n"
        "the executor would resize it to, and what it would do if updateStrategy.type were Auto: resize, defer\n"
        "(maxConcurrentResizes, a resize still pending), hold (the gate: cooldown, outside_schedule,\n"
        "node_capacity, budget_exhausted, limit_range, resource_quota, InPlaceResizeWouldChangeQoSClass, paused,\n"
        "idle, stale, ...), none (already there), skip (not running), or unknown when an input could not be read\n"
        "(UNAVAILABLE in -o wide). The decision is the executor's own code over the pods, nodes, LimitRanges and\n"
        "ResourceQuotas read now; -o json prints {\"items\": [...], \"notes\": [...]}.";
    c.run = run;
    return c;
}

}  // namespace attune::cli
