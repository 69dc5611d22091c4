#pragma once
// A reader of the protobuf wire format (varints, length-delimited fields,
// fixed 32/64-bit values), enough to decode the few Kubernetes messages the
// manager lists in protobuf. Schema-free: the caller switches on field
// numbers and skips the rest, which is what makes protobuf lists cheap to
// read (a skipped field costs its length prefix, not a parse). Pure; never
// reads past its input: a malformed message sets failed() and stops.
#include <cstdint>
#include <string_view>

namespace attune::kube {

class ProtobufReader {
public:
    enum class Wire : std::uint8_t { Varint = 0, Fixed64 = 1, Bytes = 2, Fixed32 = 5 };

    struct Field {
        std::uint32_t number = 0;
        Wire type = Wire::Varint;
        std::uint64_t value = 0;  // varint and fixed types
        std::string_view bytes;   // length-delimited (strings, messages, packed arrays)
    };

    explicit ProtobufReader(std::string_view data) noexcept : data_(data) {}

    // The next field; false at the end of the input or on malformed data.
    bool next(Field& f) noexcept;
    bool failed() const noexcept { return failed_; }
    // Bytes consumed so far.
    std::size_t position() const noexcept { return pos_; }

    // One varint from the front of `data` (false when incomplete or over 10 bytes).
    static bool read_varint(std::string_view data, std::size_t& pos, std::uint64_t& out) noexcept;

private:
    std::string_view data_;
    std::size_t pos_ = 0;
    bool failed_ = false;
};

}  // namespace attune::kube
