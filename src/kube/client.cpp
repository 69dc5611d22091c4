#include <attune/kube/client.hpp>

#include <attune/kube/list_decoder.hpp>
#include <attune/kube/pod_protobuf.hpp>
#include <attune/kube/request_queue.hpp>
#include <attune/kube/token_bucket.hpp>
#include <attune/kube/watch_scope.hpp>

#include <attune/core/util/json_path.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include <spdlog/spdlog.h>

#include <random>

namespace attune::kube {
namespace asio = boost::asio;
namespace json = boost::json;
using Steady = std::chrono::steady_clock;

std::string_view content_type(PatchType p) noexcept {
    switch (p) {
        case PatchType::JsonMerge: return "application/merge-patch+json";
        case PatchType::StrategicMerge: return "application/strategic-merge-patch+json";
        case PatchType::JsonPatch: return "application/json-patch+json";
        case PatchType::Apply: return "application/apply-patch+yaml";
    }
    return "application/merge-patch+json";
}

namespace {

asio::awaitable<void> sleep_for(const asio::any_io_executor& ex, std::chrono::nanoseconds d) {
    if (d <= std::chrono::nanoseconds::zero()) co_return;
    asio::steady_timer t(ex);
    t.expires_after(d);
    co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
}

ApiResult<json::value> parse_json(http::Response&& resp) {
    boost::system::error_code ec;
    json::value v = json::parse(resp.body, ec);
    if (ec) {
        ApiError e;
        e.kind = ErrorKind::Decode;
        e.code = static_cast<int>(resp.status);
        e.message = ec.message();
        return e;
    }
    return v;
}

unsigned long long pick_seed(unsigned long long s) {
    if (s != 0) return s;
    std::random_device rd;
    return (static_cast<unsigned long long>(rd()) << 32) ^ rd();
}

}  // namespace

struct Client::impl : std::enable_shared_from_this<impl> {
    impl(asio::any_io_executor e, RestConfig c, ClientSettings st, std::shared_ptr<KubeMetrics> m)
        : ex(std::move(e)), cfg(std::move(c)), s(st), metrics(m ? std::move(m) : KubeMetrics::standalone()),
          http(ex, cfg.host, cfg.port, cfg.tls, s.transport), bucket(s.qps, s.burst, Steady::now()),
          rnd(make_random_source(pick_seed(s.seed))), queue(ex, s.max_inflight, s.max_queued, metrics.get()) {}

    asio::any_io_executor ex;
    RestConfig cfg;
    ClientSettings s;
    std::shared_ptr<KubeMetrics> metrics;
    http::HttpsClient http;
    TokenBucket bucket;
    RandomSource rnd;
    RequestQueue queue;
    bool stopped = false;
    WriteFence fence;
    // The lease's own connection (direct()); replaced after a deadline abort.
    std::shared_ptr<http::HttpsClient> direct_http;

    // A TokenReview or SubjectAccessReview is a question, not a write: it
    // stores nothing, so a standby may ask it (its secure /metrics does).
    static bool is_review(std::string_view target) {
        target = target.substr(0, target.find('?'));
        for (std::string_view suffix : {"/apis/authentication.k8s.io/v1/tokenreviews",
                                        "/apis/authorization.k8s.io/v1/subjectaccessreviews"})
            if (target.size() >= suffix.size() && target.substr(target.size() - suffix.size()) == suffix) return true;
        return false;
    }

    bool fenced(const http::Request& req) const {
        return req.method != http::Verb::Get && !(req.method == http::Verb::Post && is_review(req.target)) && fence &&
               !fence(Steady::now());
    }

    NamespaceFence ns_fence;

    std::optional<ApiError> outside_scope(const http::Request& req) const {
        if (!ns_fence) return std::nullopt;
        const auto ns = namespace_of_path(req.target);
        if (!ns || ns_fence(*ns)) return std::nullopt;
        return ApiError{ErrorKind::OutOfScope, 0, "OutOfScope",
                        "request refused: namespace " + *ns + " is not one of --watch-namespaces"};
    }

    static ApiError fenced_error() {
        return ApiError{ErrorKind::Fenced, 0, "Fenced", "write refused: this manager does not hold the leader lease"};
    }

