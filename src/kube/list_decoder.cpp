#include <attune/kube/list_decoder.hpp>

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/monotonic_resource.hpp>
#include <boost/json/value_stack.hpp>

#include <cstdint>

namespace attune::kube {
namespace json = boost::json;
using boost::system::error_code;

namespace {

// Where the parser is in the List document. The root object is depth 1;
// "metadata" and "items" open at depth 2; each item is an object opening at
// depth 3 under "items". Everything else (kind, apiVersion) is skipped.
struct ListHandler {
    static constexpr std::size_t max_object_size = std::size_t(-1);
    static constexpr std::size_t max_array_size = std::size_t(-1);
    static constexpr std::size_t max_key_size = std::size_t(-1);
    static constexpr std::size_t max_string_size = std::size_t(-1);

    explicit ListHandler(ListDecoder::ItemSink s) : sink(std::move(s)) {}

    ListDecoder::ItemSink sink;
    json::value_stack stack;
    int depth = 0;       // containers open
    bool in_item = false;
    enum class Section { Other, Metadata, Items } in = Section::Other;
    std::string key;     // the key being read outside items
    std::string last_key;
    std::string text;    // a metadata string being assembled
    std::string resource_version, continue_token;
    std::size_t items = 0;

    bool metadata_string() const noexcept {
        return depth == 2 && in == Section::Metadata && (last_key == "resourceVersion" || last_key == "continue");
    }

    bool on_document_begin(error_code&) { return true; }
    bool on_document_end(error_code&) { return true; }

    bool on_object_begin(error_code&) {
        ++depth;
        if (in_item) return true;
        if (depth == 2) in = last_key == "metadata" ? Section::Metadata : Section::Other;
        if (depth == 3 && in == Section::Items) {
            // A fresh arena per item: its whole tree goes with one free.
            stack.reset(json::make_shared_resource<json::monotonic_resource>(8192));
            in_item = true;
        }
        return true;
    }
    bool on_object_end(std::size_t n, error_code&) {
        if (in_item) {
            stack.push_object(n);
            if (depth == 3) {
                in_item = false;
                ++items;
                sink(stack.release());
            }
        } else if (depth == 2) {
            in = Section::Other;
        }
        --depth;
        return true;
    }
    bool on_array_begin(error_code& ec) {
        ++depth;
        if (in_item) return true;
        if (depth == 1) {
            ec = make_error_code(json::error::syntax);  // a List body is an object
            return false;
        }
        if (depth == 2) in = last_key == "items" ? Section::Items : Section::Other;
        return true;
    }
    bool on_array_end(std::size_t n, error_code&) {
        if (in_item) stack.push_array(n);
        else if (depth == 2) in = Section::Other;
        --depth;
        return true;
    }
    bool on_key_part(json::string_view s, std::size_t, error_code&) {
        if (in_item) stack.push_chars(s);
        else key.append(s.data(), s.size());
        return true;
    }
    bool on_key(json::string_view s, std::size_t, error_code&) {
        if (in_item) {
            stack.push_key(s);
            return true;
        }
        key.append(s.data(), s.size());
        last_key.swap(key);
        key.clear();
        return true;
    }
    bool on_string_part(json::string_view s, std::size_t, error_code&) {
        if (in_item) stack.push_chars(s);
        else if (metadata_string()) text.append(s.data(), s.size());
        return true;
    }
    bool on_string(json::string_view s, std::size_t, error_code&) {
        if (in_item) {
            stack.push_string(s);
        } else if (metadata_string()) {
            text.append(s.data(), s.size());
            (last_key == "resourceVersion" ? resource_version : continue_token) = std::move(text);
            text.clear();
        }
        return true;
    }
    bool on_number_part(json::string_view, error_code&) { return true; }
    bool on_int64(std::int64_t i, json::string_view, error_code&) {
        if (in_item) stack.push_int64(i);
        return true;
    }
    bool on_uint64(std::uint64_t u, json::string_view, error_code&) {
        if (in_item) stack.push_uint64(u);
        return true;
    }
    bool on_double(double d, json::string_view, error_code&) {
        if (in_item) stack.push_double(d);
        return true;
    }
    bool on_bool(bool b, error_code&) {
        if (in_item) stack.push_bool(b);
        return true;
    }
    bool on_null(error_code&) {
        if (in_item) stack.push_null();
        return true;
    }
    bool on_comment_part(json::string_view, error_code&) { return true; }
    bool on_comment(json::string_view, error_code&) { return true; }
};

json::parse_options options() {
    json::parse_options po;
    po.max_depth = 64;
    return po;
}

}  // namespace

struct ListDecoder::impl {
    explicit impl(ItemSink s) : parser(options(), std::move(s)) {}
    json::basic_parser<ListHandler> parser;
    std::string error;
    bool failed = false;

    bool fail(const error_code& ec) {
        failed = true;
        if (error.empty()) error = "invalid list JSON: " + ec.message();
        return false;
    }
};

ListDecoder::ListDecoder(ItemSink on_item) : impl_(std::make_unique<impl>(std::move(on_item))) {}
ListDecoder::~ListDecoder() = default;

bool ListDecoder::feed(std::string_view chunk) {
    if (impl_->failed) return false;
    error_code ec;
    while (!chunk.empty()) {
        const auto n = impl_->parser.write_some(true, chunk.data(), chunk.size(), ec);
        if (ec) return impl_->fail(ec);
        if (impl_->parser.done() && n < chunk.size()) {
            // Only whitespace may follow the document.
            for (char c : chunk.substr(n))
                if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return impl_->fail(make_error_code(json::error::extra_data));
            return true;
        }
        chunk.remove_prefix(n);
    }
    return true;
}

bool ListDecoder::finish() {
    if (impl_->failed) return false;
    error_code ec;
    if (!impl_->parser.done()) impl_->parser.write_some(false, nullptr, 0, ec);
    if (ec) return impl_->fail(ec);
    if (!impl_->parser.done()) return impl_->fail(make_error_code(json::error::incomplete));
    return true;
}

const std::string& ListDecoder::resource_version() const noexcept { return impl_->parser.handler().resource_version; }
const std::string& ListDecoder::continue_token() const noexcept { return impl_->parser.handler().continue_token; }
std::size_t ListDecoder::items() const noexcept { return impl_->parser.handler().items; }
const std::string& ListDecoder::error() const noexcept { return impl_->error; }

}  // namespace attune::kube
