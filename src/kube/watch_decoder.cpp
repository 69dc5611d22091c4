#include <attune/kube/watch_decoder.hpp>

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parser.hpp>

namespace attune::kube {
namespace json = boost::json;

std::string_view to_string(WatchEventType t) noexcept {
    switch (t) {
        case WatchEventType::Added: return "ADDED";
        case WatchEventType::Modified: return "MODIFIED";
        case WatchEventType::Deleted: return "DELETED";
        case WatchEventType::Bookmark: return "BOOKMARK";
        case WatchEventType::Error: return "ERROR";
    }
    return "ERROR";
}

namespace {

std::optional<WatchEventType> parse_type(std::string_view s) {
    if (s == "ADDED") return WatchEventType::Added;
    if (s == "MODIFIED") return WatchEventType::Modified;
    if (s == "DELETED") return WatchEventType::Deleted;
    if (s == "BOOKMARK") return WatchEventType::Bookmark;
    if (s == "ERROR") return WatchEventType::Error;
    return std::nullopt;
}

const json::value* field(const json::value& v, std::string_view k) {
    if (!v.is_object()) return nullptr;
    return v.get_object().if_contains(k);
}

}  // namespace

std::string_view WatchEvent::resource_version() const noexcept {
    if (auto* md = field(object, "metadata")) {
        if (auto* rv = field(*md, "resourceVersion"); rv && rv->is_string()) return rv->get_string();
    }
    return {};
}

int WatchEvent::status_code() const noexcept {
    if (auto* c = field(object, "code"); c && c->is_int64()) return static_cast<int>(c->get_int64());
    return 0;
}

std::string_view WatchEvent::status_reason() const noexcept {
    if (auto* r = field(object, "reason"); r && r->is_string()) return r->get_string();
    return {};
}

std::string_view WatchEvent::status_message() const noexcept {
    if (auto* m = field(object, "message"); m && m->is_string()) return m->get_string();
    return {};
}

bool WatchEvent::is_gone() const noexcept {
    if (type != WatchEventType::Error) return false;
    const auto reason = status_reason();
    return status_code() == 410 || reason == "Expired" || reason == "Gone";
}

bool WatchEvent::is_initial_events_end() const noexcept {
    if (type != WatchEventType::Bookmark) return false;
    const auto* md = field(object, "metadata");
    const auto* ann = md ? field(*md, "annotations") : nullptr;
    const auto* end = ann ? field(*ann, "k8s.io/initial-events-end") : nullptr;
    return end && end->is_string() && end->get_string() == "true";
}

std::variant<WatchEvent, DecodeError> decode_watch_line(std::string_view line) {
    // One block sized to the line: a whole event is freed with one deallocation.
    auto storage = json::make_shared_resource<json::monotonic_resource>(line.size() * 2 + 256);
    json::parse_options po;
    po.max_depth = 64;
    json::parser p({}, po);
    // reset() names where the value lives; the constructor's storage is the
    // parser's scratch only, so without it every string and object of the
    // event would be its own malloc.
    p.reset(storage);
    boost::system::error_code ec;
    p.write(line.data(), line.size(), ec);  // a complete document, trailing bytes are an error
    if (ec) return DecodeError{"invalid watch event JSON: " + ec.message()};
    json::value root = p.release();
    if (!root.is_object()) return DecodeError{"watch event is not an object"};
    auto& o = root.get_object();
    auto* t = o.if_contains("type");
    if (!t || !t->is_string()) return DecodeError{"watch event without a string type"};
    auto type = parse_type(t->get_string());
    if (!type) return DecodeError{"unknown watch event type '" + std::string(t->get_string()) + "'"};
    auto* obj = o.if_contains("object");
    if (!obj || !obj->is_object()) return DecodeError{"watch event without an object"};
    // Move-construct (never move-assign) so the object keeps the event's
    // storage: a pointer move, no copy.
    WatchEvent ev{*type, json::value(std::move(*obj))};
    if (ev.type != WatchEventType::Error && ev.resource_version().empty()) {
        return DecodeError{"watch event without metadata.resourceVersion"};
    }
    return ev;
}

}  // namespace attune::kube