    // The TLS client identity the transports present: the generation of the
    // credential whose certificate they were last given (0: the static one).
    std::uint64_t identity_generation = 0;
    std::string identity_cert, identity_key;  // that certificate, for a transport made later

    // Puts the current credential on `req` (and its certificate, when it has
    // one, on the transports). `generation` receives the credential's, for a
    // 401 to name. An error: no credential could be had before `deadline`.
    asio::awaitable<std::optional<ApiError>> authorize(http::Request& req, std::uint64_t& generation,
                                                       Steady::time_point deadline) {
        std::erase_if(req.headers, [](const http::Header& h) { return h.name == "Authorization"; });
        generation = 0;
        if (!cfg.credentials) co_return std::nullopt;
        auto keep = cfg.credentials;
        auto got = co_await keep->get(ex, deadline);
        if (!got.value) co_return ApiError{ErrorKind::Credentials, 0, "", got.error};
        const Credential& c = *got.value;
        generation = c.generation;
        if (!c.client_cert_pem.empty() && c.generation != identity_generation) {
            try {
                http.set_client_identity(c.client_cert_pem, c.client_key_pem);
                if (direct_http) direct_http->set_client_identity(c.client_cert_pem, c.client_key_pem);
            } catch (const std::exception& e) {
                co_return ApiError{ErrorKind::Credentials, 0, "", e.what()};
            }
            identity_generation = c.generation;
            identity_cert = c.client_cert_pem;
            identity_key = c.client_key_pem;
        }
        if (!c.token.empty()) req.headers.push_back({"Authorization", "Bearer " + c.token});
        co_return std::nullopt;
    }

    // A 401 for a request sent with `generation`: true when the credential
    // source can offer another one, so the request is worth one more try.
    bool refused(std::uint64_t generation, const http::Request& req) {
        if (!cfg.credentials || stopped) return false;
        const bool again = cfg.credentials->refused(generation);
        spdlog::info("kube request unauthorized path={} retry_with_fresh_credential={}", req.target, again);
        return again;
    }

    asio::awaitable<void> rate_limit() {
        auto wait = bucket.reserve(Steady::now());
        metrics->rate_limiter_wait.Observe(std::chrono::duration<double>(wait).count());
        co_await sleep_for(ex, wait);
    }

