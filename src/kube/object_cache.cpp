#include <attune/kube/object_cache.hpp>

#include <attune/core/json_path.hpp>

#include <boost/json.hpp>

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

object_cache::object_cache(transform_fn transform, cache_storage storage)
    : transform_(std::move(transform)), storage_(storage) {}

std::string object_cache::key_of(const json::value& obj) {
    const auto name = meta_string(obj, "name");
    if (name.empty()) return {};
    const auto ns = meta_string(obj, "namespace");
    if (ns.empty()) return std::string(name);
    std::string k;
    k.reserve(ns.size() + 1 + name.size());
    k.append(ns).append("/").append(name);
    return k;
}

object_cache::object_ptr object_cache::admit(json::value&& object, entry& e) const {
    if (transform_ && object.is_object()) transform_(object.get_object());
    // Copy into default storage, sized exactly: the event's parse buffer
    // (sized for the untransformed object) is released with the event.
    auto snap = std::make_shared<const json::value>(object, json::storage_ptr());
    e.resource_version = std::string(meta_string(*snap, "resourceVersion"));
    e.ns = std::string(meta_string(*snap, "namespace"));
    e.owners = owner_uids(*snap);
    if (storage_ == cache_storage::compact_text) {
        e.text = std::make_shared<const std::string>(json::serialize(*snap));
        e.object.reset();
    } else {
        e.object = snap;
        e.text.reset();
    }
    return snap;
}

object_cache::object_ptr object_cache::materialize(const entry& e) const {
    if (e.object) return e.object;
    if (!e.text) return nullptr;
    boost::system::error_code ec;
    auto v = json::parse(*e.text, ec);
    // The text was produced by serialize(): a parse failure is a bug, not data.
    if (ec) throw std::logic_error("object_cache: stored JSON does not parse: " + ec.message());
    return std::make_shared<const json::value>(std::move(v));
}

void object_cache::index(const std::string& key, const entry& e) {
    by_namespace_[e.ns].insert(key);
    for (const auto& o : e.owners) by_owner_[o].insert(key);
}

void object_cache::unindex(const std::string& key, const entry& e) {
    if (auto it = by_namespace_.find(e.ns); it != by_namespace_.end()) {
        it->second.erase(key);
        if (it->second.empty()) by_namespace_.erase(it);
    }
    for (const auto& o : e.owners) {
        if (auto it = by_owner_.find(o); it != by_owner_.end()) {
            it->second.erase(key);
            if (it->second.empty()) by_owner_.erase(it);
        }
    }
}

std::optional<object_cache::delta> object_cache::apply(watch_event_type type, json::value object) {
    if (type != watch_event_type::added && type != watch_event_type::modified && type != watch_event_type::deleted)
        return std::nullopt;
    std::string key = key_of(object);
    if (key.empty()) return std::nullopt;
    auto it = objects_.find(key);
    if (type == watch_event_type::deleted) {
        if (it == objects_.end()) return std::nullopt;
        delta d{delta::kind::deleted, key, materialize(it->second), nullptr};
        unindex(key, it->second);
        objects_.erase(it);
        return d;
    }
    if (it != objects_.end() && it->second.resource_version == meta_string(object, "resourceVersion")) {
        // Same version replayed (e.g. ADDED after a reconnect): not a change.
        return std::nullopt;
    }
    entry fresh;
    auto snap = admit(std::move(object), fresh);
    if (it == objects_.end()) {
        auto [pos, ok] = objects_.emplace(key, std::move(fresh));
        index(pos->first, pos->second);
        return delta{delta::kind::added, std::move(key), nullptr, std::move(snap)};
    }
    auto old = materialize(it->second);
    unindex(key, it->second);
    it->second = std::move(fresh);
    index(it->first, it->second);
    return delta{delta::kind::updated, std::move(key), std::move(old), std::move(snap)};
}

std::vector<object_cache::delta> object_cache::replace(json::array items) {
    std::vector<delta> out;
    std::unordered_set<std::string> seen;
    seen.reserve(items.size());
    for (auto& item : items) {
        std::string key = key_of(item);
        if (key.empty()) continue;
        seen.insert(key);
        if (auto d = apply(watch_event_type::modified, std::move(item))) out.push_back(std::move(*d));
    }
    std::vector<std::string> gone;
    for (const auto& [k, e] : objects_)
        if (!seen.contains(k)) gone.push_back(k);
    for (auto& k : gone) {
        auto it = objects_.find(k);
        out.push_back(delta{delta::kind::deleted, k, materialize(it->second), nullptr});
        unindex(k, it->second);
        objects_.erase(it);
    }
    return out;
}

object_cache::object_ptr object_cache::get(std::string_view key) const {
    auto it = objects_.find(std::string(key));
    return it == objects_.end() ? nullptr : materialize(it->second);
}

std::vector<object_cache::object_ptr> object_cache::in_namespace(std::string_view ns) const {
    std::vector<object_ptr> out;
    auto it = by_namespace_.find(std::string(ns));
    if (it == by_namespace_.end()) return out;
    for (const auto& k : it->second) out.push_back(materialize(objects_.at(k)));
    return out;
}

std::vector<object_cache::object_ptr> object_cache::owned_by(std::string_view owner_uid) const {
    std::vector<object_ptr> out;
    auto it = by_owner_.find(std::string(owner_uid));
    if (it == by_owner_.end()) return out;
    for (const auto& k : it->second) out.push_back(materialize(objects_.at(k)));
    return out;
}

std::vector<object_cache::object_ptr> object_cache::all() const {
    std::vector<object_ptr> out;
    out.reserve(objects_.size());
    for (const auto& [k, e] : objects_) out.push_back(materialize(e));
    return out;
}

}  // namespace attune::kube
