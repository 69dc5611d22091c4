// kubectl attune status | recommendations | history: what the policies'
// status says (status_records.hpp), as a table or -o json|yaml, with -w to
// keep printing what changes. They read AttunePolicies (and the defaults
// objects, for the effective mode) and nothing else.
#include "cluster_reads.hpp"
#include "commands.hpp"
#include "session.hpp"
#include "context_fanout.hpp"
#include "status_filter.hpp"
#include "status_records.hpp"

#include <attune/core/util/json_path.hpp>
#include <attune/kube/informer.hpp>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include <spdlog/spdlog.h>

#include <map>
#include <set>
#include <ostream>
#include <sstream>

namespace attune::cli {
namespace asio = boost::asio;
namespace json = boost::json;

namespace {

// What one of the three commands makes of a policy.
struct ReportKind {
    std::string name;  // "status"
    std::function<core::Result<json::array>(const json::value& policy, const core::EffectivePolicy* effective,
                                            const std::string& workload)>
        records;
    std::function<std::vector<Column>(bool all_namespaces)> columns;
    std::string nothing;  // printed on stderr when there are no records
};

std::string policy_key(const json::value& p) {
    return std::string(core::string_at(p, {"metadata", "namespace"})) + "/" +
           std::string(core::string_at(p, {"metadata", "name"}));
}

// Every record of the listed policies, in namespace/name order.
core::Result<json::array> collect(const ReportKind& k, const PolicyContext& ctx,
                                  const std::map<std::string, core::EffectivePolicy>& effective,
                                  const std::string& workload) {
    json::array out;
    for (const auto& p : ctx.policies) {
        const auto it = effective.find(policy_key(p));
        auto recs = k.records(p, it == effective.end() ? nullptr : &it->second, workload);
        if (!recs) return core::make_error(recs.error().code, policy_key(p) + ": " + recs.error().message);
        for (auto& r : recs.value()) out.push_back(std::move(r));
    }
    return out;
}

int print(Invocation& inv, const ReportKind& k, const json::array& records, bool headers) {
    if (auto doc = render_document(inv.common.output, json::object{{"items", records}})) {
        inv.out << *doc;
        return kExitOk;
    }
    TableOptions o;
    o.wide = inv.common.output == OutputFormat::Wide;
    o.no_headers = inv.common.no_headers || !headers;
    o.sort_by = inv.common.sort_by;
    const auto cols = k.columns(inv.common.all_namespaces);
    auto t = render_table(records, cols, o);
    if (!t) return usage_error(inv.err, k.name, t.error().message, kExitUsage);
    inv.out << t.value();
    inv.out.flush();
    return kExitOk;
}

std::string scope_text(const Invocation& inv, const std::string& ns) {
    return inv.common.all_namespaces ? "any namespace" : ns + " namespace";
}

// Records already printed, per policy: -w prints only records that are new
// or changed (a status row that moved, a new history entry).
using PrintedRecords = std::map<std::string, std::set<std::string>>;

void remember(PrintedRecords& printed, const json::array& records) {
    for (const auto& r : records)
        printed[std::string(core::string_at(r, {"namespace"})) + "/" +
                std::string(core::string_at(r, {core::string_at(r, {"policy"}).empty() ? "name" : "policy"}))]
            .insert(json::serialize(r));
}

// -w: an informer on AttunePolicies prints what changed in each policy
// (rows without headers, or one JSON document per change), for `watch_for`
// (--request-timeout; 0: until interrupted), then ends with exit 0.
asio::awaitable<int> watch(Session& s, Invocation& inv, const ReportKind& k, std::string ns, std::string policy,
                           std::string workload, PrintedRecords printed, PolicyContext ctx,
                           std::chrono::milliseconds watch_for) {
    kube::InformerOptions io;
    io.type = kube::resources::attune_policies();
    io.namespace_ = ns;
    if (!policy.empty()) io.field_selector = "metadata.name=" + policy;
    kube::Informer inf(s.client(), io);
    inf.add_handler([&](const kube::ObjectCache::Delta& d) {
        if (!d.new_object) return;
        // The effective mode may change with the policy: merge it again.
        PolicyContext one = ctx;
        one.policies = {*d.new_object};
        const auto eff = effective_policies(one);
        auto recs = collect(k, one, eff, workload);
        if (!recs) {
            inv.err << "error: " << recs.error().message << "\n";
            return;
        }
        auto& seen = printed[d.key];
        json::array fresh;
        const std::string filter = inv.flags.get("filter");
        for (auto& r : recs.value())
            if (status_matches_filter(r.as_object(), filter) && seen.insert(json::serialize(r)).second)
                fresh.push_back(std::move(r));
        if (!fresh.empty()) print(inv, k, fresh, false);
    });
    asio::steady_timer stop_after(co_await asio::this_coro::executor);
    if (watch_for.count() > 0) {
        stop_after.expires_after(watch_for);
        stop_after.async_wait([&inf](const boost::system::error_code& ec) {
            if (!ec) inf.stop();
        });
    }
    co_await inf.run();
    stop_after.cancel();
    co_return kExitOk;
}

// What one cluster holds for the command: its records, and what -w goes on from.
struct Listing {
    std::string ns;  // "" with -A
    PolicyContext ctx;
    json::array records;
};

// Lists the policies (and the defaults objects, for the effective mode) and
// builds the records; an error is the text after "error: ".
asio::awaitable<core::Result<Listing>> list_records(Session& s, const Invocation& inv, const ReportKind& k,
                                                    const std::string& policy, const std::string& workload) {
    Listing l;
    l.ns = inv.common.all_namespaces ? "" : s.ns();
    auto listed = co_await read_report_policies(s.client(), l.ns, policy);
    if (!listed) co_return listed.error();
    l.ctx = std::move(listed).value();
    auto records = collect(k, l.ctx, effective_policies(l.ctx), workload);
    if (!records) co_return records.error();
    l.records = std::move(records.value());
    const std::string filter = inv.flags.get("filter");
    if (!filter.empty()) {
        json::array kept;
        for (auto& r : l.records)
            if (status_matches_filter(r.as_object(), filter)) kept.push_back(std::move(r));
        l.records = std::move(kept);
    }
    co_return l;
}

// --contexts / --all-contexts: each context in turn, one table with a
// CONTEXT column. A context that fails is reported on stderr, naming it, and
// the others are still printed; the exit code is then 1, as kubectl's for a
// partial failure.
int run_across_contexts(Invocation& inv, const ReportKind& k, const std::vector<std::string>& contexts,
                        const std::string& policy, const std::string& workload) {
    json::array all;
    bool failed = false;
    for (const auto& name : contexts) {
        std::ostringstream err;
        Invocation one{inv.common, inv.flags, inv.out, err};
        one.common.context = name;
        const int rc =
            run_in_session(one, std::chrono::seconds(30), kExitError, [&](Session& s) -> asio::awaitable<int> {
                auto l = co_await list_records(s, one, k, policy, workload);
                if (!l) {
                    one.err << "error: " << l.error().message << "\n";
                    co_return kExitError;
                }
                tag_records_with_context(l.value().records, name);
                for (auto& r : l.value().records) all.push_back(std::move(r));
                co_return kExitOk;
            });
        inv.err << name_context_in_errors(err.str(), name);
        failed = failed || rc != kExitOk;
    }
    if (all.empty() && !is_document_format(inv.common.output)) {
        inv.err << k.nothing << " in " << (inv.common.all_namespaces ? "any namespace" : "the contexts' namespaces")
                << " of " << contexts.size() << " context(s).\n";
    } else {
        ReportKind tagged = k;
        tagged.columns = [&k](bool all_namespaces) { return with_context_column(k.columns(all_namespaces)); };
        const int rc = print(inv, tagged, all, true);
        if (rc != kExitOk) return rc;
    }
    return failed ? kExitError : kExitOk;
}

int run_report(Invocation& inv, const ReportKind& k) {
    if (inv.flags.positionals.size() > 1)
        return usage_error(inv.err, k.name, "at most one policy name, got \"" + inv.flags.positionals[1] + "\"", kExitUsage);
    const std::string policy = inv.flags.positionals.empty() ? "" : inv.flags.positionals[0];
    const std::string workload = inv.flags.get("workload");
    const auto contexts = requested_contexts(inv.flags, inv.common);
    if (!contexts) {
        if (contexts.error().code == "bad_usage")
            return usage_error(inv.err, k.name, contexts.error().message, kExitUsage);
        inv.err << "error: " << contexts.error().message << "\n";
        return kExitError;
    }
    if (!contexts.value().empty()) return run_across_contexts(inv, k, contexts.value(), policy, workload);
    const bool watching = inv.flags.flag("watch");
    // With -w, --request-timeout is how long to watch (an end, not an
    // error); the session's own deadline then only catches a hang.
    const auto watch_for = inv.common.request_timeout;
    std::chrono::milliseconds deadline = std::chrono::seconds(30);
    if (watching) {
        inv.common.request_timeout = std::chrono::milliseconds(0);
        deadline = watch_for.count() > 0 ? watch_for + std::chrono::seconds(30)
                                         : std::chrono::milliseconds(std::chrono::hours(24 * 365));
    }
    return run_in_session(inv, deadline, kExitError, [&](Session& s) -> asio::awaitable<int> {
        auto l = co_await list_records(s, inv, k, policy, workload);
        if (!l) {
            inv.err << "error: " << l.error().message << "\n";
            co_return kExitError;
        }
        auto& [ns, ctx, records] = l.value();
        if (records.empty() && !is_document_format(inv.common.output)) {
            inv.err << k.nothing << " in " << scope_text(inv, ns) << ".\n";
        } else {
            const int rc = print(inv, k, records, true);
            if (rc != kExitOk) co_return rc;
        }
        if (!watching) co_return kExitOk;
        PrintedRecords printed;
        remember(printed, records);
        co_return co_await watch(s, inv, k, ns, policy, workload, std::move(printed), std::move(ctx), watch_for);
    });
}

// One of the three commands: its name and records, kubectl's flags, -w.
Command report_command(ReportKind k, std::string summary, std::string usage, std::string description,
                       bool with_workload) {
    Command c;
    c.name = k.name;
    c.summary = std::move(summary);
    c.usage = std::move(usage);
    c.description = std::move(description);
    c.flags = {{"watch", 'w', FlagKind::Boolean, "",
                "after listing, print what changes (until interrupted, or for --request-timeout)"}};
    if (with_workload)
        c.flags.push_back(
            {"workload", 0, FlagKind::Value, "[KIND/]NAME", "only this workload (deployment/web or web)"});
    for (auto& f : context_fanout_flag_specs()) c.flags.push_back(std::move(f));
    c.run = [k = std::move(k)](Invocation& inv) { return run_report(inv, k); };
    return c;
}

}  // namespace

Command make_status_command() {
    ReportKind k;
    k.name = "status";
    k.records = [](const json::value& p, const core::EffectivePolicy* e,
                   const std::string&) -> core::Result<json::array> { return json::array{status_record(p, e)}; };
    k.columns = status_columns;
    k.nothing = "No AttunePolicies found";
    auto c = report_command(
        std::move(k), "Per policy: phase, workloads found, resized, deferred, infeasible, idle, conditions",
        "kubectl attune status [POLICY] [-n NS | -A] [--filter WORD] [-w | --contexts A,B | --all-contexts]\n"
        "                      [-o table|wide|json|yaml]",
        "PHASE is Paused, Degraded, Resizing, else the Ready condition's reason (Monitoring, InsufficientData,\n"
        "PrometheusUnavailable, ...); Unknown while the status has no Ready condition, Pending with no status.\n"
        "MODE is the effective updateStrategy.type, after the merge with AttuneDefaults and AttuneNamespaceDefaults.\n"
        "--filter keeps the policies that are degraded (Degraded=True), pending (no Ready condition yet),\n"
        "collecting (InsufficientData), ready (Ready=True), noworkloads (NoWorkloadsFound), or whose phase or\n"
        "Ready reason contains the word. --contexts/--all-contexts read several kubeconfig contexts into one\n"
        "table with a CONTEXT column (a context that fails is named on stderr; the exit code is then 1).\n"
        "-o json prints {\"items\": [...]}, one record per policy.",
        false);
    c.flags.push_back({"filter", 0, FlagKind::Value, "WORD",
                       "only policies that are degraded, pending, collecting, ready, noworkloads, or match WORD"});
    return c;
}

Command make_recommendations_command() {
    ReportKind k;
    k.name = "recommendations";
    k.records = [](const json::value& p, const core::EffectivePolicy*,
                   const std::string& w) -> core::Result<json::array> { return recommendation_records(p, w); };
    k.columns = recommendation_columns;
    k.nothing = "No recommendations found";
    return report_command(
        std::move(k), "Per container: current -> recommended, confidence and data points",
        "kubectl attune recommendations [POLICY] [--workload [KIND/]NAME] [-n NS | -A] [-w | --contexts A,B | --all-contexts]\n"
        "                               [-o table|wide|json|yaml]",
        "Reads status.recommendations. Cells read \"current -> recommended\"; -o wide adds the limits, whether\n"
        "the data is stale and when it was computed. -o json prints {\"items\": [...]}, one record per container.",
        true);
}

Command make_history_command() {
    ReportKind k;
    k.name = "history";
    k.records = [](const json::value& p, const core::EffectivePolicy*, const std::string& w) {
        return history_records(p, w);
    };
    k.columns = history_columns;
    k.nothing = "No resize history found";
    return report_command(
        std::move(k), "The resize history with results and reasons",
        "kubectl attune history [POLICY] [--workload NAME] [-n NS | -A] [-w | --contexts A,B | --all-contexts]\n"
        "                       [-o table|wide|json|yaml]",
        "Reads status.resizeHistory (the newest 50 entries per policy), oldest first. With -w, new\n"
        "entries are printed as they come. -o json prints {\"items\": [...]}, one record per entry.",
        true);
}

}  // namespace attune::cli
