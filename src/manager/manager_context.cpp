#include "manager_context.hpp"

#include <boost/asio/post.hpp>

#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cstdio>
#include <fstream>
#include <random>

namespace attune::manager {
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

std::string leader_identity() {
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "unknown");
    std::mt19937_64 rng(std::random_device{}());
    char suffix[17];
    std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(rng()));
    return std::string(host) + "_" + std::string(suffix, 8);
}

kube::ClientSettings settings(const ManagerOptions& o) {
    kube::ClientSettings s;
    s.qps = o.kube_qps;
    s.burst = o.kube_burst;
    return s;
}

}  // namespace

ManagerContext::ManagerContext(asio::io_context& io_context, const ManagerOptions& options, kube::RestConfig cfg)
    : io(io_context), opts(options), identity(leader_identity()),
      client(io_context.get_executor(), std::move(cfg), settings(options), metrics.kube),
      events(client, "attune.io/attune-manager", identity), scope(options.watch_namespaces) {}

void ManagerContext::spawn(std::string task, std::function<asio::awaitable<void>()> body) {
    supervisors_.push_back(kube::spawn_supervised(io.get_executor(), std::move(task), std::move(body),
                                                  kube::BackoffPolicy{500ms, 2.0, 30s, 0.2},
                                                  &metrics.controller.coroutine_restarts));
}

void ManagerContext::stop_supervisors() {
    for (auto& s : supervisors_) s.request_stop();
}

void ManagerContext::release_free_memory_soon() {
    if (trim_pending_) return;
    trim_pending_ = true;
    asio::post(io, [this] {
        trim_pending_ = false;
#if defined(__GLIBC__)
        malloc_trim(0);
#endif
    });
}

std::string pod_namespace() {
    std::ifstream f("/var/run/secrets/kubernetes.io/serviceaccount/namespace");
    std::string ns;
    if (f && std::getline(f, ns) && !ns.empty()) return ns;
    return "";
}

std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : ",") + s;
    return out;
}

}  // namespace attune::manager
