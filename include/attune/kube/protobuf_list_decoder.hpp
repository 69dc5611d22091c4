#pragma once
// Incremental decoder of a List answered in protobuf:
//   "k8s\0" + runtime.Unknown{typeMeta, raw = XList{metadata: ListMeta, items: [item...]}}
// fed in chunks as they come off the socket, like ListDecoder is for JSON.
// Each item is collected as its bytes arrive (one item at a time, never the
// page) and handed to the caller's item decoder, whose JSON goes to the sink.
// Pure: no I/O.
#include <attune/core/util/result.hpp>

#include <boost/json/value.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace attune::kube {

class ProtobufListDecoder {
public:
    using ItemDecoder = std::function<core::Result<boost::json::value>(std::string_view message)>;
    using ItemSink = std::function<void(boost::json::value&&)>;

    // Items over this size are refused as corrupt (etcd stores at most 1.5 MiB per object).
    static constexpr std::size_t kMaxItemBytes = 16u << 20;

    ProtobufListDecoder(ItemDecoder decode, ItemSink on_item);

    // Feeds the next piece of the body. Returns false once the body is
    // malformed or an item does not decode (error() says why); later calls do nothing.
    bool feed(std::string_view chunk);
    // The body ended: false when it is incomplete or malformed.
    bool finish();

    const std::string& resource_version() const noexcept { return resource_version_; }
    const std::string& continue_token() const noexcept { return continue_; }
    std::size_t items() const noexcept { return items_; }
    const std::string& error() const noexcept { return error_; }

private:
    enum class State { Magic, Envelope, List, Done };
    bool fail(std::string why);
    // One field header (tag and, for bytes, its length) at pos_; false when incomplete.
    bool read_header(std::uint32_t& number, unsigned& wire_type, std::uint64_t& value, std::size_t& header_len);
    bool step();

    ItemDecoder decode_;
    ItemSink sink_;
    State state_ = State::Magic;
    std::string buf_;
    std::size_t pos_ = 0;
    std::uint64_t list_left_ = 0;   // bytes of the raw list still to come
    std::uint64_t skip_left_ = 0;   // bytes of a skipped field still to come
    bool skip_in_list_ = false;     // the skipped bytes count against list_left_
    bool saw_list_ = false;
    std::string resource_version_;
    std::string continue_;
    std::size_t items_ = 0;
    std::string error_;
};

}  // namespace attune::kube
