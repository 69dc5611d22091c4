#include <attune/kube/informer.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/this_coro.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <random>

namespace attune::kube {
namespace asio = boost::asio;

namespace {
// The server's Retry-After (capped like the client's) as a minimum wait.
std::chrono::milliseconds retry_after_of(const api_error& e) {
    if (!e.retry_after) return std::chrono::milliseconds(0);
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::min(*e.retry_after, std::chrono::seconds(32)));
}
}  // namespace

struct informer::impl {
    impl(client& c, informer_options o, random_source r)
        : cl(c), opts(std::move(o)), rnd(r ? std::move(r) : make_random_source(std::random_device{}())),
          fsm(opts.fsm, rnd), cache(opts.transform, opts.storage), label(opts.type.label()) {
        if (opts.setup_cache) opts.setup_cache(cache);
    }

    client& cl;
    informer_options opts;
    random_source rnd;
    watch_fsm fsm;
    object_cache cache;
    std::string label;
    std::vector<handler> handlers;
    bool synced = false;
    bool stopping = false;
    std::unique_ptr<http::body_stream> stream;
    std::unique_ptr<asio::steady_timer> timer;
    std::string_view list_encoding = "json";  // of the last LIST page

    void notify(const object_cache::delta& d) {
        for (auto& h : handlers) h(d);
    }

    void publish_size() {
        cl.metrics().informer_objects.Add({{"resource", label}}).Set(static_cast<double>(cache.size()));
        cl.metrics().informer_bytes.Add({{"resource", label}}).Set(static_cast<double>(cache.stored_bytes()));
    }

    void apply_and_notify(watch_event_type type, boost::json::value&& object) {
        if (auto d = cache.apply(type, std::move(object))) notify(*d);
    }

    // The initial state is complete: what it did not mention is gone.
    void finish_resync(std::string_view how) {
        for (const auto& d : cache.end_resync()) notify(d);
        cl.metrics().relists.Add({{"resource", label}}).Increment();
        synced = true;
        publish_size();
        spdlog::info("informer listed resource={} via={} encoding={} objects={} resourceVersion={}", label, how,
                     how == "list" ? list_encoding : "json", cache.size(), fsm.resource_version());
        if (opts.on_listed) opts.on_listed();
    }

    void restart_metric(std::string_view reason) {
        cl.metrics().watch_restarts.Add({{"resource", label}, {"reason", std::string(reason)}}).Increment();
    }

    asio::awaitable<void> do_list(const watch_fsm::list_step& step) {
        list_options lo;
        lo.limit = step.limit;
        lo.continue_token = step.continue_token;
        lo.resource_version = step.resource_version;
        lo.resource_version_match = step.resource_version_match;
        lo.label_selector = opts.label_selector;
        lo.field_selector = opts.field_selector;
        lo.protobuf_items = opts.protobuf_items;
        if (step.continue_token.empty()) cache.begin_resync();
        auto page = co_await cl.list_stream(opts.type, opts.namespace_, lo, [this](boost::json::value&& item) {
            apply_and_notify(watch_event_type::modified, std::move(item));
        });
        if (stopping) co_return;
        if (!page) {
            spdlog::warn("informer list failed resource={} resourceVersion={} error=\"{}\"", label,
                         step.resource_version, page.error().describe());
            if (page.error().kind == error_kind::decode && opts.protobuf_items) {
                // Whatever the server sent, JSON is the encoding every reader shares.
                spdlog::warn("informer lists in JSON from now on resource={}", label);
                opts.protobuf_items = nullptr;
            }
            fsm.on_list_failed(page.error().is_gone(), retry_after_of(page.error()));
            co_return;
        }
        publish_size();
        list_encoding = page->protobuf ? "protobuf" : "json";
        if (fsm.on_list_page(page->resource_version, page->continue_token)) finish_resync("list");
    }

    // A WatchList the server will never serve: its request is invalid to it
    // (1.33 with the WatchList gate off answers 422 Invalid). 404 (no such
    // resource), 403 (RBAC), 410 and 429 say nothing about WatchList.
    static bool refuses_watch_list(const api_error& e) {
        return e.kind == error_kind::api_status && (e.code == 400 || e.code == 405 || e.code == 406 || e.code == 415 ||
                                                    e.code == 422);
    }

