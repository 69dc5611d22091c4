#include <attune/kube/protobuf_list_decoder.hpp>

#include <attune/kube/pod_protobuf.hpp>
#include <attune/kube/protobuf_reader.hpp>

#include <algorithm>

namespace attune::kube {

ProtobufListDecoder::ProtobufListDecoder(ItemDecoder decode, ItemSink on_item)
    : decode_(std::move(decode)), sink_(std::move(on_item)) {}

bool ProtobufListDecoder::fail(std::string why) {
    if (error_.empty()) error_ = std::move(why);
    return false;
}

bool ProtobufListDecoder::read_header(std::uint32_t& number, unsigned& wire_type, std::uint64_t& value,
                                      std::size_t& header_len) {
    std::size_t p = pos_;
    std::uint64_t key = 0;
    if (!ProtobufReader::read_varint(buf_, p, key)) {
        if (buf_.size() - pos_ >= 10) fail("malformed protobuf list: bad field key");
        return false;
    }
    number = static_cast<std::uint32_t>(key >> 3);
    wire_type = static_cast<unsigned>(key & 7);
    value = 0;
    if (number == 0) return fail("malformed protobuf list: field 0");
    switch (wire_type) {
        case 0:
        case 2:
            if (!ProtobufReader::read_varint(buf_, p, value)) {
                if (buf_.size() - p >= 10) fail("malformed protobuf list: bad varint");
                return false;
            }
            break;
        case 1: value = 8; break;  // fixed widths are skipped as bytes
        case 5: value = 4; break;
        default: return fail("malformed protobuf list: wire type " + std::to_string(wire_type));
    }
    header_len = p - pos_;
    return true;
}

// One unit of progress; false when more input is needed or on failure.
bool ProtobufListDecoder::step() {
    if (skip_left_ > 0) {
        const auto n = std::min<std::uint64_t>(skip_left_, buf_.size() - pos_);
        if (n == 0) return false;
        pos_ += n;
        skip_left_ -= n;
        if (skip_in_list_) list_left_ -= n;
        return true;
    }
    switch (state_) {
        case State::Magic:
            if (buf_.size() - pos_ < kProtobufMagic.size()) return false;
            if (std::string_view(buf_).substr(pos_, kProtobufMagic.size()) != kProtobufMagic)
                return fail("not a protobuf list (no k8s magic)");
            pos_ += kProtobufMagic.size();
            state_ = State::Envelope;
            return true;
        case State::Envelope: {
            std::uint32_t number = 0;
            unsigned wt = 0;
            std::uint64_t value = 0;
            std::size_t hl = 0;
            if (pos_ == buf_.size() || !read_header(number, wt, value, hl)) return false;
            pos_ += hl;
            if (number == 2 && wt == 2) {  // raw: the list itself, read field by field
                if (saw_list_) return fail("malformed protobuf list: two lists in one envelope");
                saw_list_ = true;
                list_left_ = value;
                state_ = State::List;
                return true;
            }
            if (number == 3 && wt == 2 && value > 0) return fail("unsupported protobuf content encoding");
            if (wt == 1 || wt == 2 || wt == 5) {
                skip_left_ = value;
                skip_in_list_ = false;
            }
            return true;
        }
        case State::List: {
            if (list_left_ == 0) {
                state_ = State::Envelope;
                return true;
            }
            std::uint32_t number = 0;
            unsigned wt = 0;
            std::uint64_t value = 0;
            std::size_t hl = 0;
            if (pos_ == buf_.size() || !read_header(number, wt, value, hl)) return false;
            if (hl > list_left_) return fail("malformed protobuf list: field past the list's end");
            const bool whole = wt == 2 && (number == 1 || number == 2);
            if (whole) {
                if (value > kMaxItemBytes) return fail("protobuf list item over " + std::to_string(kMaxItemBytes) + " bytes");
                if (hl + value > list_left_) return fail("malformed protobuf list: item past the list's end");
                if (buf_.size() - pos_ < hl + value) return false;  // wait for the whole item
                const std::string_view body = std::string_view(buf_).substr(pos_ + hl, static_cast<std::size_t>(value));
                pos_ += hl + value;
                list_left_ -= hl + value;
                if (number == 1) {  // ListMeta: resourceVersion = 2, continue = 3
                    ProtobufReader r(body);
                    ProtobufReader::Field f;
                    while (r.next(f)) {
                        if (f.type != ProtobufReader::Wire::Bytes) continue;
                        if (f.number == 2) resource_version_ = std::string(f.bytes);
                        else if (f.number == 3) continue_ = std::string(f.bytes);
                    }
                    if (r.failed()) return fail("malformed protobuf ListMeta");
                    return true;
                }
                auto item = decode_(body);
                if (!item) return fail("list item " + std::to_string(items_) + ": " + item.error().message);
                ++items_;
                sink_(std::move(item).value());
                return true;
            }
            pos_ += hl;
            list_left_ -= hl;
            if (wt != 0) {
                if (value > list_left_) return fail("malformed protobuf list: field past the list's end");
                skip_left_ = value;
                skip_in_list_ = true;
            }
            return true;
        }
        case State::Done: return false;
    }
    return false;
}

bool ProtobufListDecoder::feed(std::string_view chunk) {
    if (!error_.empty()) return false;
    buf_.append(chunk);
    while (error_.empty() && step()) {
    }
    if (!error_.empty()) return false;
    // Keep only the unread tail (at most one partial item).
    if (pos_ > 0) {
        buf_.erase(0, pos_);
        pos_ = 0;
    }
    return true;
}

bool ProtobufListDecoder::finish() {
    if (!error_.empty()) return false;
    if (state_ == State::Magic) return fail("empty protobuf list body");
    if (!saw_list_) return fail("protobuf envelope without a list");
    if (state_ != State::Envelope || skip_left_ > 0 || pos_ != buf_.size()) return fail("truncated protobuf list");
    state_ = State::Done;
    return true;
}

}  // namespace attune::kube
