// libFuzzer target: kubeconfig parsing and resolution. Any input must end
// in a RestConfig or a ConfigError, never a crash or another exception.
#include <attune/kube/kubeconfig.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string content(reinterpret_cast<const char*>(data), size);
    try {
        // A directory that does not exist: relative file references fail cleanly.
        auto cfg = attune::kube::resolve_kubeconfig({{"/nonexistent/attune-fuzz/config", content}}, "", size % 2 == 0);
        (void)cfg;
    } catch (const attune::kube::ConfigError&) {}
    return 0;
}
