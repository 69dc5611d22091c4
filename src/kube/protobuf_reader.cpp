#include <attune/kube/protobuf_reader.hpp>

namespace attune::kube {

bool ProtobufReader::read_varint(std::string_view data, std::size_t& pos, std::uint64_t& out) noexcept {
    out = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (pos >= data.size()) return false;
        const auto b = static_cast<std::uint8_t>(data[pos++]);
        out |= static_cast<std::uint64_t>(b & 0x7f) << shift;
        if (!(b & 0x80)) return true;
    }
    return false;
}

bool ProtobufReader::next(Field& f) noexcept {
    if (failed_ || pos_ >= data_.size()) return false;
    std::uint64_t key = 0;
    if (!read_varint(data_, pos_, key) || (key >> 3) == 0 || (key >> 3) > 0x1fffffff) {
        failed_ = true;
        return false;
    }
    f.number = static_cast<std::uint32_t>(key >> 3);
    f.value = 0;
    f.bytes = {};
    switch (key & 7) {
        case 0:
            f.type = Wire::Varint;
            if (!read_varint(data_, pos_, f.value)) break;
            return true;
        case 1:
        case 5: {
            const std::size_t n = (key & 7) == 1 ? 8 : 4;
            if (data_.size() - pos_ < n) break;
            for (std::size_t i = 0; i < n; ++i)
                f.value |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(data_[pos_ + i])) << (8 * i);
            pos_ += n;
            f.type = n == 8 ? Wire::Fixed64 : Wire::Fixed32;
            return true;
        }
        case 2: {
            std::uint64_t len = 0;
            if (!read_varint(data_, pos_, len) || len > data_.size() - pos_) break;
            f.type = Wire::Bytes;
            f.bytes = data_.substr(pos_, static_cast<std::size_t>(len));
            pos_ += static_cast<std::size_t>(len);
            return true;
        }
        default:  // groups (3, 4) are not used by Kubernetes; anything else is corrupt
            break;
    }
    failed_ = true;
    return false;
}

}  // namespace attune::kube