    // `rate_limited` false: a continuation page of a paged LIST. The list's
    // first page took a token; its other pages follow one at a time, each
    // after the previous answer, so they cannot burst, and charging each one
    // made 10,000 pods (20 pages) wait about 0.5 s behind the startup burst.
    asio::awaitable<ApiResult<http::Response>> execute(http::Request req, std::string verb_label, http::BodySink sink,
                                                       bool rate_limited) {
        auto self = shared_from_this();
        const auto start = Steady::now();
        auto finish = [&] {
            metrics->observe_duration(verb_label, std::chrono::duration<double>(Steady::now() - start).count());
        };
        if (stopped) co_return ApiError::from_transport(http::Failure::Cancelled, "client shut down");
        if (fenced(req)) co_return fenced_error();
        if (auto e = outside_scope(req)) {
            spdlog::error("kube request outside the watched namespaces refused verb={} path={}", verb_label, req.target);
            co_return *e;
        }
        auto slot = co_await queue.acquire();
        if (!slot) {
            ApiError e;
            e.kind = stopped ? ErrorKind::Cancelled : ErrorKind::QueueFull;
            e.message = "max_queued=" + std::to_string(s.max_queued);
            co_return e;
        }
        req.target = cfg.path_prefix + req.target;
        if (!http::find_header(req.headers, "Accept")) req.headers.push_back({"Accept", "application/json"});

        bool reauthorized = false;  // one retry after a 401, with a fresh credential
        for (unsigned retries = 0;; ++retries) {
            if (rate_limited || retries > 0) co_await rate_limit();  // every attempt, retries included
            // Leadership can lapse while queued, rate limited or backing off.
            if (fenced(req)) {
                finish();
                auto e = fenced_error();
                e.attempts = retries;
                co_return e;
            }
            std::uint64_t generation = 0;
            auto denied = co_await authorize(req, generation, Steady::time_point::max());
            if (denied) {
                finish();
                denied->attempts = retries;
                co_return std::move(*denied);
            }
            // (No co_await inside ?: : GCC 12 miscompiles it.)
            http::ExchangeResult r;
            if (sink) r = co_await http.send(req, sink);
            else r = co_await http.send(req);
            metrics->count_request(verb_label, r.ok() ? r.resp.status : 0);
            if (r.ok() && r.resp.status >= 200 && r.resp.status < 300) {
                finish();
                co_return std::move(r.resp);
            }
            // A 401 carries no body for the sink, so even a streamed list may go again.
            if (r.ok() && r.resp.status == 401 && !reauthorized && refused(generation, req)) {
                reauthorized = true;
                continue;
            }
            AttemptOutcome o;
            o.method = req.method;
            o.transport = r.kind;
            o.request_sent = r.request_sent;
            o.replay_safe = req.replay_safe;
            o.status = r.resp.status;
            if (r.ok()) o.retry_after = r.resp.header_value("Retry-After");
            // Part of a streamed body was consumed: a replay would hand the
            // caller the same items twice, so the caller decides.
            const auto d = stopped || r.body_started ? RetryDecision{} : decide_retry(s.retry, o, retries, rnd);
            if (!d.retry) {
                finish();
                ApiError e = r.ok() ? ApiError::from_response(r.resp.status, r.resp.body)
                                    : ApiError::from_transport(r.kind, r.ec.message());
                e.attempts = retries + 1;
                if (o.retry_after) e.retry_after = parse_retry_after(*o.retry_after);
                co_return e;
            }
            metrics->retries.Add({{"reason", std::string(d.reason)}}).Increment();
            // A timed-out list is worth seeing: it is what a slow or overloaded apiserver looks like.
            const auto level = verb_label == "list" && o.transport == http::Failure::Timeout ? spdlog::level::info
                                                                                             : spdlog::level::debug;
            spdlog::log(level, "kube request retry verb={} path={} status={} failure={} retry={} delay_ms={}", verb_label,
                          req.target, o.status, http::to_string(o.transport), retries + 1, d.delay.count());
            co_await sleep_for(ex, d.delay);
        }
    }
};

Client::Client(asio::any_io_executor ex, RestConfig cfg, ClientSettings settings, std::shared_ptr<KubeMetrics> metrics)
    : impl_(std::make_shared<impl>(std::move(ex), std::move(cfg), settings, std::move(metrics))) {}

Client::~Client() {
    if (impl_) impl_->http.close_idle();
}

KubeMetrics& Client::metrics() noexcept { return *impl_->metrics; }
const RestConfig& Client::config() const noexcept { return impl_->cfg; }
http::PoolStats Client::pool() const noexcept { return impl_->http.stats(); }
std::uint64_t Client::rate_limiter_reservations() const noexcept { return impl_->bucket.reservations(); }

void Client::shutdown() noexcept {
    impl_->stopped = true;
    impl_->queue.shutdown();
    impl_->http.abort_all();
    if (impl_->direct_http) impl_->direct_http->abort_all();
}

void Client::set_write_fence(WriteFence fence) { impl_->fence = std::move(fence); }
void Client::set_namespace_fence(NamespaceFence fence) { impl_->ns_fence = std::move(fence); }

Client::Task<Client::JsonResult> Client::direct(http::Verb method, std::string path, std::optional<json::value> body,
                                                std::chrono::milliseconds deadline, std::string verb_label) {
    auto self = impl_;
    if (self->stopped) co_return ApiError::from_transport(http::Failure::Cancelled, "client shut down");
    if (!self->direct_http) {
        http::ClientOptions o = self->s.transport;
        o.max_connections = 1;
        o.limits.connect = o.limits.handshake = o.limits.write = o.limits.read = o.limits.pool_wait = deadline;
        self->direct_http =
            std::make_shared<http::HttpsClient>(self->ex, self->cfg.host, self->cfg.port, self->cfg.tls, o);
        if (!self->identity_cert.empty()) self->direct_http->set_client_identity(self->identity_cert, self->identity_key);
    }
    auto conn = self->direct_http;
    http::Request req;
    req.method = method;
    req.target = self->cfg.path_prefix + path;
    req.headers.push_back({"Accept", "application/json"});
    if (body) {
        req.headers.push_back({"Content-Type", "application/json"});
        req.body = json::serialize(*body);
    }
    std::uint64_t generation = 0;
    auto denied = co_await self->authorize(req, generation, Steady::now() + deadline);
    if (denied) co_return std::move(*denied);
    // Watchdog: the phases are bounded one by one; this bounds their sum.
    auto timer = std::make_shared<asio::steady_timer>(self->ex);
    auto fired = std::make_shared<bool>(false);
    timer->expires_after(deadline);
    timer->async_wait([conn, fired](boost::system::error_code ec) {
        if (ec) return;
        *fired = true;
        conn->abort_all();
    });
    const auto start = Steady::now();
    auto r = co_await conn->send(std::move(req));
    timer->cancel();
    if (*fired && self->direct_http == conn) self->direct_http.reset();  // aborted: the next call connects anew
    self->metrics->count_request(verb_label, r.ok() ? r.resp.status : 0);
    self->metrics->observe_duration(verb_label, std::chrono::duration<double>(Steady::now() - start).count());
    if (*fired) co_return ApiError::from_transport(http::Failure::Timeout, "deadline passed");
    if (!r.ok()) co_return ApiError::from_transport(r.kind, r.ec.message());
    // Not retried within this deadline-bound call; the next one has a fresh credential.
    if (r.resp.status == 401) self->refused(generation, req);
    if (r.resp.status < 200 || r.resp.status >= 300) co_return ApiError::from_response(r.resp.status, r.resp.body);
    co_return parse_json(std::move(r.resp));
}

Client::Task<ApiResult<http::Response>> Client::execute(http::Request req, std::string verb_label) {
    auto keep = impl_;
    auto r = co_await keep->execute(std::move(req), std::move(verb_label), http::BodySink(), true);
    co_return r;
}

Client::Task<ApiResult<http::Response>> Client::execute(http::Request req, std::string verb_label,
                                                        http::BodySink sink) {
    auto keep = impl_;
    auto r = co_await keep->execute(std::move(req), std::move(verb_label), std::move(sink), true);
    co_return r;
}

Client::Task<Client::JsonResult> Client::get_path(std::string path_and_query) {
    http::Request req;
    req.method = http::Verb::Get;
    req.target = std::move(path_and_query);
    auto r = co_await execute(std::move(req), "get");
    if (!r) co_return r.error();
    co_return parse_json(std::move(r).value());
}

Client::Task<Client::JsonResult> Client::get(ResourceType rt, std::string ns, std::string name,
                                             std::string subresource) {
    std::string path = object_path(rt, ns, name, subresource);
    auto r = co_await get_path(std::move(path));
    co_return r;
}

Client::Task<ApiResult<ListPage>> Client::list_stream(ResourceType rt, std::string ns, ListOptions opts,
                                                      ListItemSink sink) {
    Query q;
    q.add("labelSelector", opts.label_selector)
        .add("fieldSelector", opts.field_selector)
        .add("continue", opts.continue_token)
        .add("resourceVersion", opts.resource_version)
        .add("resourceVersionMatch", opts.resource_version_match);
    if (opts.limit > 0) q.add("limit", opts.limit);
    http::Request req;
    req.target = collection_path(rt, ns) + q.encode();
    if (opts.protobuf_items)
        req.headers.push_back({"Accept", "application/vnd.kubernetes.protobuf, application/json"});
    // The body's first byte says which encoding the server chose ("k8s\0" or "{").
    std::optional<ListDecoder> from_json;
    std::optional<ProtobufListDecoder> from_protobuf;
    auto feed = [&](std::string_view piece) {
        if (!from_json && !from_protobuf) {
            if (piece.empty()) return true;
            if (opts.protobuf_items && piece.front() == kProtobufMagic.front()) from_protobuf.emplace(opts.protobuf_items, sink);
            else from_json.emplace(sink);
        }
        return from_protobuf ? from_protobuf->feed(piece) : from_json->feed(piece);
    };
    auto keep = impl_;
    const bool first_page = opts.continue_token.empty();
    auto r = co_await keep->execute(std::move(req), "list", feed, first_page);
    if (!r) co_return r.error();  // HTTP status or transport, possibly after some items
    if (!from_json && !from_protobuf) from_json.emplace(sink);  // an empty body: the JSON decoder says so
    // Both decoders answer the same questions.
    auto page_of = [](auto& decoder, bool protobuf) -> ApiResult<ListPage> {
        if (!decoder.finish() || !decoder.error().empty()) return ApiError{ErrorKind::Decode, 200, "", decoder.error()};
        ListPage page;
        page.resource_version = decoder.resource_version();
        page.continue_token = decoder.continue_token();
        page.item_count = decoder.items();
        page.protobuf = protobuf;
        return page;
    };
    if (from_protobuf) co_return page_of(*from_protobuf, true);
    co_return page_of(*from_json, false);
}

Client::Task<ApiResult<ListPage>> Client::list(ResourceType rt, std::string ns, ListOptions opts) {
    ListPage collected;
    auto sink = [&collected](json::value&& item) { collected.items.push_back(std::move(item)); };
    auto page = co_await list_stream(std::move(rt), std::move(ns), std::move(opts), sink);
    if (!page) co_return page.error();
    collected.resource_version = std::move(page->resource_version);
    collected.continue_token = std::move(page->continue_token);
    collected.item_count = page->item_count;
    co_return collected;
}

Client::Task<ApiResult<ListPage>> Client::list_all(ResourceType rt, std::string ns, ListOptions opts) {
    ListPage all;
    bool restarted = false;
    const ListOptions first = opts;
    for (;;) {
        auto page = co_await list(rt, ns, opts);
        if (!page) {
            // The continue token's snapshot expired mid-way: start over once.
            if (page.error().is_gone() && !opts.continue_token.empty() && !restarted) {
                restarted = true;
                all = {};
                opts = first;
                opts.continue_token.clear();
                opts.resource_version.clear();
                continue;
            }
            co_return page.error();
        }
        for (auto& it : page->items) all.items.push_back(std::move(it));
        all.resource_version = page->resource_version;
        if (page->continue_token.empty()) co_return all;
        opts.continue_token = page->continue_token;
        // resourceVersion must not be combined with continue.
        opts.resource_version.clear();
        opts.resource_version_match.clear();
    }
}

namespace {
Query write_query(const WriteOptions& wo, bool apply) {
    Query q;
    q.add("fieldManager", wo.field_manager);
    if (apply && wo.force) q.add("force", "true");
    if (wo.dry_run) q.add("dryRun", "All");
    return q;
}
}  // namespace

Client::Task<Client::JsonResult> Client::create(ResourceType rt, std::string ns, json::value obj, WriteOptions wo) {
    http::Request req;
    req.method = http::Verb::Post;
    req.target = collection_path(rt, ns) + write_query(wo, false).encode();
    req.headers.push_back({"Content-Type", "application/json"});
    req.body = json::serialize(obj);
    req.replay_safe = wo.replay_safe;
    auto r = co_await execute(std::move(req), "create");
    if (!r) co_return r.error();
    co_return parse_json(std::move(r).value());
}

Client::Task<Client::JsonResult> Client::update(ResourceType rt, std::string ns, std::string name, json::value obj,
                                                std::string subresource, WriteOptions wo) {
    http::Request req;
    req.method = http::Verb::Put;
    req.target = object_path(rt, ns, name, subresource) + write_query(wo, false).encode();
    req.headers.push_back({"Content-Type", "application/json"});
    req.body = json::serialize(obj);
    auto r = co_await execute(std::move(req), "update");
    if (!r) co_return r.error();
    co_return parse_json(std::move(r).value());
}

Client::Task<Client::JsonResult> Client::patch(ResourceType rt, std::string ns, std::string name, PatchType type,
                                               std::string body, std::string subresource, WriteOptions wo) {
    if (type == PatchType::Apply && wo.field_manager.empty()) {
        co_return ApiError{ErrorKind::Decode, 0, "", "server-side apply needs a field manager"};
    }
    http::Request req;
    req.method = http::Verb::Patch;
    req.target = object_path(rt, ns, name, subresource) + write_query(wo, type == PatchType::Apply).encode();
    req.headers.push_back({"Content-Type", std::string(content_type(type))});
    req.body = std::move(body);
    auto r = co_await execute(std::move(req), "patch");
    if (!r) co_return r.error();
    co_return parse_json(std::move(r).value());
}

Client::Task<Client::JsonResult> Client::remove(ResourceType rt, std::string ns, std::string name, DeleteOptions d) {
    json::object body{{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
    if (!d.propagation_policy.empty()) body["propagationPolicy"] = d.propagation_policy;
    if (d.grace_period_seconds) body["gracePeriodSeconds"] = *d.grace_period_seconds;
    if (!d.precondition_uid.empty() || !d.precondition_resource_version.empty()) {
        json::object pre;
        if (!d.precondition_uid.empty()) pre["uid"] = d.precondition_uid;
        if (!d.precondition_resource_version.empty()) pre["resourceVersion"] = d.precondition_resource_version;
        body["preconditions"] = std::move(pre);
    }
    http::Request req;
    req.method = http::Verb::Del;
    req.target = object_path(rt, ns, name);
    req.headers.push_back({"Content-Type", "application/json"});
    req.body = json::serialize(body);
    auto r = co_await execute(std::move(req), "delete");
    if (!r) co_return r.error();
    co_return parse_json(std::move(r).value());
}

Client::Task<ApiResult<std::unique_ptr<http::BodyStream>>> Client::watch(ResourceType rt, std::string ns,
                                                                         WatchOptions wo) {
    auto& self = *impl_;
    auto keep = impl_;
    if (self.stopped) co_return ApiError::from_transport(http::Failure::Cancelled, "client shut down");
    Query q;
    q.add("watch", "1");
    if (wo.send_initial_events) q.add("sendInitialEvents", "true");
    q.add("resourceVersion", wo.resource_version)
        .add("resourceVersionMatch", wo.resource_version_match)
        .add("labelSelector", wo.label_selector)
        .add("fieldSelector", wo.field_selector);
    if (wo.allow_bookmarks) q.add("allowWatchBookmarks", "true");
    if (wo.timeout_seconds > 0) q.add("timeoutSeconds", wo.timeout_seconds);
    http::Request req;
    req.target = collection_path(rt, ns) + q.encode();
    if (auto e = self.outside_scope(req)) {
        spdlog::error("kube request outside the watched namespaces refused verb=watch path={}", req.target);
        co_return *e;
    }
    req.target = self.cfg.path_prefix + req.target;
    req.headers.push_back({"Accept", "application/json"});
    // The server ends the stream after timeoutSeconds and sends bookmarks
    // meanwhile; silence well beyond that means the connection is dead.
    auto idle = self.s.watch_idle_timeout;
    if (idle.count() <= 0) idle = std::chrono::seconds(wo.timeout_seconds > 0 ? wo.timeout_seconds + 30 : 330);
    http::StreamResult r;
    for (bool reauthorized = false;;) {
        // Watches skip the request queue (they live for minutes) but not the rate limiter.
        co_await self.rate_limit();
        std::uint64_t generation = 0;
        auto denied = co_await self.authorize(req, generation, Steady::time_point::max());
        if (denied) co_return std::move(*denied);
        r = co_await self.http.open_stream(req, idle);
        self.metrics->count_request("watch", r.kind == http::Failure::None ? r.status : 0);
        if (r.kind == http::Failure::None && r.status == 401 && !reauthorized && self.refused(generation, req)) {
            reauthorized = true;
            continue;
        }
        break;
    }
    if (r.kind != http::Failure::None) co_return ApiError::from_transport(r.kind, r.ec.message());
    if (r.status != 200) {
        auto e = ApiError::from_response(r.status, r.error_body);
        if (auto ra = http::find_header(r.headers, "Retry-After")) e.retry_after = parse_retry_after(*ra);
        co_return e;
    }
    co_return std::move(r.stream);
}

}  // namespace attune::kube
