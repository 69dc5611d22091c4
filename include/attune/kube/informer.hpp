#pragma once
// List+watch driver for one resource: runs WatchFsm against the client,
// keeps an ObjectCache current and calls handlers with every change.
// One coroutine per list/watch stream (one per watched namespace with
// --watch-namespaces, else one), on the shared io_context, into one cache. The initial state
// streams in (WatchList where served, else paged LIST parsed item by item):
// each object is transformed and stored as it arrives, so neither a list
// nor a page is ever held whole, and a relist diffs as it goes.
#include <attune/kube/client.hpp>
#include <attune/kube/object_cache.hpp>
#include <attune/kube/watch_fsm.hpp>
#include <attune/kube/watch_scope.hpp>

#include <boost/asio/awaitable.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace attune::kube {

struct InformerOptions {
    InformerOptions() = default;
    ResourceType type;
    std::string namespace_;  // "" for all namespaces
    std::string label_selector;
    std::string field_selector;
    // Several list/watch streams into the one cache (--watch-namespaces: one
    // per namespace, from list_watch_targets), each with its own resume
    // point; the informer has synced once every one listed. Empty: a single
    // stream on namespace_ with field_selector.
    std::vector<ListWatchTarget> targets;
    TransformFn transform = strip_generic;
    CacheStorage storage = CacheStorage::CompactText;
    // Called once on the new cache: decoded views, a secondary index.
    std::function<void(ObjectCache&)> setup_cache;
    // Called after every complete initial state (first sync and relists),
    // when the transient memory of the list is gone (e.g. to trim the heap).
    std::function<void()> on_listed;
    WatchFsm::Options fsm;
    // Set: LIST pages are asked for in protobuf and each item decoded by this
    // into the JSON the transform would keep (pod_from_protobuf). After a
    // protobuf page fails to decode, this informer lists in JSON for good.
    ProtobufListDecoder::ItemDecoder protobuf_items;
    std::size_t max_line_bytes = 16u << 20;
};

class Informer {
public:
    using Handler = std::function<void(const ObjectCache::Delta&)>;

    Informer(Client& c, InformerOptions opts, RandomSource rnd = nullptr);
    ~Informer();

    // Handlers run synchronously on the informer's coroutine, after the
    // cache was updated; they must not block (enqueue a key and return).
    void add_handler(Handler h);

    // Runs list/watch until stop(); returns normally after stop. Throws only
    // on infrastructure failures (bugs), for the spawner to log and restart.
    boost::asio::awaitable<void> run();
    void stop() noexcept;

    const ObjectCache& cache() const noexcept;
    // True once the first full list of every stream landed in the cache.
    bool has_synced() const noexcept;
    // The watched namespaces (watched_namespace_of) whose stream has not
    // listed yet; "" stands for a cluster-wide stream.
    std::vector<std::string> not_synced() const;
    // The first stream's state (the only one unless `targets` names several).
    const WatchFsm& state() const noexcept;
    const ResourceType& type() const noexcept;

private:
    struct impl;
    std::shared_ptr<impl> impl_;
};

// Handler adapter: every change enqueues the object's key.
Informer::Handler enqueue_keys(std::function<void(const std::string&)> enqueue);

}  // namespace attune::kube
