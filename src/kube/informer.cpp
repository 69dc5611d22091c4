#include <attune/kube/informer.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/this_coro.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <exception>
#include <random>

namespace attune::kube {
namespace asio = boost::asio;

namespace {
// The server's Retry-After (capped like the client's) as a minimum wait.
std::chrono::milliseconds retry_after_of(const ApiError& e) {
    if (!e.retry_after) return std::chrono::milliseconds(0);
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::min(*e.retry_after, std::chrono::seconds(32)));
}
}  // namespace

struct Informer::impl {
    // One list/watch stream of the cache (a watched namespace, or the cluster).
    struct StreamState {
        StreamState(ListWatchTarget t, const WatchFsm::Options& o, RandomSource r, ObjectCache::SourceId id)
            : target(std::move(t)), fsm(o, std::move(r)), source(id), ns(watched_namespace_of(target)),
              where(ns.empty() ? std::string() : " namespace=" + ns) {}
        ListWatchTarget target;
        WatchFsm fsm;
        ObjectCache::SourceId source;
        std::string ns;     // the watched namespace it covers ("" : cluster-wide)
        std::string where;  // " namespace=<ns>" in its log lines, "" cluster-wide
        bool synced = false;
        std::unique_ptr<http::BodyStream> stream;
        std::unique_ptr<asio::steady_timer> timer;
        std::string_view list_encoding = "json";  // of the last LIST page
    };

    impl(Client& c, InformerOptions o, RandomSource r)
        : cl(c), opts(std::move(o)), rnd(r ? std::move(r) : make_random_source(std::random_device{}())),
          cache(opts.transform, opts.storage), label(opts.type.label()) {
        if (opts.setup_cache) opts.setup_cache(cache);
        auto targets = opts.targets;
        if (targets.empty()) targets.emplace_back(opts.namespace_, opts.field_selector);
        ObjectCache::SourceId id = 0;
        for (auto& t : targets) streams.push_back(std::make_unique<StreamState>(std::move(t), opts.fsm, rnd, id++));
    }

    Client& cl;
    InformerOptions opts;
    RandomSource rnd;
    ObjectCache cache;
    std::string label;
    std::vector<Handler> handlers;
    std::vector<std::unique_ptr<StreamState>> streams;
    bool stopping = false;
    bool aborting = false;  // one stream failed: the others end too, and run() rethrows

    bool halted() const noexcept { return stopping || aborting; }

    bool all_synced() const noexcept {
        for (const auto& s : streams)
            if (!s->synced) return false;
        return true;
    }

    void close(StreamState& s) noexcept {
        if (s.stream) s.stream->close();
        if (s.timer) s.timer->cancel();
    }

    void notify(const ObjectCache::Delta& d) {
        for (auto& h : handlers) h(d);
    }

    void publish_size() {
        cl.metrics().informer_objects.Add({{"resource", label}}).Set(static_cast<double>(cache.size()));
        cl.metrics().informer_bytes.Add({{"resource", label}}).Set(static_cast<double>(cache.stored_bytes()));
    }

    void apply_and_notify(StreamState& s, WatchEventType type, boost::json::value&& object) {
        if (auto d = cache.apply(type, std::move(object), s.source)) notify(*d);
    }

    // The initial state of one stream is complete: what it did not mention is gone.
    void finish_resync(StreamState& s, std::string_view how) {
        for (const auto& d : cache.end_resync(s.source)) notify(d);
        cl.metrics().relists.Add({{"resource", label}}).Increment();
        cl.metrics().informer_synced.Add({{"resource", label}, {"namespace", s.ns}}).Set(1);
        s.synced = true;
        publish_size();
        spdlog::info("informer listed resource={}{} via={} encoding={} objects={} resourceVersion={}", label, s.where,
                     how, how == "list" ? s.list_encoding : "json", cache.size(), s.fsm.resource_version());
        if (opts.on_listed) opts.on_listed();
    }

    void restart_metric(std::string_view reason) {
        cl.metrics().watch_restarts.Add({{"resource", label}, {"reason", std::string(reason)}}).Increment();
    }

