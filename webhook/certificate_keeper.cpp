#include <attune/webhook/certificate_keeper.hpp>

#include <attune/core/policy/annotations.hpp>
#include <attune/core/util/base64.hpp>
#include <attune/core/util/json_patch.hpp>
#include <attune/core/util/json_path.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>

namespace attune::webhook {
namespace asio = boost::asio;
namespace json = boost::json;

namespace {

// notBefore in the past tolerates clock skew between nodes: 5 minutes, or a
// tenth of the lifetime for short-lived test certificates (the renewal is a
// share of the whole lifetime, so a large backdate would make it due at once).
std::int64_t backdate(std::chrono::seconds validity) { return std::min<std::int64_t>(300, validity.count() / 10); }
constexpr int kWriteAttempts = 5;

// What the Secret holds, decoded.
struct Material {
    bool exists = false;
    std::string resource_version;
    std::string type = "kubernetes.io/tls";
    std::string tls_crt, tls_key, ca_crt, ca_key, next_ca_crt, next_ca_key, ca_bundle;
    std::int64_t next_ca_staged_at = 0;
};

std::string data_field(const json::value& secret, std::string_view key) {
    auto d = core::base64_decode(core::string_at(secret, {"data", key}));
    return d ? *d : std::string();
}

Material decode_secret(const json::value& secret) {
    Material m;
    m.exists = true;
    m.resource_version = std::string(core::string_at(secret, {"metadata", "resourceVersion"}));
    if (const auto staged = core::string_at(secret, {"metadata", "annotations", core::kNextCaStagedAtAnnotation});
        !staged.empty()) {
        try {
            m.next_ca_staged_at = std::stoll(std::string(staged));
        } catch (const std::exception&) {
            m.next_ca_staged_at = 0;  // unreadable: the overlap counts from 1970, i.e. is over
        }
    }
    if (const auto t = core::string_at(secret, {"type"}); !t.empty()) m.type = std::string(t);
    m.tls_crt = data_field(secret, "tls.crt");
    m.tls_key = data_field(secret, "tls.key");
    m.ca_crt = data_field(secret, "ca.crt");
    m.ca_key = data_field(secret, "ca.key");
    m.next_ca_crt = data_field(secret, "next-ca.crt");
    m.next_ca_key = data_field(secret, "next-ca.key");
    m.ca_bundle = data_field(secret, "ca-bundle.crt");
    return m;
}

std::optional<core::CertificateInfo> usable(const std::string& cert, const std::string& key) {
    if (cert.empty() || key.empty() || !key_matches(cert, key)) return std::nullopt;
    return certificate_info(cert);
}

core::CertificateState state_of(const Material& m, const ServingNames& names) {
    core::CertificateState s;
    s.ca = usable(m.ca_crt, m.ca_key);
    s.serving = usable(m.tls_crt, m.tls_key);
    s.serving_signed_by_ca = s.ca && s.serving && signed_by(m.tls_crt, m.ca_crt);
    s.serving_covers_names = s.serving && covers_names(m.tls_crt, names);
    s.next_ca = usable(m.next_ca_crt, m.next_ca_key);
    s.next_ca_staged_at = m.next_ca_staged_at;
    for (const auto& e : split_bundle(m.ca_bundle)) s.bundle.push_back(e.info);
    return s;
}

json::value encode_secret(const Material& m, const CertificateKeeperOptions& o) {
    json::object data;
    auto put = [&](const char* k, const std::string& v) {
        if (!v.empty()) data[k] = core::base64_encode(v);
    };
    // kubernetes.io/tls requires both keys, even empty.
    data["tls.crt"] = core::base64_encode(m.tls_crt);
    data["tls.key"] = core::base64_encode(m.tls_key);
    put("ca.crt", m.ca_crt);
    put("ca.key", m.ca_key);
    put("next-ca.crt", m.next_ca_crt);
    put("next-ca.key", m.next_ca_key);
    put("ca-bundle.crt", m.ca_bundle);
    json::object md;
    md["name"] = o.secret_name;
    md["namespace"] = o.ns;
    md["labels"] = json::object{{"app.kubernetes.io/name", "attune"}, {"app.kubernetes.io/component", "webhook"}};
    if (!m.next_ca_crt.empty())
        md["annotations"] = json::object{{core::kNextCaStagedAtAnnotation, std::to_string(m.next_ca_staged_at)}};
    if (!m.resource_version.empty()) md["resourceVersion"] = m.resource_version;
    json::object s;
    s["apiVersion"] = "v1";
    s["kind"] = "Secret";
    s["metadata"] = std::move(md);
    s["type"] = m.type;
    s["data"] = std::move(data);
    return s;
}

// The clientConfig path: service.path, else the path of an existing url, else "/".
std::string webhook_path(const json::object& cc) {
    if (const auto p = core::string_at(cc, {"service", "path"}); !p.empty()) return std::string(p);
    if (const auto url = core::string_at(cc, {"url"}); !url.empty()) {
        const auto scheme = url.find("://");
        const auto slash = url.find('/', scheme == std::string_view::npos ? 0 : scheme + 3);
        if (slash != std::string_view::npos) return std::string(url.substr(slash));
    }
    return "/";
}

}  // namespace

struct CertificateKeeper::impl {
    impl(kube::Client& c, http::HttpsServer& s, CertificateKeeperOptions o, WebhookMetrics& m, ClockFn n)
        : client(c), server(s), opts(std::move(o)), metrics(m), now(std::move(n)) {
        if (!now) now = [] {
            return static_cast<std::int64_t>(
                std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
                    .count());
        };
    }

