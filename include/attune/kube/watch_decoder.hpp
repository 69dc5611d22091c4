#pragma once
// Streaming decoder for watch bodies: newline-delimited JSON
// {"type":"ADDED|MODIFIED|DELETED|BOOKMARK|ERROR","object":{...}}.
// Pure and chunk-boundary agnostic; memory is bounded by max_line_bytes.
#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace attune::kube {

enum class WatchEventType { Added, Modified, Deleted, Bookmark, Error };

std::string_view to_string(WatchEventType t) noexcept;

struct WatchEvent {
    WatchEventType type = WatchEventType::Added;
    boost::json::value object;  // owns its memory (one monotonic block per event)

    // metadata.resourceVersion of the object ("" if absent). Opaque.
    std::string_view resource_version() const noexcept;
    // For ERROR events: the Status fields.
    int status_code() const noexcept;
    std::string_view status_reason() const noexcept;
    std::string_view status_message() const noexcept;
    // ERROR carrying 410 / Expired / Gone: the resume point is lost, relist.
    bool is_gone() const noexcept;
    // BOOKMARK annotated k8s.io/initial-events-end: "true": a WatchList's
    // initial state is complete.
    bool is_initial_events_end() const noexcept;
};

struct DecodeError {
    std::string message;
};

// Parses one line. Anything malformed is a DecodeError, never an assert.
std::variant<WatchEvent, DecodeError> decode_watch_line(std::string_view line);

// Splits a byte stream into lines. The partial last line is kept across
// feed() calls; a line longer than max_line_bytes poisons the decoder (the
// stream must be dropped and the watch re-established).
class WatchLineSplitter {
public:
    explicit WatchLineSplitter(std::size_t max_line_bytes = 16u << 20) : max_(max_line_bytes) {}

    // Calls on_line(std::string_view) for every complete non-empty line.
    // Returns false once the line limit was exceeded.
    template <class OnLine>
    bool feed(std::string_view chunk, OnLine&& on_line) {
        if (overflow_) return false;
        while (!chunk.empty()) {
            const auto nl = chunk.find('\n');
            if (nl == std::string_view::npos) {
                if (partial_.size() + chunk.size() > max_) return poison();
                partial_.append(chunk);
                return true;
            }
            std::string_view piece = chunk.substr(0, nl);
            chunk.remove_prefix(nl + 1);
            if (partial_.empty()) {
                emit(piece, on_line);  // fast path: no copy
            } else {
                if (partial_.size() + piece.size() > max_) return poison();
                partial_.append(piece);
                emit(std::string_view(partial_), on_line);
                partial_.clear();
            }
        }
        return true;
    }

    // At end of stream: a final line without '\n' is still a line.
    template <class OnLine>
    void finish(OnLine&& on_line) {
        if (!overflow_ && !partial_.empty()) emit(std::string_view(partial_), on_line);
        partial_.clear();
    }

    std::size_t buffered() const noexcept { return partial_.size(); }
    bool overflowed() const noexcept { return overflow_; }
    void reset() noexcept {
        partial_.clear();
        overflow_ = false;
    }

private:
    template <class OnLine>
    static void emit(std::string_view line, OnLine& on_line) {
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (!line.empty()) on_line(line);
    }
    bool poison() {
        overflow_ = true;
        partial_.clear();
        partial_.shrink_to_fit();
        return false;
    }

    std::size_t max_;
    std::string partial_;
    bool overflow_ = false;
};

}  // namespace attune::kube
