// libFuzzer target: a protobuf pod LIST body as the pod informer reads it,
// fed at a fuzzer-chosen chunk size through ProtobufListDecoder and
// pod_from_protobuf into a pod cache through the pod transform. Nothing may
// crash, read past its input, or hold more than one item.
#include <attune/kube/object_cache.hpp>
#include <attune/kube/pod_protobuf.hpp>
#include <attune/kube/protobuf_list_decoder.hpp>
#include <attune/kube/transforms.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::size_t chunk = 1 + data[0] % 128;
    std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
    attune::kube::ObjectCache cache(attune::kube::strip_pod);
    attune::kube::ProtobufListDecoder decoder(attune::kube::pod_from_protobuf, [&](boost::json::value&& pod) {
        cache.apply(attune::kube::WatchEventType::Modified, std::move(pod));
    });
    bool ok = true;
    while (ok && !in.empty()) {
        const auto piece = in.substr(0, chunk);
        in.remove_prefix(piece.size());
        ok = decoder.feed(piece);
    }
    if (ok) (void)decoder.finish();
    (void)attune::kube::status_from_protobuf(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}