    kube::Client& client;
    http::HttpsServer& server;
    CertificateKeeperOptions opts;
    WebhookMetrics& metrics;
    ClockFn now;
    std::string loaded_cert, published;
    bool validating_absent_logged = false;
    std::string unpublished_kind;  // the configuration the last publish failed on
    bool stopping = false;
    std::unique_ptr<asio::steady_timer> timer;  // run()'s wait, cancelled by stop()

    void count_rotation(const char* kind) { metrics.certificate_rotations.Add({{"kind", kind}}).Increment(); }
    void count_error(const char* stage) { metrics.certificate_sync_errors.Add({{"stage", stage}}).Increment(); }

    // Carries out `plan` on `m` (keys generated here).
    void apply(const core::CertificatePlan& plan, Material& m, std::int64_t t) {
        const auto ca_cn = "attune-webhook-ca-" + std::to_string(t);
        std::map<std::string, std::string> pem_by_id;
        for (const auto& e : split_bundle(m.ca_bundle)) pem_by_id[e.info.fingerprint] = e.pem;
        auto remember = [&](const std::string& pem) {
            if (auto i = certificate_info(pem)) pem_by_id[i->fingerprint] = pem;
        };
        remember(m.ca_crt);
        remember(m.next_ca_crt);
        std::string planned_new, planned_next;
        if (plan.new_ca) {
            auto ca = generate_ca(ca_cn, t - backdate(opts.rotation.ca_validity), t + opts.rotation.ca_validity.count());
            m.ca_crt = ca.cert_pem;
            m.ca_key = ca.key_pem;
            planned_new = ca.cert_pem;
            count_rotation("ca_created");
        }
        if (plan.promote_next_ca) {
            m.ca_crt = m.next_ca_crt;
            m.ca_key = m.next_ca_key;
            m.next_ca_crt.clear();
            m.next_ca_key.clear();
            m.next_ca_staged_at = 0;
            count_rotation("ca_promoted");
        }
        if (plan.stage_next_ca) {
            auto next = generate_ca(ca_cn + "-next", t - backdate(opts.rotation.ca_validity),
                                    t + opts.rotation.ca_validity.count());
            m.next_ca_crt = next.cert_pem;
            m.next_ca_key = next.key_pem;
            m.next_ca_staged_at = t;
            planned_next = next.cert_pem;
            count_rotation("ca_staged");
        } else if (!m.next_ca_crt.empty() && !usable(m.next_ca_crt, m.next_ca_key)) {
            m.next_ca_crt.clear();
            m.next_ca_key.clear();
            m.next_ca_staged_at = 0;
        }
        if (plan.issue_serving) {
            const auto ca_info = certificate_info(m.ca_crt);
            const std::int64_t until = std::min<std::int64_t>(t + opts.rotation.serving_validity.count(),
                                                              ca_info ? ca_info->not_after : t + 60);
            auto srv = issue_serving_certificate({m.ca_crt, m.ca_key}, opts.names,
                                                 t - backdate(opts.rotation.serving_validity), until);
            m.tls_crt = srv.cert_pem;
            m.tls_key = srv.key_pem;
            count_rotation("serving_issued");
        }
        std::string bundle;
        for (const auto& id : plan.bundle) {
            if (id == core::kPlannedNewCa) bundle += planned_new;
            else if (id == core::kPlannedNextCa) bundle += planned_next;
            else if (auto it = pem_by_id.find(id); it != pem_by_id.end()) bundle += it->second;
        }
        m.ca_bundle = bundle;
    }

    // Reads the Secret (absent: empty material), or an error text.
    asio::awaitable<std::pair<std::optional<Material>, std::string>> read() {
        auto r = co_await client.get(kube::resources::secrets(), opts.ns, opts.secret_name);
        if (r.ok()) co_return std::pair<std::optional<Material>, std::string>(decode_secret(r.value()), "");
        if (r.error().is_not_found()) co_return std::pair<std::optional<Material>, std::string>(Material{}, "");
        co_return std::pair<std::optional<Material>, std::string>(std::nullopt, r.error().describe());
    }

