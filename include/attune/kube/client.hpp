#pragma once
// The apiserver client: verbs over one HTTPS host, with the bounded request
// queue, token-bucket rate limiting and the retry policy applied to every
// request. Expected outcomes (404, 409, 410, 429 after retries, transport
// failures) come back as ApiError in ApiResult; nothing here throws for I/O.
#include <attune/http/https_client.hpp>
#include <attune/kube/api_error.hpp>
#include <attune/kube/backoff.hpp>
#include <attune/kube/metrics.hpp>
#include <attune/kube/protobuf_list_decoder.hpp>
#include <attune/kube/resource.hpp>
#include <attune/kube/rest_config.hpp>
#include <attune/kube/retry_policy.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace attune::kube {

// GCC 12 destroys a braced aggregate temporary twice when it lives across a
// co_await (e.g. `co_await c.list(rt, ns, ListOptions{...})`). Every value
// type that travels into a coroutine here therefore has a user-declared
// constructor, which makes it a non-aggregate and the bug unreachable.

struct ClientSettings {
    double qps = 5;   // --kube-qps (<= 0: unlimited)
    int burst = 10;   // --kube-burst
    // Requests on the wire at once; the rest wait in a queue bounded by
    // max_queued, beyond which calls fail fast with ErrorKind::QueueFull.
    std::size_t max_inflight = 16;
    std::size_t max_queued = 512;
    RetryOptions retry;
    http::ClientOptions transport;
    std::chrono::milliseconds watch_idle_timeout{0};  // 0: derived from timeoutSeconds
    unsigned long long seed = 0;                       // 0: seeded from random_device
};

enum class PatchType {
    JsonMerge,       // application/merge-patch+json
    StrategicMerge,  // application/strategic-merge-patch+json (use this for /resize)
    JsonPatch,       // application/json-patch+json (RFC 6902)
    Apply,           // server-side apply, application/apply-patch+yaml (JSON is valid YAML)
};

std::string_view content_type(PatchType p) noexcept;

struct ListOptions {
    ListOptions() = default;
    std::string label_selector;
    std::string field_selector;
    long long limit = 0;  // page size; 0: server default (everything)
    std::string continue_token;
    std::string resource_version;
    std::string resource_version_match;  // NotOlderThan | Exact
    // Set: ask for protobuf (JSON still accepted) and decode each item with
    // this (e.g. pod_from_protobuf). The answer's first byte tells which
    // encoding came; the sink sees the same JSON either way.
    ProtobufListDecoder::ItemDecoder protobuf_items;
};

struct ListPage {
    ListPage() = default;
    boost::json::array items;      // empty from list_stream (the items went to the sink)
    std::string resource_version;  // of the list (opaque)
    std::string continue_token;    // empty on the last page
    std::size_t item_count = 0;
    bool protobuf = false;  // the server answered in protobuf
};

// Receives each item of a streamed list page as soon as it is parsed.
using ListItemSink = std::function<void(boost::json::value&&)>;

struct WriteOptions {
    WriteOptions() = default;
    std::string field_manager = "attune";  // required for apply; recorded for other writes
    bool force = false;                     // apply only: take ownership of conflicting fields
    bool dry_run = false;
    // create only, for a body that names its object: replay after a lost
    // response (reset, timeout); the caller takes AlreadyExists as its own.
    bool replay_safe = false;
};

struct DeleteOptions {
    DeleteOptions() = default;
    std::string propagation_policy;  // Foreground | Background | Orphan
    std::string precondition_uid;
    std::string precondition_resource_version;
    std::optional<long long> grace_period_seconds;
};

struct WatchOptions {
    WatchOptions() = default;
    std::string resource_version;  // opaque; resume point
    std::string resource_version_match;  // NotOlderThan with send_initial_events
    std::string label_selector;
    std::string field_selector;
    long long timeout_seconds = 300;
    bool allow_bookmarks = true;
    // WatchList: the stream starts with the current state as ADDED events,
    // ended by a BOOKMARK annotated k8s.io/initial-events-end.
    bool send_initial_events = false;
};

// Asked before every attempt of every write (anything but GET), retries
// included: false refuses it with ErrorKind::fenced and nothing is sent.
// With --leader-elect the manager installs the elector's is_leader_at, so a
// leader whose lease renewal stalled stops writing at the renew deadline,
// even in the middle of a retry loop.
using WriteFence = std::function<bool(std::chrono::steady_clock::time_point)>;

// Asked before every request but direct() with the namespace its path names
// (namespace_of_path): false refuses it with ErrorKind::OutOfScope and
// nothing is sent. With --watch-namespaces the manager installs the watched
// namespaces (plus its own), so no read or write can leave them.
using NamespaceFence = std::function<bool(std::string_view ns)>;