    asio::awaitable<void> do_list(StreamState& s, const WatchFsm::ListStep& step) {
        ListOptions lo;
        lo.limit = step.limit;
        lo.continue_token = step.continue_token;
        lo.resource_version = step.resource_version;
        lo.resource_version_match = step.resource_version_match;
        lo.label_selector = opts.label_selector;
        lo.field_selector = s.target.field_selector;
        lo.protobuf_items = opts.protobuf_items;
        if (step.continue_token.empty()) cache.begin_resync(s.source);
        auto page = co_await cl.list_stream(opts.type, s.target.ns, lo, [this, &s](boost::json::value&& item) {
            apply_and_notify(s, WatchEventType::Modified, std::move(item));
        });
        if (halted()) co_return;
        if (!page) {
            spdlog::warn("informer list failed resource={}{} resourceVersion={} error=\"{}\"", label, s.where,
                         step.resource_version, page.error().describe());
            if (page.error().kind == ErrorKind::Decode && opts.protobuf_items) {
                // Whatever the server sent, JSON is the encoding every reader shares.
                spdlog::warn("informer lists in JSON from now on resource={}", label);
                opts.protobuf_items = nullptr;
            }
            s.fsm.on_list_failed(page.error().is_gone(), retry_after_of(page.error()));
            co_return;
        }
        publish_size();
        s.list_encoding = page->protobuf ? "protobuf" : "json";
        if (s.fsm.on_list_page(page->resource_version, page->continue_token)) finish_resync(s, "list");
    }

    // A WatchList the server will never serve: its request is invalid to it
    // (1.33 with the WatchList gate off answers 422 Invalid). 404 (no such
    // resource), 403 (RBAC), 410 and 429 say nothing about WatchList.
    static bool refuses_watch_list(const ApiError& e) {
        return e.kind == ErrorKind::ApiStatus &&
               (e.code == 400 || e.code == 405 || e.code == 406 || e.code == 415 || e.code == 422);
    }

    asio::awaitable<void> do_watch(StreamState& s, const WatchFsm::WatchStep& step) {
        WatchOptions wo;
        wo.resource_version = step.resource_version;
        wo.resource_version_match = step.resource_version_match;
        wo.send_initial_events = step.send_initial_events;
        wo.timeout_seconds = step.timeout_seconds;
        wo.label_selector = opts.label_selector;
        wo.field_selector = s.target.field_selector;
        auto opened = co_await cl.watch(opts.type, s.target.ns, wo);
        if (halted()) co_return;
        auto& fsm = s.fsm;
        if (!opened && step.send_initial_events && refuses_watch_list(opened.error())) {
            spdlog::info("informer WatchList not served; using paged lists resource={}{} error=\"{}\"", label, s.where,
                         opened.error().describe());
            fsm.on_watch_list_refused();
            co_return;
        }
        if (!opened) {
            const bool gone = opened.error().is_gone();
            spdlog::info("informer watch refused resource={}{} resourceVersion={} error=\"{}\"", label, s.where,
                         step.resource_version, opened.error().describe());
            restart_metric(gone ? "gone" : "open_failed");
            fsm.on_watch_started();
            fsm.on_watch_ended(gone ? WatchFsm::EndReason::Gone : WatchFsm::EndReason::Failed,
                               retry_after_of(opened.error()));
            co_return;
        }
        s.stream = std::move(opened).value();
        fsm.on_watch_started();
        if (step.send_initial_events) cache.begin_resync(s.source);
        WatchLineSplitter splitter(opts.max_line_bytes);
        std::array<char, 64 * 1024> buf{};
        bool stop_reading = false;
        auto on_line = [&](std::string_view line) {
            if (stop_reading) return;
            auto decoded = decode_watch_line(line);
            if (auto* err = std::get_if<DecodeError>(&decoded)) {
                // The same bad event comes back on every reconnect from this
                // resourceVersion: after a few tries, relist past it.
                const bool relisting = fsm.on_decode_failed();
                spdlog::warn("informer watch decode error resource={}{} resourceVersion={} relist={} error=\"{}\"", label,
                             s.where, fsm.resource_version(), relisting, err->message);
                restart_metric(relisting ? "decode_relist" : "decode");
                stop_reading = true;
                return;
            }
            auto& ev = std::get<WatchEvent>(decoded);
            const auto type = to_string(ev.type);
            cl.metrics().watch_events.Add({{"resource", label}, {"type", std::string(type)}}).Increment();
            const auto action = fsm.on_event(type, ev.resource_version(), ev.is_gone(), ev.is_initial_events_end());
            switch (action) {
                case WatchFsm::EventAction::Apply:
                    apply_and_notify(s, ev.type, std::move(ev.object));
                    if (s.synced) publish_size();
                    break;
                case WatchFsm::EventAction::Skip: break;
                case WatchFsm::EventAction::Synced: finish_resync(s, "watch-list"); break;
                case WatchFsm::EventAction::Relist:
                    spdlog::info("informer resourceVersion expired resource={}{} reason={} message=\"{}\"", label,
                                 s.where, ev.status_reason(), ev.status_message());
                    restart_metric("gone");
                    stop_reading = true;
                    break;
                case WatchFsm::EventAction::Restart:
                    spdlog::warn("informer watch error event resource={}{} code={} message=\"{}\"", label, s.where,
                                 ev.status_code(), ev.status_message());
                    restart_metric("error_event");
                    stop_reading = true;
                    break;
            }
        };
        for (;;) {
            auto [ec, n] = co_await s.stream->read_some(buf);
            if (halted()) break;
            if (n > 0 && !splitter.feed(std::string_view(buf.data(), n), on_line)) {
                spdlog::warn("informer watch line over limit resource={}{} limit={}", label, s.where,
                             opts.max_line_bytes);
                restart_metric("line_too_long");
                fsm.on_watch_ended(WatchFsm::EndReason::Failed);
                break;
            }
            if (stop_reading) break;
            if (ec) {
                spdlog::info("informer watch broken resource={}{} resourceVersion={} error=\"{}\"", label, s.where,
                             fsm.resource_version(), ec.message());
                restart_metric("transport");
                fsm.on_watch_ended(WatchFsm::EndReason::Failed);
                break;
            }
            if (n == 0) {
                splitter.finish(on_line);
                if (!stop_reading) {
                    restart_metric("closed");
                    fsm.on_watch_ended(WatchFsm::EndReason::Closed);
                }
                break;
            }
        }
        if (s.stream) s.stream->close();
        s.stream.reset();
    }

