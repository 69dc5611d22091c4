#include <attune/controller/pull_request_exporter.hpp>

#include <attune/controller/workload_snapshot.hpp>
#include <attune/core/followups/forge_session.hpp>
#include <attune/core/followups/recommended_manifest.hpp>
#include <attune/core/recommend/workload_baseline.hpp>
#include <attune/core/util/json_path.hpp>
#include <attune/kube/forge_client.hpp>
#include <attune/kube/yaml_json.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>

namespace attune::controller {
namespace asio = boost::asio;
namespace json = boost::json;

namespace {

std::string policy_id(const std::string& ns, const std::string& name) { return ns + "/" + name; }

std::string default_api_url(std::string_view provider) {
    return provider == "gitlab" ? "https://gitlab.com/api/v4" : "https://api.github.com";
}

// The forge may echo what it was sent: a message never carries the token.
std::string redact(std::string text, const std::string& token) {
    if (token.empty()) return text;
    for (auto at = text.find(token); at != std::string::npos; at = text.find(token, at)) text.replace(at, token.size(), "[redacted]");
    return text;
}

// Braced lists stay out of the coroutines below: GCC 12 miscompiles some
// in a coroutine frame ("array used as initializer").
std::string annotation_of(const json::value& policy, std::string_view key) {
    return std::string(core::string_at(policy, {"metadata", "annotations", key}));
}

std::int64_t generation_of(const json::value& policy) {
    return core::int_at(policy, {"metadata", "generation"}).value_or(0);
}

// The merge patch of the policy's annotations an attempt sets.
std::string annotation_patch(const core::PullRequestRecord& r) {
    json::object ann{{std::string(core::kPullRequestLastAttemptAnnotation), core::format_timestamp(*r.last_attempt)}};
    if (!r.url.empty()) ann[std::string(core::kPullRequestUrlAnnotation)] = r.url;
    return json::serialize(json::object{{"metadata", json::object{{"annotations", std::move(ann)}}}});
}

// One workload of the policy that drifted, with what its file needs (the
// object as the apiserver serves it, read just before the calls).
struct Drifted {
    const StoredRecommendation* entry = nullptr;
    kube::ObjectCache::ObjectPtr workload;
    std::string path;
};

// The file's new content: its documents with the recommendation written on
// the workload's, or, for a file the repository lacks, the workload's
// manifest as kubectl attune export writes it.
core::Result<std::string> edit_file(const Drifted& d, const std::optional<std::string>& current) {
    const bool as_json = d.path.ends_with(".json");
    std::vector<json::value> docs;
    if (current) {
        if (as_json) {
            boost::system::error_code ec;
            auto v = json::parse(*current, ec);
            if (ec) return core::make_error("invalid_manifest", "not JSON: " + ec.message());
            docs.push_back(std::move(v));
        } else {
            auto parsed = kube::parse_yaml_documents(*current);
            if (!parsed) return parsed.error();
            docs = std::move(parsed).value();
        }
    } else {
        docs.push_back(core::clean_manifest(*d.workload));
    }
    const core::StatusRecommendation rec{d.entry->workload.name, d.entry->workload.kind, d.entry->recommendation};
    auto edited = core::apply_to_documents(std::move(docs), d.entry->workload.ns, rec, *d.entry->effective);
    if (!edited) return edited.error();
    std::string out;
    if (as_json) return json::serialize(edited.value().front()) + "\n";
    const bool many = edited.value().size() > 1;
    for (const auto& doc : edited.value()) out += (many ? "---\n" : "") + kube::to_yaml(doc);
    return out;
}

}  // namespace

PullRequestExporter::PullRequestExporter(asio::any_io_executor ex, kube::Client& client,
                                         const policy::CacheViews& caches, const RecommendationStore& store,
                                         StatusAggregator& aggregator, EventQueue& events, ControllerMetrics* metrics,
                                         SecretReader* secrets, Resolve resolve, WallClock now,
                                         PullRequestOptions opts)
    : client_(client), caches_(caches), store_(store), aggregator_(aggregator), events_(events), metrics_(metrics),
      secrets_(secrets), resolve_(std::move(resolve)), now_(std::move(now)), opts_(std::move(opts)), ex_(ex),
      wake_(ex, asio::steady_timer::time_point::max()) {}

void PullRequestExporter::policy_changed(const std::string& ns, const std::string& policy) {
    if (stopping_) return;
    if (queued_.insert({ns, policy}).second) order_.emplace_back(ns, policy);
    wake_.cancel();
}

void PullRequestExporter::stop() {
    stopping_ = true;
    wake_.cancel();
}

asio::awaitable<void> PullRequestExporter::run() {
    while (!stopping_) {
        if (order_.empty()) {
            wake_.expires_at(asio::steady_timer::time_point::max());
            co_await wake_.async_wait(asio::as_tuple(asio::use_awaitable));
            continue;
        }
        auto next = order_.front();
        order_.pop_front();
        queued_.erase(next);
        co_await look_at(next.first, next.second);
    }
}

void PullRequestExporter::publish(const std::string& ns, const std::string& policy, Memory& m,
                                  std::optional<core::Condition> c) {
    m.condition = c;
    aggregator_.set_pull_request(ns, policy, PullRequestStatus{std::move(c), m.record});
}

void PullRequestExporter::note_attempt(const kube::ObjectCache::ObjectPtr& policy, Memory& m,
                                       const core::PullRequestOutcome& o) {
    const auto ns = std::string(kube::meta_string(*policy, "namespace"));
    const auto name = std::string(kube::meta_string(*policy, "name"));
    m.record = o.record;
    if (metrics_) metrics_->gitops_pr.Add({{"namespace", ns}, {"policy", name}, {"result", o.metric_result}}).Increment();
    const auto event_id = o.event.reason + "\n" + o.event.note;
    if (event_id != m.event) {
        m.event = event_id;
        events_.push(policy_event(policy_reference(policy), o.event,
                                  annotation_of(*policy, core::kSuppressWarningsAnnotation)));
    }
    publish(ns, name, m, o.condition);
}

asio::awaitable<void> PullRequestExporter::record_attempt(kube::ObjectCache::ObjectPtr policy, Memory& m,
                                                          core::PullRequestOutcome o) {
    note_attempt(policy, m, o);
    const auto ns = std::string(kube::meta_string(*policy, "namespace"));
    const auto name = std::string(kube::meta_string(*policy, "name"));
    // The cooldown's anchor survives a restart in the annotations, as the Go Attune keeps it.
    auto r = co_await client_.patch(kube::resources::attune_policies(), ns, name, kube::PatchType::JsonMerge,
                                    annotation_patch(o.record));
    if (!r && !r.error().is_fenced())
        spdlog::warn("pull request annotations not written namespace={} policy={} error=\"{}\"", ns, name,
                     r.error().message);
}

asio::awaitable<void> PullRequestExporter::look_at(const std::string& ns, const std::string& name) {
    const auto id = policy_id(ns, name);
    const auto policy = caches_.policies ? caches_.policies->get(id) : nullptr;
    if (!policy) {
        memory_.erase(id);
        co_return;
    }
    auto& m = memory_[id];
    if (!m.record) m.record = core::pull_request_record_from(*policy);
    if (!m.condition) {
        if (const auto* st = aggregator_.latest(ns, name))
            if (const auto* c = core::find_condition(st->conditions, core::kConditionGitOpsPullRequest)) m.condition = *c;
    }
    const auto effective = resolve_ ? resolve_(policy) : nullptr;
    const auto* settings = effective && effective->update_strategy.export_.pull_request
                               ? &*effective->update_strategy.export_.pull_request
                               : nullptr;
    const auto generation = generation_of(*policy);

    // The drift of every workload of the policy that has a recommendation, in workload order.
    std::vector<core::ResourceDrift> drifts;
    std::vector<Drifted> drifted;
    std::string path_error;
    const auto path_template = annotation_of(*policy, core::kPullRequestPathAnnotation);
    for (const auto* e : store_.in_namespace(ns)) {
        if (!settings || e->policy != name || !e->effective) continue;
        const auto* cache = caches_.for_kind(e->workload.kind);
        auto workload = cache ? cache->get(e->workload.cache_key()) : nullptr;
        if (!workload) continue;
        auto tmpl = core::decode_pod_template(e->workload.kind, *workload);
        if (!tmpl) continue;
        auto d = core::request_drift(e->workload.kind, e->workload.name, tmpl.value(), e->recommendation,
                                     settings->min_change_percent);
        if (d.empty()) continue;
        auto path = core::manifest_path(path_template, ns, e->workload.kind, e->workload.name);
        if (!path && path_error.empty()) path_error = path.error().message;
        drifted.push_back(Drifted{e, std::move(workload), path ? path.value() : std::string()});
        drifts.insert(drifts.end(), d.begin(), d.end());
    }

    core::PullRequestInputs in;
    in.settings = settings;
    in.mode = effective ? effective->update_strategy.type : core::UpdateMode::Observe;
    in.drifts = drifts;
    in.last = m.record;
    in.current = m.condition ? &*m.condition : nullptr;
    in.now = now_();
    in.generation = generation;
    const auto decision = core::decide_pull_request(in);
    if (decision.step == core::PullRequestStep::Clear) {
        if (m.condition) publish(ns, name, m, std::nullopt);
        co_return;
    }
    if (decision.step == core::PullRequestStep::Report) {
        if (!m.condition || *m.condition != *decision.condition) publish(ns, name, m, decision.condition);
        co_return;
    }

    core::PullRequestAttempt attempt;
    attempt.settings = settings;
    attempt.branch = core::pull_request_branch(ns, name);
    attempt.drifts = drifts.size();
    attempt.fingerprint = decision.fingerprint;
    attempt.last = m.record;
    attempt.now = in.now;
    attempt.generation = generation;
    for (const auto& d : drifted) attempt.files.push_back(d.path);
    if (!path_error.empty()) {
        co_await record_attempt(policy, m, core::failed_outcome(attempt, path_error));
        co_return;
    }
    if (decision.step == core::PullRequestStep::DryRun) {
        spdlog::info("pull request dry run namespace={} policy={} provider={} repository={} branch={} base={} "
                     "drifts={} files={}",
                     ns, name, settings->provider, settings->repository, attempt.branch, settings->base_branch,
                     drifts.size(), attempt.files.size());
        co_await record_attempt(policy, m, core::dry_run_outcome(attempt));
        co_return;
    }

    // Send: the token, the client, then the calls one by one.
    auto failed = [&](const std::string& why) { return core::failed_outcome(attempt, why); };
    if (!secrets_) {
        co_await record_attempt(policy, m,
                                failed("export.pullRequest.tokenSecretRef needs Secret reads, which are off: apply the "
                                       "kustomize component deploy/kustomize/components/secret-reads and start the "
                                       "manager with --allow-secret-reads"));
        co_return;
    }
    if (!settings->token_secret_ref) {
        co_await record_attempt(policy, m, failed("export.pullRequest.tokenSecretRef is not set"));
        co_return;
    }
    auto token = co_await secrets_->read(ns, settings->token_secret_ref->name, settings->token_secret_ref->key);
    if (!token) {
        co_await record_attempt(policy, m, failed("the token: " + token.error().message));
        co_return;
    }
    kube::ForgeSettings fs;
    fs.api_url = settings->api_url.empty() ? default_api_url(settings->provider) : settings->api_url;
    while (fs.api_url.ends_with('/')) fs.api_url.pop_back();
    fs.token = token.value();
    fs.provider = settings->provider == "gitlab" ? core::ForgeProvider::GitLab : core::ForgeProvider::GitHub;
    fs.http.ca_file = opts_.ca_file;
    fs.http.query_timeout = opts_.request_timeout;
    fs.http.max_connections = 1;
    fs.http.max_response_bytes = 4u << 20;
    fs.http.endpoint_filter = [allow_local = opts_.allow_local_addresses,
                               allow_private = settings->allow_private_endpoints](std::string_view ip) {
        return core::check_forge_address(ip, allow_local, allow_private);
    };
    auto client = kube::ForgeClient::create(ex_, fs);
    if (!client) {
        co_await record_attempt(policy, m, failed(client.error().message));
        co_return;
    }

    // A file the repository lacks is created from the live object: the
    // cache keeps only what the manager reads (no image, no env).
    for (auto& d : drifted) {
        auto rt = kube::workload_resource(d.entry->workload.kind);
        if (!rt) continue;
        auto live = co_await client_.get(rt.value(), ns, d.entry->workload.name);
        if (!live) {
            co_await record_attempt(policy, m,
                                    failed("reading " + d.entry->workload.kind + " " + d.entry->workload.name + ": " +
                                           live.error().message));
            co_return;
        }
        d.workload = std::make_shared<const json::value>(std::move(live).value());
    }

    core::ForgeSessionInputs si;
    si.provider = fs.provider;
    si.repository = settings->repository;
    si.branch = attempt.branch;
    si.base = settings->base_branch;
    si.title = core::pull_request_title(ns, name);
    si.body = core::pull_request_body(ns, name, drifts, attempt.files);
    si.labels = settings->labels;
    si.commit_message = [ns, name](const std::string& path) { return core::pull_request_commit_message(ns, name, path); };
    for (const auto& d : drifted)
        si.files.push_back({d.path, [d](const std::optional<std::string>& current) { return edit_file(d, current); }});
    core::ForgeSession session(std::move(si));
    auto step = session.start();
    int calls = 0;
    while (auto* req = std::get_if<core::ForgeRequest>(&step)) {
        // Bounded: a session makes a few calls per file, never an endless exchange.
        if (++calls > 8 + 3 * static_cast<int>(drifted.size())) {
            step = core::ForgeFailed{std::string("too many calls"), 0};
            break;
        }
        spdlog::debug("forge call namespace={} policy={} method={} target={}", ns, name, req->method, req->target);
        auto answer = co_await client.value()->send(*req);
        if (stopping_) {
            client.value()->shutdown();
            co_return;
        }
        if (!answer) {
            step = core::ForgeFailed{req->what + ": " + answer.error().message, 0};
            break;
        }
        step = session.on_answer(answer.value().status, answer.value().body);
    }
    client.value()->shutdown();
    if (const auto* f = std::get_if<core::ForgeFailed>(&step)) {
        const auto msg = redact(f->message, token.value());
        spdlog::warn("pull request failed namespace={} policy={} provider={} repository={} error=\"{}\"", ns, name,
                     settings->provider, settings->repository, msg);
        co_await record_attempt(policy, m, failed(msg));
        co_return;
    }
    const auto& done = std::get<core::ForgeDone>(step);
    spdlog::info("pull request {} namespace={} policy={} provider={} repository={} url={} files_committed={}",
                 done.updated ? "updated" : "opened", ns, name, settings->provider, settings->repository, done.url,
                 done.committed.size());
    co_await record_attempt(policy, m, core::sent_outcome(attempt, done.url, done.updated));
}

}  // namespace attune::controller