    asio::awaitable<SyncResult> sync() {
        SyncResult out;
        Material m;
        core::CertificatePlan plan;
        bool settled = false;
        for (int attempt = 0; attempt < kWriteAttempts && !settled; ++attempt) {
            auto [read_m, err] = co_await read();
            if (!read_m) {
                count_error("secret");
                out.error = "reading Secret " + opts.ns + "/" + opts.secret_name + ": " + err;
                co_return out;
            }
            m = std::move(*read_m);
            const std::int64_t t = now();
            plan = core::plan_certificates(state_of(m, opts.names), t, opts.rotation);
            if (!plan.writes()) {
                settled = true;
                break;
            }
            try {
                apply(plan, m, t);
            } catch (const std::exception& e) {
                count_error("generate");
                out.error = std::string("generating certificates: ") + e.what();
                co_return out;
            }
            std::string reasons;
            for (const auto& r : plan.reasons) reasons += (reasons.empty() ? "" : "; ") + r;
            auto body = encode_secret(m, opts);
            // Not a conditional expression: GCC 12 mis-destroys the result of a
            // co_await inside ?: (the same family of bugs as docs/manager.md).
            kube::Client::JsonResult w;
            if (m.exists) w = co_await client.update(kube::resources::secrets(), opts.ns, opts.secret_name, body);
            else w = co_await client.create(kube::resources::secrets(), opts.ns, body);
            if (w.ok()) {
                spdlog::info("webhook certificates written namespace={} name={} reasons=\"{}\" new_ca={} staged_ca={} "
                             "promoted_ca={} serving_issued={} bundle_size={}",
                             opts.ns, opts.secret_name, reasons, plan.new_ca, plan.stage_next_ca,
                             plan.promote_next_ca, plan.issue_serving, plan.bundle.size());
                continue;  // read back and decide again: nothing should be due now
            }
            if (w.error().is_conflict()) {
                // Another replica wrote first (409 on create or on a stale
                // resourceVersion): take what it wrote.
                spdlog::info("webhook certificates: another replica wrote first; re-reading namespace={} name={}",
                             opts.ns, opts.secret_name);
                continue;
            }
            count_error("secret");
            out.error = "writing Secret " + opts.ns + "/" + opts.secret_name + ": " + w.error().describe();
            co_return out;
        }
        if (!settled) {
            count_error("secret");
            out.error = "Secret " + opts.ns + "/" + opts.secret_name + " kept changing; giving up this pass";
            co_return out;
        }
        load(m);
        const bool published_ok = co_await publish(m.ca_bundle);
        if (!published_ok) {
            out.error = "publishing the CA bundle to " + unpublished_kind + " " + opts.webhook_configuration +
                        " failed (see the log line before)";
            out.next_at = now() + 5;
            co_return out;
        }
        out.ok = true;
        out.next_at = plan.next_review_at;
        co_return out;
    }

    void load(const Material& m) {
        if (auto ca = certificate_info(m.ca_crt))
            metrics.certificate_not_after.Add({{"certificate", "ca"}}).Set(static_cast<double>(ca->not_after));
        if (m.tls_crt == loaded_cert) return;
        try {
            server.set_certificate(m.tls_crt, m.tls_key);
        } catch (const std::exception& e) {
            count_error("generate");
            spdlog::error("webhook certificate not loaded namespace={} name={} error=\"{}\"", opts.ns, opts.secret_name,
                          e.what());
            return;
        }
        loaded_cert = m.tls_crt;
        metrics.certificate_reloads.Increment();
        const auto info = certificate_info(m.tls_crt);
        if (info) metrics.certificate_not_after.Add({{"certificate", "serving"}}).Set(static_cast<double>(info->not_after));
        spdlog::info("webhook serving certificate loaded fingerprint={} not_after={}", info ? info->fingerprint : "",
                     info ? info->not_after : 0);
    }

    // Writes the bundle (and, in url mode, the url) into every webhook of our
    // MutatingWebhookConfiguration and of our ValidatingWebhookConfiguration
    // of the same name (the policy webhooks); false when that failed. An
    // absent validating configuration is not an error: installs from before
    // the policy webhooks have none.
    // Not `if (!co_await ...)` nor a temporary in the co_await: GCC 12
    // crashes on both (docs/manager.md, "Notes for contributors").
    asio::awaitable<bool> publish(const std::string& bundle) {
        const auto mutating = kube::resources::mutating_webhook_configurations();
        const auto validating = kube::resources::validating_webhook_configurations();
        bool ok = co_await publish_to(mutating, "mwc", bundle, true);
        if (ok) ok = co_await publish_to(validating, "vwc", bundle, false);
        if (ok) published = bundle;
        co_return ok;
    }

