#pragma once
// Incremental decoder of a List response body
//   {"kind":"PodList","metadata":{"resourceVersion":"..","continue":".."},"items":[{..},{..}]}
// fed in chunks as they come off the socket. Each item is handed over as its
// own JSON value the moment its closing brace arrives, so the decoder holds
// at most one item's tree (plus the parser's small state), never a page.
// Pure: Boost.JSON's SAX basic_parser and a value_stack, no I/O.
#include <boost/json/value.hpp>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace attune::kube {

class ListDecoder {
public:
    using ItemSink = std::function<void(boost::json::value&&)>;

    explicit ListDecoder(ItemSink on_item);
    ~ListDecoder();
    ListDecoder(const ListDecoder&) = delete;
    ListDecoder& operator=(const ListDecoder&) = delete;

    // Feeds the next piece of the body. Returns false once the body is
    // malformed (error() says why); later calls do nothing.
    bool feed(std::string_view chunk);
    // The body ended: false when the document is incomplete or malformed.
    bool finish();

    const std::string& resource_version() const noexcept;
    const std::string& continue_token() const noexcept;
    std::size_t items() const noexcept;
    const std::string& error() const noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace attune::kube
