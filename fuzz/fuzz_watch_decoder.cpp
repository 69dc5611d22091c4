// libFuzzer target: the watch stream path exactly as the informer runs it —
// split bytes into lines (at a fuzzer-chosen chunk size), decode each line,
// apply it to a pod cache through the pod transform. Nothing may crash,
// assert or grow past the line limit.
#include <attune/kube/object_cache.hpp>
#include <attune/kube/transforms.hpp>
#include <attune/kube/watch_decoder.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::size_t chunk = 1 + data[0] % 64;
    std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
    attune::kube::WatchLineSplitter splitter(4096);
    attune::kube::ObjectCache cache(attune::kube::strip_pod);
    auto on_line = [&](std::string_view line) {
        auto decoded = attune::kube::decode_watch_line(line);
        if (auto* ev = std::get_if<attune::kube::WatchEvent>(&decoded)) {
            (void)ev->is_gone();
            (void)ev->status_message();
            cache.apply(ev->type, std::move(ev->object));
        }
    };
    while (!in.empty()) {
        const auto piece = in.substr(0, chunk);
        in.remove_prefix(piece.size());
        if (!splitter.feed(piece, on_line)) break;
        if (splitter.buffered() > 4096) __builtin_trap();
    }
    splitter.finish(on_line);
    return 0;
}