    asio::awaitable<bool> publish_to(kube::ResourceType type, const char* stage, const std::string& bundle,
                                     bool required) {
        auto r = co_await client.get(type, "", opts.webhook_configuration);
        if (!r.ok() && !required && r.error().is_not_found()) {
            if (!validating_absent_logged)
                spdlog::info("no {} named {}: the policy webhooks are not installed", type.kind,
                             opts.webhook_configuration);
            validating_absent_logged = true;
            co_return true;
        }
        if (!r.ok()) {
            count_error(stage);
            unpublished_kind = type.kind;
            spdlog::warn("cannot read the webhook configuration kind={} name={} error=\"{}\"", type.kind,
                         opts.webhook_configuration, r.error().describe());
            co_return false;
        }
        if (!required) validating_absent_logged = false;
        const json::value& current = r.value();
        json::value desired = current;
        const std::string ca_b64 = core::base64_encode(bundle);
        auto* hooks = desired.as_object().if_contains("webhooks");
        if (hooks && hooks->is_array()) {
            for (auto& h : hooks->as_array()) {
                auto* ho = h.if_object();
                if (!ho) continue;
                auto& cc = (*ho)["clientConfig"];
                if (!cc.is_object()) cc = json::object();
                auto& cco = cc.as_object();
                if (!opts.url.empty()) {
                    json::object next;
                    next["url"] = opts.url + webhook_path(cco);
                    next["caBundle"] = ca_b64;
                    cco = std::move(next);
                } else {
                    cco["caBundle"] = ca_b64;
                }
            }
        }
        json::array patch = core::json_patch_diff(current, desired);
        if (patch.empty()) co_return true;
        // Guard against a concurrent edit: the patch applies to what we read.
        json::array guarded;
        json::object test{{"op", "test"}, {"path", "/metadata/resourceVersion"},
                          {"value", current.at("metadata").at("resourceVersion")}};
        guarded.push_back(std::move(test));
        for (auto& op : patch) guarded.push_back(std::move(op));
        auto p = co_await client.patch(type, "", opts.webhook_configuration, kube::PatchType::JsonPatch,
                                       json::serialize(guarded));
        if (!p.ok()) {
            count_error(stage);
            unpublished_kind = type.kind;
            spdlog::warn("cannot write the CA bundle to the webhook configuration kind={} name={} error=\"{}\"",
                         type.kind, opts.webhook_configuration, p.error().describe());
            co_return false;
        }
        spdlog::info("webhook configuration updated kind={} name={} ca_bundle_certificates={} url={}", type.kind,
                     opts.webhook_configuration, split_bundle(bundle).size(), opts.url.empty() ? "-" : opts.url);
        co_return true;
    }
};

CertificateKeeper::CertificateKeeper(kube::Client& client, http::HttpsServer& server, CertificateKeeperOptions opts,
                                     WebhookMetrics& metrics, ClockFn now)
    : impl_(std::make_shared<impl>(client, server, std::move(opts), metrics, std::move(now))) {}

CertificateKeeper::~CertificateKeeper() = default;

asio::awaitable<SyncResult> CertificateKeeper::sync() {
    auto self = impl_;
    co_return co_await self->sync();
}

asio::awaitable<void> CertificateKeeper::run() {
    auto self = impl_;
    self->timer = std::make_unique<asio::steady_timer>(co_await asio::this_coro::executor);
    auto& timer = *self->timer;
    std::chrono::seconds backoff(1);
    while (!self->stopping) {
        const auto r = co_await self->sync();
        std::chrono::seconds wait = self->opts.resync;
        if (r.ok) {
            backoff = std::chrono::seconds(1);
            wait = std::clamp(std::chrono::seconds(r.next_at - self->now()), std::chrono::seconds(1), self->opts.resync);
        } else {
            spdlog::warn("webhook certificate sync failed; retrying retry_in_s={} error=\"{}\"", backoff.count(), r.error);
            wait = backoff;
            backoff = std::min(backoff * 2, std::chrono::seconds(30));
        }
        timer.expires_after(wait);
        co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    }
}

void CertificateKeeper::stop() noexcept {
    impl_->stopping = true;
    if (impl_->timer) impl_->timer->cancel();
}

bool CertificateKeeper::loaded() const noexcept { return !impl_->loaded_cert.empty(); }

const std::string& CertificateKeeper::published_bundle() const noexcept { return impl_->published; }

}  // namespace attune::webhook
