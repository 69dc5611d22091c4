#include "attune/core/util/json_path.hpp"

#include <boost/json.hpp>

namespace attune::core {
namespace json = boost::json;

namespace {
const json::value* step(const json::object& o, std::string_view key) noexcept {
    const auto* v = o.if_contains(key);
    return v == nullptr || v->is_null() ? nullptr : v;
}
}  // namespace

const json::value* json_at(const json::value& doc, JsonPath path) noexcept {
    const json::value* cur = &doc;
    for (auto key : path) {
        const auto* o = cur->if_object();
        if (o == nullptr) return nullptr;
        cur = step(*o, key);
        if (cur == nullptr) return nullptr;
    }
    return cur->is_null() ? nullptr : cur;
}

const json::value* json_at(const json::object& doc, JsonPath path) noexcept {
    if (path.size() == 0) return nullptr;  // an object is not a value; ask for a key
    const auto* first = step(doc, *path.begin());
    if (first == nullptr) return nullptr;
    const json::value* cur = first;
    for (auto it = path.begin() + 1; it != path.end(); ++it) {
        const auto* o = cur->if_object();
        if (o == nullptr) return nullptr;
        cur = step(*o, *it);
        if (cur == nullptr) return nullptr;
    }
    return cur;
}

const json::object* object_at(const json::value& doc, JsonPath path) noexcept {
    const auto* v = json_at(doc, path);
    return v ? v->if_object() : nullptr;
}

const json::array* array_at(const json::value& doc, JsonPath path) noexcept {
    const auto* v = json_at(doc, path);
    return v ? v->if_array() : nullptr;
}

namespace {
std::string_view as_string(const json::value* v) noexcept {
    return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view{};
}
std::optional<bool> as_bool(const json::value* v) noexcept {
    if (v && v->is_bool()) return v->get_bool();
    return std::nullopt;
}
}  // namespace

std::string_view string_at(const json::value& doc, JsonPath path) noexcept { return as_string(json_at(doc, path)); }
std::string_view string_at(const json::object& doc, JsonPath path) noexcept { return as_string(json_at(doc, path)); }

std::optional<std::int64_t> int_at(const json::value& doc, JsonPath path) noexcept {
    const auto* v = json_at(doc, path);
    if (v == nullptr) return std::nullopt;
    if (v->is_int64()) return v->get_int64();
    if (v->is_uint64() && v->get_uint64() <= static_cast<std::uint64_t>(INT64_MAX))
        return static_cast<std::int64_t>(v->get_uint64());
    return std::nullopt;
}

std::optional<bool> bool_at(const json::value& doc, JsonPath path) noexcept { return as_bool(json_at(doc, path)); }
std::optional<bool> bool_at(const json::object& doc, JsonPath path) noexcept { return as_bool(json_at(doc, path)); }

}  // namespace attune::core
