#include <attune/kube/object_cache.hpp>

#include <attune/core/util/json_path.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <stdexcept>

namespace attune::kube {
namespace json = boost::json;

std::string_view meta_string(const json::value& obj, std::string_view field) noexcept {
    return core::string_at(obj, {"metadata", field});
}

namespace {
std::vector<std::string> owner_uids(const json::value& obj) {
    std::vector<std::string> out;
    if (const auto* refs = core::array_at(obj, {"metadata", "ownerReferences"})) {
        for (const auto& r : *refs)
            if (const auto uid = core::string_at(r, {"uid"}); !uid.empty()) out.emplace_back(uid);
    }
    return out;
}
}  // namespace

ObjectCache::ObjectCache(TransformFn transform, CacheStorage storage)
    : transform_(std::move(transform)), storage_(storage) {}

std::string ObjectCache::key_of(const json::value& obj) {
    const auto name = meta_string(obj, "name");
    if (name.empty()) return {};
    const auto ns = meta_string(obj, "namespace");
    if (ns.empty()) return std::string(name);
    std::string k;
    k.reserve(ns.size() + 1 + name.size());
    k.append(ns).append("/").append(name);
    return k;
}

ObjectCache::ObjectPtr ObjectCache::admit(json::value&& object, Entry& e) const {
    if (transform_ && object.is_object()) transform_(object.get_object());
    // A tree kept in the cache is copied into default storage, sized
    // exactly: the event's parse buffer (sized for the untransformed object)
    // is released with the event. Compact text keeps no tree: the snapshot
    // handed to the handlers stays in the event's buffer, one block freed
    // with it, instead of a copy made of a malloc per string and object.
    auto snap = storage_ == CacheStorage::CompactText
                    ? std::make_shared<const json::value>(std::move(object))
                    : std::make_shared<const json::value>(object, json::storage_ptr());
    e.resource_version = std::string(meta_string(*snap, "resourceVersion"));
    e.ns = std::string(meta_string(*snap, "namespace"));
    e.owners = owner_uids(*snap);
    if (decoder_) e.decoded = decoder_(*snap);
    if (index_) e.index_value = index_(*snap, e.decoded.get());
    e.seen = stamp_;
    if (storage_ == CacheStorage::CompactText) {
        e.text = std::make_shared<const std::string>(json::serialize(*snap));
        e.object.reset();
        e.bytes = e.text->capacity();
    } else {
        e.object = snap;
        e.text.reset();
        e.bytes = 0;  // not measured for trees (tests and benchmarks only)
    }
    return snap;
}

ObjectCache::ObjectPtr ObjectCache::materialize(const Entry& e) const {
    if (e.object) return e.object;
    if (!e.text) return nullptr;
    // The same text (not only the same key): a changed object has new text.
    for (const auto& r : remembered_)
        if (r.text == e.text) return r.tree;
    boost::system::error_code ec;
    // One block sized to the text holds the whole tree, freed with it: a
    // read is one allocation instead of one per string, object and array
    // (malloc was most of a pass's CPU: bench/RESULTS.md, "Cost that follows
    // change"). The tree is read-only, so the block never grows much.
    auto storage = json::make_shared_resource<json::monotonic_resource>(e.text->size() * 2 + 256);
    auto v = json::parse(*e.text, ec, storage);
    // The text was produced by serialize(): a parse failure is a bug, not data.
    if (ec) throw std::logic_error("object_cache: stored JSON does not parse: " + ec.message());
    auto tree = std::make_shared<const json::value>(std::move(v));
    if (remember_ > 0) {
        if (remembered_.size() < remember_) remembered_.push_back({e.text, tree});
        else remembered_[remembered_next_] = {e.text, tree};
        remembered_next_ = (remembered_next_ + 1) % remember_;
    }
    return tree;
}

void ObjectCache::remember_reads(std::size_t n) {
    remember_ = n;
    remembered_.clear();
    remembered_next_ = 0;
}

void ObjectCache::index(const std::string& key, const Entry& e) {
    by_namespace_[e.ns].insert(key);
    for (const auto& o : e.owners) by_owner_[o].insert(key);
    if (!e.index_value.empty()) by_index_[e.index_value].insert(key);
    stored_bytes_ += e.bytes;
}

void ObjectCache::unindex(const std::string& key, const Entry& e) {
    auto drop = [&key](IndexMap& idx, const std::string& value) {
        if (auto it = idx.find(value); it != idx.end()) {
            it->second.erase(key);
            if (it->second.empty()) idx.erase(it);
        }
    };
    drop(by_namespace_, e.ns);
    for (const auto& o : e.owners) drop(by_owner_, o);
    if (!e.index_value.empty()) drop(by_index_, e.index_value);
    stored_bytes_ -= std::min(stored_bytes_, e.bytes);
}

std::optional<ObjectCache::Delta> ObjectCache::apply(WatchEventType type, json::value object, SourceId source) {
    if (type != WatchEventType::Added && type != WatchEventType::Modified && type != WatchEventType::Deleted)
        return std::nullopt;
    std::string key = key_of(object);
    if (key.empty()) return std::nullopt;
    auto it = objects_.find(key);
    if (type == WatchEventType::Deleted) {
        if (it == objects_.end()) return std::nullopt;
        Delta d{Delta::Kind::Deleted, key, materialize(it->second), nullptr};
        unindex(key, it->second);
        objects_.erase(it);
        return d;
    }
    if (it != objects_.end() && it->second.resource_version == meta_string(object, "resourceVersion")) {
        // Same version replayed (e.g. ADDED after a reconnect, or listed
        // again by a resync): not a change, but seen.
        it->second.seen = stamp_;
        return std::nullopt;
    }
    Entry fresh;
    fresh.source = source;
    auto snap = admit(std::move(object), fresh);
    if (it == objects_.end()) {
        auto [pos, ok] = objects_.emplace(key, std::move(fresh));
        index(pos->first, pos->second);
        return Delta{Delta::Kind::Added, std::move(key), nullptr, std::move(snap)};
    }
    auto old = materialize(it->second);
    unindex(key, it->second);
    it->second = std::move(fresh);
    index(it->first, it->second);
    return Delta{Delta::Kind::Updated, std::move(key), std::move(old), std::move(snap)};
}

std::vector<ObjectCache::Delta> ObjectCache::replace(json::array items) {
    std::vector<Delta> out;
    begin_resync();
    for (auto& item : items)
        if (auto d = apply(WatchEventType::Modified, std::move(item))) out.push_back(std::move(*d));
    for (auto& d : end_resync()) out.push_back(std::move(d));
    return out;
}

void ObjectCache::begin_resync(SourceId source) { resync_began_[source] = ++stamp_; }

std::vector<ObjectCache::Delta> ObjectCache::end_resync(SourceId source) {
    std::vector<Delta> out;
    const auto began = resync_began_.find(source);
    if (began == resync_began_.end()) return out;  // no resync of this source is open
    const auto since = began->second;
    resync_began_.erase(began);
    for (auto it = objects_.begin(); it != objects_.end();) {
        if (it->second.source != source || it->second.seen >= since) {
            ++it;
            continue;
        }
        out.push_back(Delta{Delta::Kind::Deleted, it->first, materialize(it->second), nullptr});
        unindex(it->first, it->second);
        it = objects_.erase(it);
    }
    return out;
}

std::vector<ObjectCache::ObjectPtr> ObjectCache::objects_of(const IndexMap& idx, std::string_view value) const {
    std::vector<ObjectPtr> out;
    auto it = idx.find(std::string(value));
    if (it == idx.end()) return out;
    for (const auto& k : it->second) out.push_back(materialize(objects_.at(k)));
    return out;
}

std::vector<ObjectCache::ObjectPtr> ObjectCache::by_index(std::string_view value) const {
    return objects_of(by_index_, value);
}

ObjectCache::ObjectPtr ObjectCache::get(std::string_view key) const {
    auto it = objects_.find(std::string(key));
    return it == objects_.end() ? nullptr : materialize(it->second);
}

std::vector<ObjectCache::ObjectPtr> ObjectCache::in_namespace(std::string_view ns) const {
    return objects_of(by_namespace_, ns);
}

std::vector<ObjectCache::ObjectPtr> ObjectCache::owned_by(std::string_view owner_uid) const {
    return objects_of(by_owner_, owner_uid);
}

void ObjectCache::for_each(const std::function<void(const boost::json::value&)>& fn) const {
    for (const auto& [k, e] : objects_) {
        const auto obj = materialize(e);
        if (obj) fn(*obj);
    }
}

std::vector<ObjectCache::ObjectPtr> ObjectCache::all() const {
    std::vector<ObjectPtr> out;
    out.reserve(objects_.size());
    for (const auto& [k, e] : objects_) out.push_back(materialize(e));
    return out;
}

}  // namespace attune::kube
