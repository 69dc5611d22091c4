// kubectl attune explain KIND/NAME: one workload's recommendation step by
// step and why it was or was not resized (explain_report.hpp). Reads the
// workload, the namespace's AttunePolicies (and defaults objects), its
// Events and its pods.
#include "cluster_reads.hpp"
#include "commands.hpp"
#include "explain_report.hpp"
#include "object_fields.hpp"
#include "session.hpp"

#include <attune/core/util/json_path.hpp>
#include <attune/kube/wall_now.hpp>

#include <boost/json.hpp>

#include <spdlog/spdlog.h>

#include <ostream>

namespace attune::cli {
namespace asio = boost::asio;
namespace json = boost::json;

namespace {

int run(Invocation& inv) {
    if (inv.flags.positionals.empty() || inv.flags.positionals.size() > 2)
        return usage_error(inv.err, "explain", "expected one workload: KIND/NAME (deployment/web) or KIND NAME", kExitUsage);
    std::string kind_text = "deployment", name;
    if (inv.flags.positionals.size() == 2) {
        kind_text = inv.flags.positionals[0];
        name = inv.flags.positionals[1];
    } else if (const auto& a = inv.flags.positionals[0]; a.find('/') != std::string::npos) {
        kind_text = a.substr(0, a.find('/'));
        name = a.substr(a.find('/') + 1);
    } else {
        name = a;
    }
    const std::string kind = canonical_kind(kind_text);
    const auto resource = kube::workload_resource(kind.empty() ? kind_text : kind);
    if (!resource) return usage_error(inv.err, "explain", resource.error().message, kExitUsage);
    if (name.empty()) return usage_error(inv.err, "explain", "the workload has no name", kExitUsage);
    if (inv.common.all_namespaces) return usage_error(inv.err, "explain", "-A does not apply: one workload, use -n", kExitUsage);

    json::object report;
    const int rc = run_in_session(inv, std::chrono::seconds(30), kExitError, [&](Session& s) -> asio::awaitable<int> {
        ExplainInputs in;
        in.ns = s.ns();
        in.kind = kind;
        in.name = name;
        in.container = inv.flags.get("container");
        const kube::ResourceType rt = resource.value();
        in.workload = co_await lookup_object(s.client(), rt, in.ns, name);
        if (in.workload.not_found()) {
            inv.err << "error: " << not_found_text(rt, name) << " in namespace " << in.ns << "\n";
            co_return kExitError;
        }
        if (!in.workload.found()) {
            inv.err << "error: cannot read " << rt.label() << " " << in.ns << "/" << name << ": " << in.workload.error << "\n";
            co_return kExitError;
        }
        auto ctx = co_await read_policy_context(s.client(), in.ns);
        if (!ctx.policies_error.empty()) {
            inv.err << "error: cannot list AttunePolicies in " << in.ns << ": " << ctx.policies_error << "\n";
            co_return kExitError;
        }
        for (auto& [key, r] : resolve_policies(ctx)) {
            if (r.effective) in.effective.emplace(r.view->name, *r.effective);
            else in.refused.emplace(r.view->name, std::move(r.message));
        }
        in.policies = std::move(ctx.policies);
        kube::ListOptions lo;
        lo.limit = 500;
        if (auto evs = co_await s.client().list_all(kube::resources::events(), in.ns, lo))
            for (auto& e : evs.value().items) in.events.push_back(std::move(e));
        else
            spdlog::warn("events not read error=\"{}\"", evs.error().describe());
        kube::ListOptions po;
        po.label_selector = match_labels_selector(*in.workload.object);
        if (!po.label_selector.empty()) {
            if (auto pods = co_await s.client().list_all(kube::resources::pods(), in.ns, po))
                for (auto& p : pods.value().items) in.pods.push_back(std::move(p));
            else
                spdlog::warn("pods not read error=\"{}\"", pods.error().describe());
        }
        in.now = kube::wall_now();
        report = explain_report(in);
        co_return kExitOk;
    });
    if (rc != kExitOk) return rc;
    inv.out << render_document(inv.common.output, report).value_or(render_explain(report));
    return kExitOk;
}

}  // namespace

Command make_explain_command() {
    Command c;
    c.name = "explain";
    c.summary = "One workload's recommendation step by step, and why it was or was not resized";
    c.usage = "kubectl attune explain KIND/NAME [--container NAME] [-n NS] [-o json|yaml]";
    c.description =
        "The estimator's chain per container and resource (percentile, overhead, burst, confidence, bounds,\n"
        "change filter, final), then why the workload was or was not resized: the managing policy (the\n"
        "manager's own selection rule), opt-out, pause, mode, idleness, staleness, conditions (cooldown,\n"
        "schedule, ResizeBlocked, Degraded), the resize history, the Events that name it or its pods\n"
        "(ResizeSkipped with its gate, MemoryLimitClamped, envelope_constraint, ...) and each pod's resize\n"
        "state, pod-level envelope and attune.io annotations.";
    c.flags = {{"container", 0, FlagKind::Value, "NAME", "only this container"}};
    c.run = run;
    return c;
}

}  // namespace attune::cli
