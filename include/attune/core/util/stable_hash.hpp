#pragma once
// FNV-1a 64 over length-prefixed fields: a tiny, dependency-free hash whose
// value is fixed by its definition, so it is identical across runs,
// compilers and platforms (std::hash is none of these). Not for security:
// it names revisions and orders pods.
#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace attune::core {

class StableHasher {
public:
    // Each field is fed as "<decimal length>:<bytes>" so ("ab","c") and
    // ("a","bc") differ.
    StableHasher& field(std::string_view bytes);
    std::uint64_t digest() const noexcept { return state_; }

private:
    void feed(std::string_view bytes);
    std::uint64_t state_ = 0xcbf29ce484222325ULL;  // FNV-1a 64 offset basis
};

std::uint64_t stable_hash(std::initializer_list<std::string_view> fields);

}  // namespace attune::core