    asio::awaitable<void> run_stream(StreamState& s) {
        while (!halted()) {
            auto step = s.fsm.next();
            if (auto* l = std::get_if<WatchFsm::ListStep>(&step)) {
                co_await do_list(s, *l);
            } else if (auto* w = std::get_if<WatchFsm::WatchStep>(&step)) {
                co_await do_watch(s, *w);
            } else {
                const auto& wait = std::get<WatchFsm::WaitStep>(step);
                s.timer->expires_after(wait.delay);
                co_await s.timer->async_wait(asio::as_tuple(asio::use_awaitable));
            }
        }
    }

    asio::awaitable<void> run() {
        auto ex = co_await asio::this_coro::executor;
        aborting = false;
        for (auto& s : streams)
            if (!s->timer) s->timer = std::make_unique<asio::steady_timer>(ex);
        if (streams.size() == 1) {
            co_await run_stream(*streams.front());
            co_return;
        }
        // One coroutine per stream. The first that throws (a bug: I/O
        // failures are values) ends the others, and its exception leaves
        // run() for the spawner, which restarts them all; each stream keeps
        // its resume point.
        std::size_t running = streams.size();
        std::exception_ptr failure;
        asio::steady_timer all_ended(ex, asio::steady_timer::time_point::max());
        for (auto& s : streams) {
            asio::co_spawn(ex, run_stream(*s), [&](std::exception_ptr e) {
                if (e && !failure) {
                    failure = e;
                    aborting = true;
                    for (auto& other : streams) close(*other);
                }
                if (--running == 0) all_ended.cancel();
            });
        }
        while (running > 0) co_await all_ended.async_wait(asio::as_tuple(asio::use_awaitable));
        if (failure) std::rethrow_exception(failure);
    }
};

Informer::Informer(Client& c, InformerOptions opts, RandomSource rnd)
    : impl_(std::make_shared<impl>(c, std::move(opts), std::move(rnd))) {}

Informer::~Informer() { stop(); }

void Informer::add_handler(Handler h) { impl_->handlers.push_back(std::move(h)); }

asio::awaitable<void> Informer::run() {
    auto keep = impl_;
    co_await keep->run();
}

void Informer::stop() noexcept {
    impl_->stopping = true;
    for (auto& s : impl_->streams) impl_->close(*s);
}

const ObjectCache& Informer::cache() const noexcept { return impl_->cache; }
bool Informer::has_synced() const noexcept { return impl_->all_synced(); }
std::vector<std::string> Informer::not_synced() const {
    std::vector<std::string> out;
    for (const auto& s : impl_->streams)
        if (!s->synced) out.push_back(s->ns);
    return out;
}
const WatchFsm& Informer::state() const noexcept { return impl_->streams.front()->fsm; }
const ResourceType& Informer::type() const noexcept { return impl_->opts.type; }

Informer::Handler enqueue_keys(std::function<void(const std::string&)> enqueue) {
    return [enqueue = std::move(enqueue)](const ObjectCache::Delta& d) { enqueue(d.key); };
}

}  // namespace attune::kube
