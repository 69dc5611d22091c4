#pragma once
// Private helpers for the core's JSON decoders. A decoder throws
// DecodeFailure internally; the public entry point catches it and returns
// a result, so no malformed object ever escapes as an exception.
#include <boost/json.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "attune/core/util/json_path.hpp"
#include "attune/core/util/result.hpp"

namespace attune::core::detail {

struct DecodeFailure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

[[noreturn]] inline void fail(const std::string& path, const std::string& what) {
    throw DecodeFailure(path + ": " + what);
}

inline const boost::json::object& as_object(const boost::json::value& v, const std::string& path) {
    if (!v.is_object()) fail(path, "expected an object");
    return v.get_object();
}

// Field lookup where JSON null and absence mean the same (Kubernetes omits
// empty fields but some clients send null).
inline const boost::json::value* field(const boost::json::object& o, std::string_view key) {
    return json_at(o, {key});
}

inline const boost::json::object* opt_object(const boost::json::object& o, std::string_view key,
                                             const std::string& path) {
    const auto* v = field(o, key);
    return v ? &as_object(*v, path + "." + std::string(key)) : nullptr;
}

inline const boost::json::array* opt_array(const boost::json::object& o, std::string_view key,
                                           const std::string& path) {
    const auto* v = field(o, key);
    if (!v) return nullptr;
    if (!v->is_array()) fail(path + "." + std::string(key), "expected an array");
    return &v->get_array();
}

inline std::string opt_string(const boost::json::object& o, std::string_view key, const std::string& path) {
    const auto* v = field(o, key);
    if (!v) return {};
    if (!v->is_string()) fail(path + "." + std::string(key), "expected a string");
    return std::string(v->get_string());
}

inline std::optional<std::int64_t> opt_int(const boost::json::object& o, std::string_view key,
                                           const std::string& path) {
    const auto* v = field(o, key);
    if (!v) return std::nullopt;
    if (v->is_int64()) return v->get_int64();
    if (v->is_uint64() && v->get_uint64() <= static_cast<std::uint64_t>(INT64_MAX))
        return static_cast<std::int64_t>(v->get_uint64());
    if (v->is_double()) {
        const double d = v->get_double();
        if (d == static_cast<double>(static_cast<std::int64_t>(d))) return static_cast<std::int64_t>(d);
    }
    fail(path + "." + std::string(key), "expected an integer");
}

// A JSON number of any representation as a double.
inline double as_number(const boost::json::value& v, const std::string& path) {
    if (v.is_double()) return v.get_double();
    if (v.is_int64()) return static_cast<double>(v.get_int64());
    if (v.is_uint64()) return static_cast<double>(v.get_uint64());
    fail(path, "expected a number");
}

// A replica count or similar: an int32 that must not be negative.
inline std::optional<std::int32_t> opt_count(const boost::json::object& o, std::string_view key,
                                             const std::string& path) {
    const auto v = opt_int(o, key, path);
    if (!v) return std::nullopt;
    if (*v < 0 || *v > INT32_MAX) fail(path + "." + std::string(key), "out of range");
    return static_cast<std::int32_t>(*v);
}

inline bool opt_bool(const boost::json::object& o, std::string_view key, const std::string& path) {
    const auto* v = field(o, key);
    if (!v) return false;
    if (!v->is_bool()) fail(path + "." + std::string(key), "expected a boolean");
    return v->get_bool();
}

// An enum field written as one of `names`, listed in the order of the
// enum's values; an unknown name fails with the allowed ones.
template <class E, std::size_t N>
std::optional<E> opt_enum(const boost::json::object& o, std::string_view key, const std::string& path,
                          const std::string_view (&names)[N]) {
    const auto* v = field(o, key);
    if (!v) return std::nullopt;
    const std::string at = path + "." + std::string(key);
    if (!v->is_string()) fail(at, "expected a string");
    for (std::size_t i = 0; i < N; ++i)
        if (v->get_string() == names[i]) return static_cast<E>(i);
    std::string allowed;
    for (std::size_t i = 0; i < N; ++i) allowed += (i ? ", " : "") + std::string(names[i]);
    fail(at, "\"" + std::string(v->get_string()) + "\" is not one of " + allowed);
}

// An object of strings (labels, annotations, headers); absent = empty.
inline std::map<std::string, std::string, std::less<>> opt_string_map(const boost::json::object& o,
                                                                      std::string_view key, const std::string& path) {
    std::map<std::string, std::string, std::less<>> out;
    const auto* m = opt_object(o, key, path);
    if (!m) return out;
    for (const auto& [k, v] : *m) {
        if (!v.is_string()) fail(path + "." + std::string(key) + "." + std::string(k), "expected a string");
        out.emplace(std::string(k), std::string(v.get_string()));
    }
    return out;
}

// The public entry point of a decoder: f() may throw DecodeFailure, which
// becomes the error `code` with the failure's path and text.
template <class F>
auto guarded(std::string_view code, F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (const DecodeFailure& e) {
        return make_error(std::string(code), e.what());
    }
}

}  // namespace attune::core::detail
