// kubectl attune doctor: is this cluster ready for Attune, and is Attune
// healthy on it? The rows are pure (doctor_*.hpp); this file only reads.
// The Capabilities rows come from kube::probe_all and core::decide_capabilities,
// the very probe and decision the manager logs at start, so the two never
// disagree about a cluster.
#include "cluster_reads.hpp"
#include "commands.hpp"
#include "doctor_cgroup.hpp"
#include "doctor_cluster.hpp"
#include "doctor_install.hpp"
#include "doctor_prometheus.hpp"
#include "doctor_rbac.hpp"
#include "doctor_report.hpp"
#include "doctor_webhook.hpp"
#include "session.hpp"

#include <attune/kube/prometheus_client.hpp>
#include <attune/kube/wall_now.hpp>
#include <attune/core/util/json_path.hpp>
#include <attune/http/https_client.hpp>
#include <attune/http/url.hpp>
#include <attune/kube/discovery.hpp>
#include <attune/webhook/pki.hpp>

#include <boost/json.hpp>

#include <ostream>

namespace attune::cli {
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

using kube::wall_now;

// A url clientConfig: one TLS exchange verified against the caBundle. Any
// HTTP answer (a GET gets 4xx from an admission server) proves the
// endpoint is up and serves a certificate the apiserver will trust.
asio::awaitable<WebhookCheck> probe_url(WebhookClient w) {
    WebhookCheck k;
    k.endpoint = w.url;
    http::ServerUrl u;
    try {
        u = http::split_server_url(w.url);
    } catch (const std::invalid_argument& e) {
        k.endpoint_detail = std::string("unusable url: ") + e.what();
        co_return k;
    }
    http::TlsOptions tls;
    tls.ca_pem = w.ca_bundle_pem;
    http::ClientOptions o;
    o.tls = u.scheme == "https";
    o.max_connections = 1;
    o.limits.connect = 3s;
    o.limits.handshake = 3s;
    o.limits.read = 3s;
    o.limits.pool_wait = 3s;
    std::unique_ptr<http::HttpsClient> h;
    try {
        h = std::make_unique<http::HttpsClient>(co_await asio::this_coro::executor, u.host, u.port, tls, o);
    } catch (const std::exception& e) {
        k.endpoint_detail = std::string("caBundle unusable for TLS: ") + e.what();
        co_return k;
    }
    http::Request req;
    req.target = u.path_prefix.empty() ? "/" : u.path_prefix;
    req.timeout = 3s;
    auto r = co_await h->send(req);
    h->close_idle();
    if (!r.ok()) {
        k.endpoint_detail = "not reachable (" + std::string(http::to_string(r.kind)) + ": " + r.ec.message() + ")";
        co_return k;
    }
    k.reachable = true;
    k.endpoint_detail = "answers over TLS verified by the caBundle (HTTP " + std::to_string(r.resp.status) + " to a GET)";
    co_return k;
}

// A service clientConfig: its Service and ready endpoints (the Service
// network is not reachable from a workstation, and doctor uses no /proxy).
asio::awaitable<WebhookCheck> probe_service(kube::Client& c, WebhookClient w) {
    WebhookCheck k;
    k.endpoint = "service " + w.service_ns + "/" + w.service_name + ":" + std::to_string(w.service_port);
    auto svc = co_await lookup_object(c, cli_resources::services(), w.service_ns, w.service_name);
    if (!svc.found()) {
        k.endpoint_detail = svc.not_found() ? "does not exist" : "cannot be read (" + svc.error + ")";
        co_return k;
    }
    kube::ListOptions lo;
    lo.label_selector = "kubernetes.io/service-name=" + w.service_name;
    auto slices = co_await c.list_all(cli_resources::endpoint_slices(), w.service_ns, lo);
    if (!slices) {
        k.endpoint_detail = "endpoints cannot be read (" + slices.error().describe() + ")";
        co_return k;
    }
    int ready = 0;
    for (const auto& s : slices.value().items)
        if (const auto* eps = core::array_at(s, {"endpoints"}))
            for (const auto& e : *eps)
                if (core::bool_at(e, {"conditions", "ready"}).value_or(true)) ++ready;
    k.reachable = ready > 0;
    k.endpoint_detail = ready > 0 ? "has " + std::to_string(ready) + " ready endpoint(s)" : "has no ready endpoints";
    co_return k;
}

asio::awaitable<PrometheusProbe> probe_prometheus(PrometheusTarget t) {
    PrometheusProbe p;
    if (auto why = in_cluster_only(t.address)) {
        p.skipped = true;
        p.skip_reason = *why;
        co_return p;
    }
    kube::PrometheusSettings s;
    s.address = t.address;
    s.insecure_skip_verify = t.insecure_skip_verify;
    for (const auto& [k, v] : t.headers) s.headers.emplace(k, v);
    s.query_timeout = kPrometheusHealthTimeout;
    s.max_connections = 1;
    auto client = kube::PrometheusClient::create(co_await asio::this_coro::executor, s);
    if (!client) {
        p.error = client.error().message;
        co_return p;
    }
    auto r = (co_await client.value()->healthy(kPrometheusHealthTimeout)).result;
    if (r) {
        p.healthy = true;
        p.took = r.value();
    } else {
        p.error = r.error().message;
    }
    co_return p;
}

asio::awaitable<AccessAnswer> review(kube::Client& c, AccessCheck check) {
    AccessAnswer a;
    auto r = co_await c.create(cli_resources::self_subject_access_reviews(), "", access_review(check));
    if (!r) {
        a.error = r.error().describe();
        co_return a;
    }
    a.allowed = core::bool_at(r.value(), {"status", "allowed"}).value_or(false);
    co_return a;
}

struct DoctorResult {
    std::vector<DoctorRow> rows;
    boost::json::object capabilities;
    std::string server_version;
    std::string unreachable;  // the apiserver could not be used at all
};

asio::awaitable<DoctorResult> run_doctor(kube::Client& c, std::string policy_ns, std::string manager_ns,
                                         std::string mwc_name) {
    DoctorResult out;
    // An apiserver that cannot answer /version makes every row moot: say so
    // once, before the four probes each wait out their retries.
    if (const auto reach = co_await kube::probe_server_version(c); !reach.error.empty()) {
        out.unreachable = reach.error;
        co_return out;
    }
    const auto probes = co_await kube::probe_all(c);
    auto& rows = out.rows;
    rows.push_back(kubernetes_version_row(probes.version));
    rows.push_back(pods_resize_row(probes.resources, probes.version));
    auto decided = core::decide_capabilities(probes.version, probes.resources, probes.openapi, probes.nodes);
    const auto caps = decided ? decided.value() : core::safe_defaults();
    out.capabilities = core::capabilities_json(caps);
    out.capabilities["source"] = decided ? "probed" : "safe_defaults";
    out.server_version = probes.version.git_version;
    if (decided)
        for (auto& r : capability_rows(caps, probes.openapi, probes.nodes)) rows.push_back(std::move(r));
    rows.push_back(cgroup_row(probes.nodes, caps.major, caps.minor));

    std::vector<CrdLookup> crds;
    for (const auto& k : known_crds()) {
        CrdLookup l;
        l.name = std::string(k.name);
        l.lookup = co_await lookup_object(c, cli_resources::custom_resource_definitions(), "", l.name);
        crds.push_back(std::move(l));
    }
    rows.push_back(crds_row(crds));

    ManagerFacts m;
    m.ns = manager_ns;
    m.name = "attune-manager";
    m.deployment = co_await lookup_object(c, kube::resources::deployments(), manager_ns, m.name);
    m.lease = co_await lookup_object(c, kube::resources::leases(), manager_ns, m.name);
    rows.push_back(manager_row(m, wall_now()));

    // The resource type is chosen before the co_await: GCC 12 mis-destroys a
    // conditional's temporaries when they are a co_await's arguments.
    static constexpr WebhookConfigurationKind kConfigurations[] = {WebhookConfigurationKind::Mutating,
                                                                   WebhookConfigurationKind::Validating};
    for (const auto kind : kConfigurations) {
        const kube::ResourceType type = kind == WebhookConfigurationKind::Mutating
                                            ? cli_resources::mutating_webhook_configurations()
                                            : cli_resources::validating_webhook_configurations();
        const auto configuration = co_await lookup_object(c, type, "", mwc_name);
        std::vector<WebhookCheck> checks;
        if (configuration.found())
            for (auto& w : webhook_clients(*configuration.object)) {
                WebhookCheck k;
                if (w.url.empty()) k = co_await probe_service(c, w);
                else k = co_await probe_url(w);
                for (const auto& e : webhook::split_bundle(w.ca_bundle_pem)) k.ca.push_back(e.info);
                checks.push_back(std::move(k));
            }
        rows.push_back(webhook_row(kind, configuration, mwc_name, checks, wall_now()));
    }

    const auto ctx = co_await read_policy_context(c, policy_ns);
    std::vector<core::EffectivePolicy> effective;
    for (auto& [key, e] : effective_policies(ctx)) effective.push_back(std::move(e));
    const auto targets = prometheus_targets(effective);
    std::vector<PrometheusProbe> probed;
    for (std::size_t i = 0; i < targets.size() && i < kMaxPrometheusProbes; ++i)
        probed.push_back(co_await probe_prometheus(targets[i]));
    for (auto& r : prometheus_rows(targets, probed, ctx.policies_error)) rows.push_back(std::move(r));

    const auto checks_needed = doctor_access_checks(policy_ns, manager_ns, mwc_name);
    std::vector<AccessAnswer> answers;
    for (const auto& k : checks_needed) answers.push_back(co_await review(c, k));
    rows.push_back(rbac_row(checks_needed, answers));
    co_return out;
}

int run(Invocation& inv) {
    if (!inv.flags.positionals.empty())
        return usage_error(inv.err, "doctor", "unexpected argument \"" + inv.flags.positionals[0] + "\"", kExitUsage);
    const std::string manager_ns = inv.flags.get("manager-namespace", "attune-system");
    const std::string mwc_name = inv.flags.get("webhook-configuration", std::string(kWebhookConfiguration));
    // Every namespace's policies unless -n names one: doctor is about the cluster.
    const std::string policy_ns = inv.common.all_namespaces ? "" : inv.common.ns;
    DoctorResult result;
    std::string server;
    const int rc = run_in_session(inv, std::chrono::seconds(60), kExitError, [&](Session& s) -> asio::awaitable<int> {
        const auto& cfg = s.client().config();
        server = "https://" + cfg.host + ":" + cfg.port + cfg.path_prefix;
        result = co_await run_doctor(s.client(), policy_ns, manager_ns, mwc_name);
        co_return kExitOk;
    });
    if (rc != kExitOk) return rc;
    if (!result.unreachable.empty()) {
        inv.err << "error: cannot use the Kubernetes API at " << server << ": " << result.unreachable << "\n";
        return kExitError;
    }
    auto doc = doctor_json(result.rows);
    doc["serverVersion"] = result.server_version;
    doc["capabilities"] = result.capabilities;
    inv.out << render_document(inv.common.output, doc).value_or(render_doctor_table(result.rows, inv.common.colour));
    return doctor_failed(result.rows) ? kExitError : kExitOk;
}

}  // namespace

Command make_doctor_command() {
    Command c;
    c.name = "doctor";
    c.summary = "Check that the cluster suits Attune and that Attune is healthy on it";
    c.usage = "kubectl attune doctor [--manager-namespace NS] [-n NS | -A] [-o table|json|yaml]";
    c.description =
        "Rows: the Kubernetes version, pods/resize, one per Capabilities decision (the manager's own probe),\n"
        "cgroup v2, the CRDs, the manager, the webhook, Prometheus (GET /-/healthy from here, 3 s) and RBAC.\n"
        "Exit 1 only when a [required] row FAILs; [optional] rows never change the exit status.\n"
        "Policies are read in every namespace unless -n names one. Least-privilege RBAC:\n"
        "deploy/kustomize/rbac/kubectl-attune-doctor.yaml.";
    c.flags = {
        {"manager-namespace", 0, FlagKind::Value, "NS",
         "namespace of the attune-manager Deployment and Lease (default attune-system)"},
        {"webhook-configuration", 0, FlagKind::Value, "NAME",
         "the MutatingWebhookConfiguration to check (default attune-webhook)"},
    };
    c.run = run;
    return c;
}

}  // namespace attune::cli
