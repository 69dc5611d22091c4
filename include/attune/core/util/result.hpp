#pragma once
// Value-or-error for the pure core. Server data is never asserted on:
// malformed input becomes an error with a stable code and a human message.
#include <string>
#include <utility>
#include <variant>

namespace attune::core {

struct Error {
    std::string code;     // stable, machine-readable (e.g. "invalid_quantity")
    std::string message;  // says what was wrong and where
};

template <class T>
class Result {
public:
    Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}
    Result(core::Error e) : v_(std::in_place_index<1>, std::move(e)) {}

    bool ok() const noexcept { return v_.index() == 0; }
    explicit operator bool() const noexcept { return ok(); }

    // Precondition: ok(). std::get throws std::bad_variant_access otherwise.
    const T& value() const& { return std::get<0>(v_); }
    T& value() & { return std::get<0>(v_); }
    T&& value() && { return std::get<0>(std::move(v_)); }

    // Precondition: !ok().
    const core::Error& error() const { return std::get<1>(v_); }

private:
    std::variant<T, core::Error> v_;
};

inline core::Error make_error(std::string code, std::string message) {
    return core::Error{std::move(code), std::move(message)};
}

}  // namespace attune::core
