#pragma once
// The apiserver client: verbs over one HTTPS host, with the bounded request
// queue, token-bucket rate limiting and the retry policy applied to every
// request. Expected outcomes (404, 409, 410, 429 after retries, transport
// failures) come back as api_error in api_result; nothing here throws for I/O.
#include <attune/http/https_client.hpp>
#include <attune/kube/api_error.hpp>
#include <attune/kube/backoff.hpp>
#include <attune/kube/metrics.hpp>
#include <attune/kube/resource.hpp>
#include <attune/kube/rest_config.hpp>
#include <attune/kube/retry_policy.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <memory>
#include <optional>
#include <string>

namespace attune::kube {

struct client_settings {
    double qps = 5;   // --kube-qps (<= 0: unlimited)
    int burst = 10;   // --kube-burst
    // Requests on the wire at once; the rest wait in a queue bounded by
    // max_queued, beyond which calls fail fast with error_kind::queue_full.
    std::size_t max_inflight = 16;
    std::size_t max_queued = 512;
    retry_options retry;
    http::client_options transport;
    std::chrono::milliseconds watch_idle_timeout{0};  // 0: derived from timeoutSeconds
    unsigned long long seed = 0;                       // 0: seeded from random_device
};

enum class patch_type {
    json_merge,       // application/merge-patch+json
    strategic_merge,  // application/strategic-merge-patch+json (use this for /resize)
    json_patch,       // application/json-patch+json (RFC 6902)
    apply,            // server-side apply, application/apply-patch+yaml (JSON is valid YAML)
};

std::string_view content_type(patch_type p) noexcept;

struct list_options {
    std::string label_selector;
    std::string field_selector;
    long long limit = 0;  // page size; 0: server default (everything)
    std::string continue_token;
    std::string resource_version;
    std::string resource_version_match;  // NotOlderThan | Exact
};

struct list_page {
    boost::json::array items;
    std::string resource_version;  // of the list (opaque)
    std::string continue_token;    // empty on the last page
};

struct write_options {
    std::string field_manager = "attune";  // required for apply; recorded for other writes
    bool force = false;                     // apply only: take ownership of conflicting fields
    bool dry_run = false;
};

struct delete_options {
    std::string propagation_policy;  // Foreground | Background | Orphan
    std::string precondition_uid;
    std::string precondition_resource_version;
    std::optional<long long> grace_period_seconds;
};

struct watch_options {
    std::string resource_version;  // opaque; resume point
    std::string label_selector;
    std::string field_selector;
    long long timeout_seconds = 300;
    bool allow_bookmarks = true;
};

class client {
public:
    // Throws std::runtime_error when the TLS material in `cfg` is invalid.
    client(boost::asio::any_io_executor ex, rest_config cfg, client_settings settings = {},
           std::shared_ptr<kube_metrics> metrics = nullptr);
    ~client();
    client(const client&) = delete;
    client& operator=(const client&) = delete;

    using json_result = api_result<boost::json::value>;
    template <class T>
    using task = boost::asio::awaitable<T>;

    task<json_result> get(const resource_type& rt, std::string_view ns, std::string_view name,
                          std::string_view subresource = {});
    // One page; pass list_page::continue_token back in list_options to go on.
    task<api_result<list_page>> list(const resource_type& rt, std::string_view ns, const list_options& opts = {});
    // Every page, following continue tokens. A 410 on a continue token (the
    // snapshot expired) restarts from the beginning once.
    task<api_result<list_page>> list_all(const resource_type& rt, std::string_view ns, list_options opts = {});
    task<json_result> create(const resource_type& rt, std::string_view ns, const boost::json::value& obj,
                             const write_options& wo = {});
    // PUT; `obj` must carry metadata.resourceVersion for optimistic concurrency (409 on a stale one).
    task<json_result> update(const resource_type& rt, std::string_view ns, std::string_view name,
                             const boost::json::value& obj, std::string_view subresource = {},
                             const write_options& wo = {});
    task<json_result> patch(const resource_type& rt, std::string_view ns, std::string_view name, patch_type type,
                            std::string body, std::string_view subresource = {}, const write_options& wo = {});
    task<json_result> remove(const resource_type& rt, std::string_view ns, std::string_view name,
                             const delete_options& dopts = {});

    // Opens a watch stream (ndjson body). HTTP errors, including 410, come
    // back as api_error; feed the stream to a watch_line_decoder.
    task<api_result<std::unique_ptr<http::body_stream>>> watch(const resource_type& rt, std::string_view ns,
                                                                const watch_options& wo);

    // GET of an arbitrary path (discovery, /version, /openapi/v3/...).
    task<json_result> get_path(std::string path_and_query);

    // The raw exchange with queueing, rate limiting and retries; used by all verbs.
    task<api_result<http::response>> execute(http::request req, std::string_view verb_label);

    kube_metrics& metrics() noexcept;
    const rest_config& config() const noexcept;
    http::pool_stats pool() const noexcept;
    std::uint64_t rate_limiter_reservations() const noexcept;
    // Stops new requests, closes idle connections (shutdown).
    void shutdown() noexcept;

private:
    struct impl;
    std::shared_ptr<impl> impl_;
};

}  // namespace attune::kube
