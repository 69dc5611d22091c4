#pragma once
// The I/O the upgrade chain's steps carry out for the core's decisions: push
// gauges to the Pushgateway, list and create chain Jobs, record the last gate
// reasons, run the pluggable upgrade command, wait for the new version.

#include <attune/core/upgrade/upgrade_chain.hpp>
#include <attune/http/url.hpp>
#include <attune/kube/client.hpp>

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace attune::cli {

// Chain Jobs and the report ConfigMap.
kube::ResourceType jobs_resource();
kube::ResourceType configmaps_resource();
inline constexpr const char* kReportConfigMap = "attune-upgrade-gate-report";

// POST /metrics/job/<job>: replaces these metric names in that group and
// keeps the others (the detector's and the steps' gauges share the group).
// Returns "" or what went wrong.
boost::asio::awaitable<std::string> push_gauges(boost::asio::any_io_executor ex, http::ServerUrl gateway,
                                                std::string job, std::vector<core::PushedGauge> gauges);

// The chain's Jobs in `ns` for `target`.
boost::asio::awaitable<kube::ApiResult<std::vector<core::ChainJob>>> list_chain_jobs(kube::Client& c, std::string ns,
                                                                                     std::string target);

// Creates one chain Job from the template file. Returns the created Job or an error text.
struct CreatedJob {
    std::string name, uid, error;
};
boost::asio::awaitable<CreatedJob> create_chain_job(kube::Client& c, std::string ns, std::string template_path,
                                                    core::ChainPhase phase, core::KubeMinor target);

// The preflight's verdict and reason lines, for `upgrade-report` (server-side
// apply of one ConfigMap). Returns "" or what went wrong.
struct GateRecord {
    std::string target, verdict, server_version, evaluated_at, error;
    int exit_code = 3;
    std::vector<std::string> lines;
};
boost::asio::awaitable<std::string> record_gate_reasons(kube::Client& c, std::string ns, GateRecord rec);

// Runs `/bin/sh -c command`, its output on our stderr (the Job's log), in its
// own process group, killed after `timeout`. Returns the exit status (128+N
// for a signal, 124 on timeout, 127 if it could not start). Blocks.
int run_upgrade_command(const std::string& command, std::chrono::milliseconds timeout);

// Polls /version until the server reports `target` (an apiserver restarting
// under an upgrade fails requests meanwhile). Returns "" or what went wrong.
boost::asio::awaitable<std::string> wait_for_server_minor(kube::Client& c, core::KubeMinor target,
                                                          std::chrono::milliseconds timeout);

// Lists nodes; "" when all are Ready, else the error or the unready names.
boost::asio::awaitable<std::string> check_nodes_ready(kube::Client& c);

std::string utc_now_rfc3339();

}  // namespace attune::cli
