#include "upgrade_chain_io.hpp"

#include <attune/http/https_client.hpp>
#include <attune/kube/discovery.hpp>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include <spdlog/spdlog.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace attune::cli {
namespace asio = boost::asio;
using namespace std::chrono_literals;

kube::ResourceType jobs_resource() { return kube::ResourceType("batch", "v1", "jobs", "Job", true); }
kube::ResourceType configmaps_resource() { return kube::ResourceType("", "v1", "configmaps", "ConfigMap", true); }

asio::awaitable<std::string> push_gauges(asio::any_io_executor ex, http::ServerUrl gateway, std::string job,
                                         std::vector<core::PushedGauge> gauges) {
    http::ClientOptions o;
    o.tls = gateway.scheme == "https";
    o.max_connections = 1;
    std::unique_ptr<http::HttpsClient> client;
    try {
        client = std::make_unique<http::HttpsClient>(ex, gateway.host, gateway.port, http::TlsOptions{}, o);
    } catch (const std::exception& e) {
        co_return std::string("push to the Pushgateway failed: ") + e.what();
    }
    http::Request req;
    req.method = http::Verb::Post;
    req.target = gateway.path_prefix + "/metrics/job/" + kube::percent_encode(job);
    req.body = core::render_push_body(gauges);
    req.headers.push_back({"Content-Type", "text/plain; version=0.0.4"});
    req.timeout = 15s;
    auto r = co_await client->send(req);
    client->close_idle();
    if (!r.ok())
        co_return "push to the Pushgateway failed: " + std::string(http::to_string(r.kind)) + ": " + r.ec.message();
    if (r.resp.status != 200 && r.resp.status != 202)
        co_return "the Pushgateway answered " + std::to_string(r.resp.status) + ": " + r.resp.body.substr(0, 300);
    co_return std::string();
}

asio::awaitable<kube::ApiResult<std::vector<core::ChainJob>>> list_chain_jobs(kube::Client& c, std::string ns,
                                                                              std::string target) {
    kube::ListOptions lo;
    lo.label_selector = std::string(core::kChainNameLabel) + "=" + std::string(core::kChainNameValue) + "," +
                        std::string(core::kUpgradeTargetLabel) + "=" + target;
    auto page = co_await c.list_all(jobs_resource(), ns, lo);
    if (!page) co_return page.error();
    std::vector<core::ChainJob> out;
    for (const auto& item : page.value().items) {
        auto j = core::chain_job_from(item);
        if (!j) co_return kube::ApiError(kube::ErrorKind::Decode, 0, "", j.error().message);
        out.push_back(std::move(j).value());
    }
    co_return out;
}

asio::awaitable<CreatedJob> create_chain_job(kube::Client& c, std::string ns, std::string template_path,
                                             core::ChainPhase phase, core::KubeMinor target) {
    CreatedJob out;
    std::ifstream f(template_path);
    if (!f) {
        out.error = "cannot read the Job template " + template_path;
        co_return out;
    }
    std::stringstream ss;
    ss << f.rdbuf();
    boost::system::error_code ec;
    auto tmpl = boost::json::parse(ss.str(), ec);
    if (ec) {
        out.error = "the Job template " + template_path + " is not JSON: " + ec.message();
        co_return out;
    }
    const auto now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch());
    const auto name = core::chain_job_name(phase, target, static_cast<std::uint64_t>(now.count()));
    auto job = core::build_chain_job(tmpl, phase, target, name);
    if (!job) {
        out.error = template_path + ": " + job.error().message;
        co_return out;
    }
    auto r = co_await c.create(jobs_resource(), ns, std::move(job).value());
    if (!r) {
        out.error = "cannot create Job " + ns + "/" + name + ": " + r.error().describe();
        co_return out;
    }
    out.name = name;
    boost::system::error_code ignored;
    if (const auto* uid = r.value().find_pointer("/metadata/uid", ignored); uid && uid->is_string())
        out.uid = std::string(uid->get_string());
    spdlog::info("chain job created namespace={} name={} phase={} target={}", ns, name, core::to_string(phase),
                 target.str());
    co_return out;
}