class Client {
public:
    // Throws std::runtime_error when the TLS material in `cfg` is invalid.
    Client(boost::asio::any_io_executor ex, RestConfig cfg, ClientSettings settings = {},
           std::shared_ptr<KubeMetrics> metrics = nullptr);
    ~Client();
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;

    using JsonResult = ApiResult<boost::json::value>;
    template <class T>
    using Task = boost::asio::awaitable<T>;

    // Coroutine parameters of class type are taken by value and never
    // defaulted: the frame owns them, and GCC 12 mis-destroys defaulted
    // class-type arguments of coroutines. The shorter overloads forward.
    Task<JsonResult> get(ResourceType rt, std::string ns, std::string name, std::string subresource);
    Task<JsonResult> get(ResourceType rt, std::string ns, std::string name) {
        return get(std::move(rt), std::move(ns), std::move(name), std::string());
    }
    // One page; pass ListPage::continue_token back in ListOptions to go on.
    Task<ApiResult<ListPage>> list(ResourceType rt, std::string ns, ListOptions opts);
    // One page whose items are handed to `sink` one by one while the body is
    // read: neither the body nor the page is ever held whole. A failure after
    // some items went to the sink is not retried (the caller lists again).
    Task<ApiResult<ListPage>> list_stream(ResourceType rt, std::string ns, ListOptions opts, ListItemSink sink);
    // Every page, following continue tokens. A 410 on a continue token (the
    // snapshot expired) restarts from the beginning once.
    Task<ApiResult<ListPage>> list_all(ResourceType rt, std::string ns, ListOptions opts);
    Task<JsonResult> create(ResourceType rt, std::string ns, boost::json::value obj, WriteOptions wo);
    Task<JsonResult> create(ResourceType rt, std::string ns, boost::json::value obj) {
        return create(std::move(rt), std::move(ns), std::move(obj), WriteOptions{});
    }
    // PUT; `obj` must carry metadata.resourceVersion for optimistic concurrency (409 on a stale one).
    Task<JsonResult> update(ResourceType rt, std::string ns, std::string name, boost::json::value obj,
                            std::string subresource, WriteOptions wo);
    Task<JsonResult> update(ResourceType rt, std::string ns, std::string name, boost::json::value obj) {
        return update(std::move(rt), std::move(ns), std::move(name), std::move(obj), std::string(), WriteOptions{});
    }
    Task<JsonResult> patch(ResourceType rt, std::string ns, std::string name, PatchType type, std::string body,
                           std::string subresource, WriteOptions wo);
    Task<JsonResult> patch(ResourceType rt, std::string ns, std::string name, PatchType type, std::string body,
                           std::string subresource = std::string()) {
        return patch(std::move(rt), std::move(ns), std::move(name), type, std::move(body), std::move(subresource),
                     WriteOptions{});
    }
    Task<JsonResult> remove(ResourceType rt, std::string ns, std::string name, DeleteOptions dopts);
    Task<JsonResult> remove(ResourceType rt, std::string ns, std::string name) {
        return remove(std::move(rt), std::move(ns), std::move(name), DeleteOptions{});
    }

    // Opens a watch stream (ndjson body). HTTP errors, including 410, come
    // back as ApiError; feed the stream to a WatchLineSplitter.
    Task<ApiResult<std::unique_ptr<http::BodyStream>>> watch(ResourceType rt, std::string ns, WatchOptions wo);

    // GET of an arbitrary path (discovery, /version, /openapi/v3/...).
    Task<JsonResult> get_path(std::string path_and_query);

    // The raw exchange with queueing, rate limiting and retries; used by all verbs.
    Task<ApiResult<http::Response>> execute(http::Request req, std::string verb_label);
    // The same with a 2xx body streamed into `sink` (see HttpsClient::send).
    Task<ApiResult<http::Response>> execute(http::Request req, std::string verb_label, http::BodySink sink);

    // One exchange on a connection of its own: not queued, not rate limited,
    // never retried, not fenced, and bounded by `deadline` in total (a
    // watchdog aborts it and the connection is dropped). For the leader
    // lease, whose renewal must not wait behind other requests or their
    // retries. `path` is relative to the server (object_path(...)); a body
    // is sent as JSON.
    Task<JsonResult> direct(http::Verb method, std::string path, std::optional<boost::json::value> body,
                            std::chrono::milliseconds deadline, std::string verb_label);

    void set_write_fence(WriteFence fence);
    void set_namespace_fence(NamespaceFence fence);

    KubeMetrics& metrics() noexcept;
    const RestConfig& config() const noexcept;
    http::PoolStats pool() const noexcept;
    std::uint64_t rate_limiter_reservations() const noexcept;
    // Shutdown: refuses new requests, fails queued ones and aborts those in
    // flight (watch streams included) so every coroutine returns promptly.
    void shutdown() noexcept;

private:
    struct impl;
    std::shared_ptr<impl> impl_;
};

}  // namespace attune::kube
