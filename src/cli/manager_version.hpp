#pragma once
// "Which Attune is running in the cluster?" for `kubectl attune version`.
//
// Hook for doctor and status: today the answer comes from the
// attune-manager Deployment: its app.kubernetes.io/version label, else the tag
// of its "manager" container image. When the manager serves its version (e.g.
// a build-info metric or endpoint), read it in probe_manager_version and keep
// manager_version_from as the fallback.
#include <attune/kube/client.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/value.hpp>

#include <string>

namespace attune::cli {

struct ManagerVersionProbe {
    std::string version;  // "v0.1.0", "dev"; empty when unknown
    std::string source;   // "label app.kubernetes.io/version", "image attune/attune-manager:dev"
    std::string error;    // why it is unknown
};

// Pure: reads a Deployment object.
ManagerVersionProbe manager_version_from(const boost::json::value& deployment);

boost::asio::awaitable<ManagerVersionProbe> probe_manager_version(kube::Client& c, std::string ns, std::string name);

}  // namespace attune::cli
