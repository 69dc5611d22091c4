// kubectl attune upgrade-report: the nightly report of the upgrade chain.
// The gauges come from Prometheus; the gate's reasons (only when an upgrade
// is available and blocked or held) from the ConfigMap the preflight writes
// (attune-upgrade-gate-report), or from a saved Job log (--reasons-file).
#include "commands.hpp"
#include "session.hpp"
#include "upgrade_chain_io.hpp"

#include <attune/kube/prometheus_client.hpp>
#include <attune/core/upgrade/upgrade_report.hpp>
#include <attune/kube/resource.hpp>

#include <boost/json.hpp>

#include <fstream>
#include <ostream>
#include <sstream>

namespace attune::cli {
namespace asio = boost::asio;

namespace {

constexpr const char* kChainNamespace = "attune-upgrade";

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

asio::awaitable<core::Result<std::vector<core::GaugeSample>>> query(kube::PrometheusClient& prom, std::string promql) {
    const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    auto r = co_await prom.query(promql, now);
    if (!r.result) co_return r.result.error();
    co_return core::gauge_samples_from(r.result.value());
}

int run(Invocation& inv) {
    if (!inv.flags.positionals.empty())
        return usage_error(inv.err, "upgrade-report", "unexpected argument \"" + inv.flags.positionals[0] + "\"", kExitUsage);
    if (!inv.flags.has("prometheus"))
        return usage_error(inv.err, "upgrade-report", "--prometheus http://HOST:PORT is required", kExitUsage);
    if (auto url = parse_url_flag("prometheus", inv.flags.get("prometheus")); !url)
        return usage_error(inv.err, "upgrade-report", url.error().message, kExitUsage);
    kube::PrometheusSettings prom_settings;
    prom_settings.address = inv.flags.get("prometheus");
    prom_settings.query_timeout = std::chrono::seconds(15);
    const std::string job = inv.flags.get("push-job", "attune-upgrade");
    const std::string reasons_file = inv.flags.get("reasons-file");
    const std::string ns = inv.common.ns.empty() ? kChainNamespace : inv.common.ns;

    core::ReportGauges gauges;
    core::ReportReasons reasons;
    std::string error;
    // The session is needed for the ConfigMap only, but is cheap: build it
    // so that one deadline covers every request.
    const int rc = run_in_session(inv, std::chrono::seconds(60), kExitError, [&](Session& s) -> asio::awaitable<int> {
        auto prom = kube::PrometheusClient::create(co_await asio::this_coro::executor, prom_settings);
        if (!prom) {
            error = "--prometheus: " + prom.error().message;
            co_return kExitError;
        }
        const std::string sel = "{job=\"" + job + "\"}";
        auto available = co_await query(*prom.value(), "k8s_upgrade_available" + sel);
        auto blocked = co_await query(*prom.value(), "k8s_upgrade_blocked" + sel);
        auto held = co_await query(*prom.value(), "k8s_upgrade_held" + sel);
        for (const auto* q : {&available, &blocked, &held})
            if (!q->ok()) {
                error = "cannot read the gauges from Prometheus: " + q->error().message;
                co_return kExitError;
            }
        gauges = core::report_gauges(available.value(), blocked.value(), held.value());
        if (!core::report_needs_reasons(gauges)) co_return kExitOk;
        if (!reasons_file.empty()) {
            std::ifstream f(reasons_file);
            if (!f) {
                reasons.error = "cannot read " + reasons_file;
                co_return kExitOk;
            }
            std::stringstream ss;
            ss << f.rdbuf();
            reasons.lines = split_lines(ss.str());
            reasons.source = reasons_file;
            co_return kExitOk;
        }
        auto cm = co_await s.client().get(configmaps_resource(), ns, kReportConfigMap);
        if (!cm) {
            reasons.error = "ConfigMap " + ns + "/" + kReportConfigMap + ": " + cm.error().describe();
            co_return kExitOk;
        }
        const auto* data = cm.value().is_object() ? cm.value().get_object().if_contains("data") : nullptr;
        auto field = [&](const char* k) {
            const auto* v = data && data->is_object() ? data->get_object().if_contains(k) : nullptr;
            return v && v->is_string() ? std::string(v->get_string()) : std::string();
        };
        reasons.lines = split_lines(field("reasons"));
        reasons.evaluated_for = field("target");
        reasons.evaluated_at = field("evaluatedAt");
        reasons.source = "ConfigMap " + ns + "/" + kReportConfigMap;
        co_return kExitOk;
    });
    if (!error.empty()) {
        inv.err << "error: " << error << "\n";
        return kExitError;
    }
    if (rc != kExitOk) return rc;
    if (is_document_format(inv.common.output)) {
        boost::json::object doc;
        doc["target"] = gauges.target ? boost::json::value(*gauges.target) : nullptr;
        auto opt = [](const std::optional<bool>& b) { return b ? boost::json::value(*b) : boost::json::value(nullptr); };
        doc["available"] = opt(gauges.available);
        doc["blocked"] = opt(gauges.blocked);
        doc["held"] = opt(gauges.held);
        boost::json::array lines;
        for (const auto& l : reasons.lines) lines.emplace_back(l);
        doc["reasons"] = std::move(lines);
        doc["report"] = core::render_upgrade_report(gauges, reasons);
        const boost::json::value v = std::move(doc);
        inv.out << *render_document(inv.common.output, v);
    } else {
        inv.out << core::render_upgrade_report(gauges, reasons);
    }
    const auto h = core::report_headline(gauges);
    if (h == core::ReportHeadline::Unknown) return kExitError;
    if (core::report_needs_reasons(gauges) && !reasons.error.empty()) return kExitError;
    return kExitOk;
}

}  // namespace

Command make_upgrade_report_command() {
    Command c;
    c.name = "upgrade-report";
    c.summary = "The nightly report of the upgrade chain: HELD, BLOCKED or SAFE, with the gate's reasons";
    c.usage = "kubectl attune upgrade-report --prometheus URL [-n NAMESPACE] [--reasons-file FILE]";
    c.description =
        "Reads k8s_upgrade_available, k8s_upgrade_blocked and k8s_upgrade_held from Prometheus. When an\n"
        "upgrade is available and blocked or held, it also reads the last preflight's reasons, from the\n"
        "ConfigMap attune-upgrade-gate-report in the chain's namespace (-n, default attune-upgrade) or from\n"
        "a saved preflight log (--reasons-file), and groups them: Action needed, Waiting on upstream,\n"
        "Pinned (held by us); untagged lines from older gates are plain bullets.\n"
        "Exit 0 with a report; 1 when the gauges or the wanted reasons cannot be read.";
    c.flags = {
        {"prometheus", 0, FlagKind::Value, "URL", "Prometheus base URL, http://HOST:PORT"},
        {"push-job", 0, FlagKind::Value, "NAME",
         "the Pushgateway job label the chain pushes under (default attune-upgrade)"},
        {"reasons-file", 0, FlagKind::Value, "FILE", "read the reasons from a preflight log instead of the ConfigMap"},
    };
    c.run = run;
    return c;
}

}  // namespace attune::cli
