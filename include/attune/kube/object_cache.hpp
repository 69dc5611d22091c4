#pragma once
// The informer's store for one resource: transformed objects by key
// ("namespace/name", or "name" when cluster-scoped), with indexes by namespace
// and by owner uid, plus an optional secondary index and an optional decoded
// view per object (decoded once per change, not once per read). Pure (no
// I/O); objects are immutable shared snapshots so workers can hold them
// across co_awaits while the cache moves on.
#include <attune/kube/transforms.hpp>
#include <attune/kube/watch_decoder.hpp>

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <typeinfo>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace attune::kube {

// How objects are held. `tree` keeps parsed JSON (fast reads, ~3x the text
// size); `CompactText` keeps the transformed object as JSON text and parses
// on read (for large, rarely read-in-bulk resources such as pods).
enum class CacheStorage { Tree, CompactText };

// The decoded view kept with an object; null when it does not decode.
using DecoderFn = std::function<std::shared_ptr<const void>(const boost::json::value&)>;
// The value an object is indexed under in the secondary index ("" for none).
using IndexFn = std::function<std::string(const boost::json::value&)>;

// Adapts a decoder returning core::Result<T> or std::optional<T> (anything
// with explicit bool and value()) into a DecoderFn for ObjectCache::decode_as.
template <class T, class Decode>
DecoderFn decoded_view(Decode decode) {
    return [decode = std::move(decode)](const boost::json::value& v) -> std::shared_ptr<const void> {
        auto r = decode(v);
        if (!r) return nullptr;
        return std::make_shared<const T>(std::move(r).value());
    };
}

class ObjectCache {
public:
    using ObjectPtr = std::shared_ptr<const boost::json::value>;

    struct Delta {
        enum class Kind { Added, Updated, Deleted };
        Kind what = Kind::Added;
        std::string key;
        ObjectPtr old_object;  // null on added
        ObjectPtr new_object;  // null on deleted
    };

    explicit ObjectCache(TransformFn transform = strip_generic, CacheStorage storage = CacheStorage::Tree);

    // Which list/watch stream an object came from. An informer of several
    // namespaces (--watch-namespaces) feeds one cache from one stream per
    // namespace, and each stream's relist may drop only what that stream
    // listed. A single-stream cache uses source 0 throughout.
    using SourceId = std::uint32_t;

    // Applies one ADDED/MODIFIED/DELETED event (others are ignored). Returns
    // the change, or nothing when the event changed nothing (e.g. deleting an
    // unknown key, or a replayed event with the resourceVersion we hold).
    std::optional<Delta> apply(WatchEventType type, boost::json::value object, SourceId source = 0);

    // Replaces the whole content with a fresh list (after a relist) and
    // returns the differences, deletions included, so handlers see objects
    // that vanished while we were not watching.
    std::vector<Delta> replace(boost::json::array items);

    // The same, item by item, without holding the list: begin_resync(), then
    // apply() each listed object as it arrives (its change is returned at
    // once), then end_resync() deletes and returns what the list did not
    // mention. Old and new never coexist beyond one object. Per source: the
    // resyncs of several sources may overlap, and each deletes only objects
    // of its own source not seen since its begin.
    void begin_resync(SourceId source = 0);
    std::vector<Delta> end_resync(SourceId source = 0);

    // Decoded views: `decoder` runs once per stored change (T must match).
    template <class T>
    void decode_as(DecoderFn decoder) {
        decoder_ = std::move(decoder);
        decoded_type_ = &typeid(T);
    }
    // A secondary index (e.g. HPAs by scale target), from the object or from
    // its decoded view (then objects without a view are not indexed).
    void index_by(IndexFn index) {
        index_ = [index = std::move(index)](const boost::json::value& v, const void*) { return index(v); };
    }
    template <class T>
    void index_by_view(std::function<std::string(const T&)> index) {
        check_type(typeid(T));
        index_ = [index = std::move(index)](const boost::json::value&, const void* d) {
            return d ? index(*static_cast<const T*>(d)) : std::string();
        };
    }

    template <class T>
    std::shared_ptr<const T> decoded(std::string_view key) const {
        check_type(typeid(T));
        auto it = objects_.find(std::string(key));
        return it == objects_.end() ? nullptr : std::static_pointer_cast<const T>(it->second.decoded);
    }
    template <class T>
    std::vector<std::shared_ptr<const T>> decoded_in_namespace(std::string_view ns) const {
        return decoded_of<T>(by_namespace_, ns);
    }
    // The views of the objects owned by `owner_uid`, each with its key (the
    // keys stay valid until the cache next changes).
    template <class T>
    struct KeyedView {
        std::string_view key;
        std::shared_ptr<const T> view;
    };
    template <class T>
    std::vector<KeyedView<T>> decoded_owned_by(std::string_view owner_uid) const {
        std::vector<KeyedView<T>> out;
        visit_decoded<T>(by_owner_, owner_uid, [&](const std::string& k, auto d) { out.push_back({k, std::move(d)}); });
        return out;
    }
    template <class T>
    std::vector<std::shared_ptr<const T>> decoded_by_index(std::string_view value) const {
        return decoded_of<T>(by_index_, value);
    }
    std::vector<ObjectPtr> by_index(std::string_view value) const;

    // Compact storage: keep the parsed trees of the last `n` objects read,
    // so reading one again while it is unchanged parses nothing. For objects
    // read once per member of a batch (a policy, once per workload of its
    // pass), whose parse cost more than the member's own reading; at most
    // `n` trees stay alive beyond their readers.
    void remember_reads(std::size_t n);

    // Bytes of stored object text (compact storage), for metrics.
    std::size_t stored_bytes() const noexcept { return stored_bytes_; }

    ObjectPtr get(std::string_view key) const;
    std::vector<ObjectPtr> in_namespace(std::string_view ns) const;
    std::vector<ObjectPtr> owned_by(std::string_view owner_uid) const;
    std::vector<ObjectPtr> all() const;
    // Every object, one at a time: with compact storage only one parsed
    // tree is alive at once (all() parses the whole cache together).
    void for_each(const std::function<void(const boost::json::value&)>& fn) const;
    std::size_t size() const noexcept { return objects_.size(); }

    // "ns/name" or "name"; empty when metadata.name is missing.
    static std::string key_of(const boost::json::value& obj);

private:
    struct Entry {
        ObjectPtr object;                         // tree storage
        std::shared_ptr<const std::string> text;  // compact storage
        std::shared_ptr<const void> decoded;      // decoder_ output
        std::string resource_version;
        std::string ns;
        std::string index_value;
        std::vector<std::string> owners;
        std::size_t bytes = 0;
        std::uint64_t seen = 0;  // stamp_ when last applied or replayed
        SourceId source = 0;
    };
    using IndexMap = std::unordered_map<std::string, std::unordered_set<std::string>>;

    // Transforms the object; returns the snapshot and fills the entry.
    ObjectPtr admit(boost::json::value&& object, Entry& e) const;
    ObjectPtr materialize(const Entry& e) const;
    std::vector<ObjectPtr> objects_of(const IndexMap& idx, std::string_view value) const;
    void index(const std::string& key, const Entry& e);
    void unindex(const std::string& key, const Entry& e);
    void check_type(const std::type_info& t) const {
        if (!decoded_type_ || *decoded_type_ != t) throw std::logic_error("object_cache: decoded view of another type");
    }
    // fn(key, view) for each object under `value` in `idx` that has a view.
    template <class T, class Fn>
    void visit_decoded(const IndexMap& idx, std::string_view value, Fn&& fn) const {
        check_type(typeid(T));
        auto it = idx.find(std::string(value));
        if (it == idx.end()) return;
        for (const auto& k : it->second)
            if (const auto& d = objects_.at(k).decoded) fn(k, std::static_pointer_cast<const T>(d));
    }
    template <class T>
    std::vector<std::shared_ptr<const T>> decoded_of(const IndexMap& idx, std::string_view value) const {
        std::vector<std::shared_ptr<const T>> out;
        visit_decoded<T>(idx, value, [&](const std::string&, auto d) { out.push_back(std::move(d)); });
        return out;
    }

    TransformFn transform_;
    CacheStorage storage_;
    DecoderFn decoder_;
    const std::type_info* decoded_type_ = nullptr;
    std::function<std::string(const boost::json::value&, const void*)> index_;
    std::unordered_map<std::string, Entry> objects_;
    IndexMap by_namespace_;
    IndexMap by_owner_;
    IndexMap by_index_;
    // Bumped by every begin_resync; an object not seen since its source's
    // resync began carries an older stamp.
    std::uint64_t stamp_ = 0;
    std::unordered_map<SourceId, std::uint64_t> resync_began_;
    std::size_t stored_bytes_ = 0;
    struct Remembered {
        std::shared_ptr<const std::string> text;
        ObjectPtr tree;
    };
    std::size_t remember_ = 0;
    mutable std::vector<Remembered> remembered_;  // a ring of the last trees read
    mutable std::size_t remembered_next_ = 0;
};

// metadata.<field> as a string view ("" when absent).
std::string_view meta_string(const boost::json::value& obj, std::string_view field) noexcept;

}  // namespace attune::kube
