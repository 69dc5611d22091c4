#pragma once
// Lenient reads of a JSON document along a path of object keys, for code that
// tolerates any shape (informer handlers, caches, the runtime). Every step
// must be an object; a missing key, JSON null or a value of another type
// reads as absent, never as an error. Decoders that must report what was
// wrong use the strict helpers of src/core/util/json_decode.hpp instead.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>

namespace attune::core {

using JsonPath = std::initializer_list<std::string_view>;

// The value at `path` (an empty path is the document itself), or nullptr.
const boost::json::value* json_at(const boost::json::value& doc, JsonPath path) noexcept;
const boost::json::value* json_at(const boost::json::object& doc, JsonPath path) noexcept;

const boost::json::object* object_at(const boost::json::value& doc, JsonPath path) noexcept;
const boost::json::array* array_at(const boost::json::value& doc, JsonPath path) noexcept;
// "" when absent or not a string. The view points into `doc`.
std::string_view string_at(const boost::json::value& doc, JsonPath path) noexcept;
std::string_view string_at(const boost::json::object& doc, JsonPath path) noexcept;
// An integer (int64, or uint64 within range); nullopt otherwise.
std::optional<std::int64_t> int_at(const boost::json::value& doc, JsonPath path) noexcept;
std::optional<bool> bool_at(const boost::json::value& doc, JsonPath path) noexcept;
std::optional<bool> bool_at(const boost::json::object& doc, JsonPath path) noexcept;

}  // namespace attune::core
