#include "doctor_cgroup.hpp"

#include <string>
#include <vector>

namespace attune::cli {

namespace {

constexpr std::string_view kHostCheck = "Host check: stat -fc %T /sys/fs/cgroup (cgroup2fs is v2, tmpfs is v1).";

std::string fail_cgroup_v1_note(unsigned major, unsigned minor) {
    const bool at_least_137 = major > 1 || (major == 1 && minor >= 37);
    const bool at_least_135 = major > 1 || (major == 1 && minor >= 35);
    if (at_least_137)
        return " On 1.37+ kubelet failCgroupV1 defaults true: a kubelet on cgroup v1 does not start unless "
               "failCgroupV1=false is set, so a Ready node is most likely v2 (not proof).";
    if (at_least_135)
        return " Since 1.35 kubelet failCgroupV1 defaults true: a cgroup v1 node joins only with "
               "failCgroupV1=false, so a Ready node is most likely v2 (not proof).";
    return "";
}

}  // namespace

DoctorRow cgroup_row(const core::NodeListProbe& nodes, unsigned major, unsigned minor) {
    DoctorRow row;
    row.name = std::string(kCgroupRowName);
    row.required = false;
    row.status = DoctorStatus::Warn;  // never ok, never FAIL: nothing here proves the runtime version

    if (!nodes.error.empty()) {
        const std::string why = nodes.error_status == 403 ? "nodes list is forbidden for you" : nodes.error;
        row.detail = "could not determine: cannot list nodes (" + why +
                     "; doctor needs nodes get/list, see deploy/kustomize/rbac/kubectl-attune-doctor.yaml)." +
                     fail_cgroup_v1_note(major, minor) + " " + std::string(kHostCheck);
        return row;
    }
    std::vector<std::string> suspect;  // "name (kernel 5.4.0-150-generic)"
    std::size_t ready = 0, nfd_labelled = 0;
    for (const auto& n : nodes.nodes) {
        if (!n.ready) continue;
        ++ready;
        if (n.kernel_config_cgroup_v2) ++nfd_labelled;
        if (auto k = core::parse_major_minor(n.kernel_version); k && (k->first < 5 || (k->first == 5 && k->second < 8)))
            suspect.push_back((n.name.empty() ? std::string("<unnamed>") : n.name) + " (kernel " + n.kernel_version + ")");
    }
    if (ready == 0) {
        row.detail = "could not determine: no Ready nodes. " + std::string(kHostCheck);
        return row;
    }
    if (!suspect.empty()) {
        row.detail = "suspect cgroup v1 on " + join_names(suspect, 5) +
                     ": kernels before 5.8 usually boot cgroup v1, and in-place resize needs v2; the other " +
                     std::to_string(ready - suspect.size()) + " Ready node(s) could not be determined.";
    } else {
        row.detail = "could not determine (no Node field reports runtime cgroup version; k3s/kind/GKE/EKS/AKS "
                     "usually WARN; " +
                     std::to_string(ready) + " Ready node(s), kernels 5.8+ or unknown).";
    }
    row.detail += fail_cgroup_v1_note(major, minor) + " " + std::string(kHostCheck);
    if (nfd_labelled > 0)
        row.detail += " Footnote: " + std::to_string(nfd_labelled) + " of " + std::to_string(ready) +
                      " Ready node(s) carry NFD's kernel.config.CGROUP_V2=true: kernel compiled with v2 support "
                      "(not proof it booted with v2).";
    return row;
}

}  // namespace attune::cli
