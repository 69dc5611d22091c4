#include "attune/core/util/stable_hash.hpp"

#include <string>

namespace attune::core {

void StableHasher::feed(std::string_view bytes) {
    for (unsigned char c : bytes) {
        state_ ^= c;
        state_ *= 0x100000001b3ULL;  // FNV-1a 64 prime
    }
}

StableHasher& StableHasher::field(std::string_view bytes) {
    feed(std::to_string(bytes.size()));
    feed(":");
    feed(bytes);
    return *this;
}

std::uint64_t stable_hash(std::initializer_list<std::string_view> fields) {
    StableHasher h;
    for (auto f : fields) h.field(f);
    return h.digest();
}

}  // namespace attune::core
