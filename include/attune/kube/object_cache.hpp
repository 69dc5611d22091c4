#pragma once
// The informer's store for one resource: transformed objects by key
// ("namespace/name", or "name" when cluster-scoped), with indexes by namespace
// and by owner uid. Pure (no I/O); objects are immutable shared snapshots so
// workers can hold them across co_awaits while the cache moves on.
#include <attune/kube/transforms.hpp>
#include <attune/kube/watch_decoder.hpp>

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace attune::kube {

// How objects are held. `tree` keeps parsed JSON (fast reads, ~3x the text
// size); `compact_text` keeps the transformed object as JSON text and parses
// on read (for large, rarely read-in-bulk resources such as pods).
enum class cache_storage { tree, compact_text };

class object_cache {
public:
    using object_ptr = std::shared_ptr<const boost::json::value>;

    struct delta {
        enum class kind { added, updated, deleted };
        kind what = kind::added;
        std::string key;
        object_ptr old_object;  // null on added
        object_ptr new_object;  // null on deleted
    };

    explicit object_cache(transform_fn transform = strip_generic, cache_storage storage = cache_storage::tree);

    // Applies one ADDED/MODIFIED/DELETED event (others are ignored). Returns
    // the change, or nothing when the event changed nothing (e.g. deleting an
    // unknown key, or a replayed event with the resourceVersion we hold).
    std::optional<delta> apply(watch_event_type type, boost::json::value object);

    // Replaces the whole content with a fresh list (after a relist) and
    // returns the differences, deletions included, so handlers see objects
    // that vanished while we were not watching.
    std::vector<delta> replace(boost::json::array items);

    object_ptr get(std::string_view key) const;
    std::vector<object_ptr> in_namespace(std::string_view ns) const;
    std::vector<object_ptr> owned_by(std::string_view owner_uid) const;
    std::vector<object_ptr> all() const;
    std::size_t size() const noexcept { return objects_.size(); }

    // "ns/name" or "name"; empty when metadata.name is missing.
    static std::string key_of(const boost::json::value& obj);

private:
    struct entry {
        object_ptr object;                        // tree storage
        std::shared_ptr<const std::string> text;  // compact storage
        std::string resource_version;
        std::string ns;
        std::vector<std::string> owners;
    };

    // Transforms the object; returns the snapshot and fills the entry.
    object_ptr admit(boost::json::value&& object, entry& e) const;
    object_ptr materialize(const entry& e) const;
    void index(const std::string& key, const entry& e);
    void unindex(const std::string& key, const entry& e);

    transform_fn transform_;
    cache_storage storage_;
    std::unordered_map<std::string, entry> objects_;
    std::unordered_map<std::string, std::unordered_set<std::string>> by_namespace_;
    std::unordered_map<std::string, std::unordered_set<std::string>> by_owner_;
};

// metadata.<field> as a string view ("" when absent).
std::string_view meta_string(const boost::json::value& obj, std::string_view field) noexcept;

}  // namespace attune::kube