asio::awaitable<std::string> record_gate_reasons(kube::Client& c, std::string ns, GateRecord rec) {
    std::string reasons;
    for (const auto& l : rec.lines) reasons += l + "\n";
    boost::json::object data;
    data["target"] = rec.target;
    data["verdict"] = rec.verdict;
    data["exitCode"] = std::to_string(rec.exit_code);
    data["serverVersion"] = rec.server_version;
    data["evaluatedAt"] = rec.evaluated_at;
    data["reasons"] = reasons;
    if (!rec.error.empty()) data["error"] = rec.error;
    boost::json::object cm;
    cm["apiVersion"] = "v1";
    cm["kind"] = "ConfigMap";
    cm["metadata"] = {{"name", kReportConfigMap},
                      {"namespace", ns},
                      {"labels", {{std::string(core::kChainNameLabel), std::string(core::kChainNameValue)}}}};
    cm["data"] = std::move(data);
    kube::WriteOptions wo;
    wo.field_manager = "attune-upgrade-step";
    wo.force = true;
    auto r = co_await c.patch(configmaps_resource(), ns, kReportConfigMap, kube::PatchType::Apply,
                              boost::json::serialize(cm), std::string(), wo);
    if (!r) co_return "cannot record the gate reasons in ConfigMap " + ns + "/" + kReportConfigMap + ": " +
                      r.error().describe();
    co_return std::string();
}

int run_upgrade_command(const std::string& command, std::chrono::milliseconds timeout) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);  // stdout carries only reasons
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    std::string sh = "/bin/sh", dash_c = "-c", cmd = command;
    char* argv[] = {sh.data(), dash_c.data(), cmd.data(), nullptr};
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, "/bin/sh", &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        spdlog::error("upgrade command did not start error=\"{}\"", std::strerror(rc));
        return 127;
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    int status = 0;
    while (true) {
        const pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) return 127;
        if (std::chrono::steady_clock::now() >= deadline) {
            spdlog::error("upgrade command timed out; killing it timeout_s={}", timeout.count() / 1000);
            kill(-pid, SIGTERM);
            std::this_thread::sleep_for(5s);
            kill(-pid, SIGKILL);
            waitpid(pid, &status, 0);
            return 124;
        }
        std::this_thread::sleep_for(200ms);
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 127;
}

asio::awaitable<std::string> wait_for_server_minor(kube::Client& c, core::KubeMinor target,
                                                   std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string last = "no answer yet";
    asio::steady_timer t(co_await asio::this_coro::executor);
    while (std::chrono::steady_clock::now() < deadline) {
        auto v = co_await kube::probe_server_version(c);
        if (v.error.empty()) {
            auto m = core::parse_kube_minor(v.git_version);
            if (m && *m == target) co_return std::string();
            last = "the server reports " + v.git_version;
        } else {
            last = v.error;
        }
        t.expires_after(2s);
        co_await t.async_wait(asio::use_awaitable);
    }
    co_return "the apiserver did not report Kubernetes " + target.str() + " in time (" + last + ")";
}

asio::awaitable<std::string> check_nodes_ready(kube::Client& c) {
    kube::ListOptions lo;
    auto nodes = co_await c.list_all(kube::resources::nodes(), "", lo);
    if (!nodes) co_return "cannot list nodes: " + nodes.error().describe();
    auto rt = core::node_runtimes_from(nodes.value().items);
    if (!rt) co_return rt.error().message;
    auto bad = core::unready_nodes(rt.value());
    if (bad.empty()) co_return std::string();
    std::string names;
    for (const auto& n : bad) names += (names.empty() ? "" : ", ") + n;
    co_return "nodes not Ready: " + names;
}

std::string utc_now_rfc3339() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

}  // namespace attune::cli