    asio::awaitable<void> do_watch(const watch_fsm::watch_step& step) {
        watch_options wo;
        wo.resource_version = step.resource_version;
        wo.resource_version_match = step.resource_version_match;
        wo.send_initial_events = step.send_initial_events;
        wo.timeout_seconds = step.timeout_seconds;
        wo.label_selector = opts.label_selector;
        wo.field_selector = opts.field_selector;
        auto opened = co_await cl.watch(opts.type, opts.namespace_, wo);
        if (stopping) co_return;
        if (!opened && step.send_initial_events && refuses_watch_list(opened.error())) {
            spdlog::info("informer WatchList not served; using paged lists resource={} error=\"{}\"", label,
                         opened.error().describe());
            fsm.on_watch_list_refused();
            co_return;
        }
        if (!opened) {
            const bool gone = opened.error().is_gone();
            spdlog::info("informer watch refused resource={} resourceVersion={} error=\"{}\"", label,
                         step.resource_version, opened.error().describe());
            restart_metric(gone ? "gone" : "open_failed");
            fsm.on_watch_started();
            fsm.on_watch_ended(gone ? watch_fsm::end_reason::gone : watch_fsm::end_reason::failed,
                               retry_after_of(opened.error()));
            co_return;
        }
        stream = std::move(opened).value();
        fsm.on_watch_started();
        if (step.send_initial_events) cache.begin_resync();
        watch_line_splitter splitter(opts.max_line_bytes);
        std::array<char, 64 * 1024> buf{};
        bool stop_reading = false;
        auto on_line = [&](std::string_view line) {
            if (stop_reading) return;
            auto decoded = decode_watch_line(line);
            if (auto* err = std::get_if<decode_error>(&decoded)) {
                // The same bad event comes back on every reconnect from this
                // resourceVersion: after a few tries, relist past it.
                const bool relisting = fsm.on_decode_failed();
                spdlog::warn("informer watch decode error resource={} resourceVersion={} relist={} error=\"{}\"", label,
                             fsm.resource_version(), relisting, err->message);
                restart_metric(relisting ? "decode_relist" : "decode");
                stop_reading = true;
                return;
            }
            auto& ev = std::get<watch_event>(decoded);
            const auto type = to_string(ev.type);
            cl.metrics().watch_events.Add({{"resource", label}, {"type", std::string(type)}}).Increment();
            const auto action = fsm.on_event(type, ev.resource_version(), ev.is_gone(), ev.is_initial_events_end());
            switch (action) {
                case watch_fsm::event_action::apply:
                    apply_and_notify(ev.type, std::move(ev.object));
                    if (synced) publish_size();
                    break;
                case watch_fsm::event_action::skip: break;
                case watch_fsm::event_action::synced: finish_resync("watch-list"); break;
                case watch_fsm::event_action::relist:
                    spdlog::info("informer resourceVersion expired resource={} reason={} message=\"{}\"", label,
                                 ev.status_reason(), ev.status_message());
                    restart_metric("gone");
                    stop_reading = true;
                    break;
                case watch_fsm::event_action::restart:
                    spdlog::warn("informer watch error event resource={} code={} message=\"{}\"", label,
                                 ev.status_code(), ev.status_message());
                    restart_metric("error_event");
                    stop_reading = true;
                    break;
            }
        };
        for (;;) {
            auto [ec, n] = co_await stream->read_some(buf);
            if (stopping) break;
            if (n > 0 && !splitter.feed(std::string_view(buf.data(), n), on_line)) {
                spdlog::warn("informer watch line over limit resource={} limit={}", label, opts.max_line_bytes);
                restart_metric("line_too_long");
                fsm.on_watch_ended(watch_fsm::end_reason::failed);
                break;
            }
            if (stop_reading) break;
            if (ec) {
                spdlog::info("informer watch broken resource={} resourceVersion={} error=\"{}\"", label,
                             fsm.resource_version(), ec.message());
                restart_metric("transport");
                fsm.on_watch_ended(watch_fsm::end_reason::failed);
                break;
            }
            if (n == 0) {
                splitter.finish(on_line);
                if (!stop_reading) {
                    restart_metric("closed");
                    fsm.on_watch_ended(watch_fsm::end_reason::closed);
                }
                break;
            }
        }
        if (stream) stream->close();
        stream.reset();
    }

    asio::awaitable<void> run() {
        timer = std::make_unique<asio::steady_timer>(co_await asio::this_coro::executor);
        while (!stopping) {
            auto step = fsm.next();
            if (auto* l = std::get_if<watch_fsm::list_step>(&step)) {
                co_await do_list(*l);
            } else if (auto* w = std::get_if<watch_fsm::watch_step>(&step)) {
                co_await do_watch(*w);
            } else {
                const auto& wait = std::get<watch_fsm::wait_step>(step);
                timer->expires_after(wait.delay);
                co_await timer->async_wait(asio::as_tuple(asio::use_awaitable));
            }
        }
    }
};

informer::informer(client& c, informer_options opts, random_source rnd)
    : impl_(std::make_shared<impl>(c, std::move(opts), std::move(rnd))) {}

informer::~informer() { stop(); }

void informer::add_handler(handler h) { impl_->handlers.push_back(std::move(h)); }

asio::awaitable<void> informer::run() {
    auto keep = impl_;
    co_await keep->run();
}

void informer::stop() noexcept {
    impl_->stopping = true;
    if (impl_->stream) impl_->stream->close();
    if (impl_->timer) impl_->timer->cancel();
}

const object_cache& informer::cache() const noexcept { return impl_->cache; }
bool informer::has_synced() const noexcept { return impl_->synced; }
const watch_fsm& informer::state() const noexcept { return impl_->fsm; }
const resource_type& informer::type() const noexcept { return impl_->opts.type; }

informer::handler enqueue_keys(std::function<void(const std::string&)> enqueue) {
    return [enqueue = std::move(enqueue)](const object_cache::delta& d) { enqueue(d.key); };
}

}  // namespace attune::kube
