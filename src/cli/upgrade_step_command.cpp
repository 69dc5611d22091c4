// kubectl attune upgrade-step: one step of the nightly upgrade chain (docs/upgrade-gate.md).
//   --detect                 the CronJob: find the next minor, spawn a preflight Job by the re-spawn rules
//   --phase preflight        run the gate, push the gauges once, proceed only when safe
//   --phase upgrade          run the pluggable upgrade command, wait for the new version
//   --phase postflight       check the result, clear both gauges
// Deliberate decisions (a block, a hold, nothing to do) exit 0 and halt the
// chain; real failures (unhealthy nodes, an upgrade error, a push that did
// not land, a crash) exit 1, which fails the Job and fires K8sUpgradeChainJobFailed.
#include "commands.hpp"
#include "session.hpp"
#include "upgrade_chain_io.hpp"
#include "upgrade_gate_run.hpp"

#include <attune/core/upgrade/upgrade_chain.hpp>
#include <attune/kube/discovery.hpp>
#include <attune/kube/event_recorder.hpp>

#include <spdlog/spdlog.h>

#include <unistd.h>

#include <ostream>

namespace attune::cli {
namespace asio = boost::asio;

namespace {

struct StepOptions {
    bool detect = false;
    core::ChainPhase phase = core::ChainPhase::Preflight;
    std::string target;  // "" for --detect: the next minor
    std::string matrix;
    std::string job_template;
    std::string upgrade_job_template;  // the upgrade phase's Job (privileged on a real cluster)
    std::optional<http::ServerUrl> pushgateway;
    std::string push_job = "attune-upgrade";
    std::string upgrade_command;
    std::chrono::milliseconds upgrade_timeout{30 * 60 * 1000};
    std::string latest;  // --latest 1.N: the newest released minor (detect)
};

core::Result<StepOptions> parse(const Invocation& inv) {
    auto bad = [](std::string m) { return core::make_error("bad_usage", std::move(m)); };
    if (!inv.flags.positionals.empty()) return bad("unexpected argument \"" + inv.flags.positionals[0] + "\"");
    StepOptions o;
    o.detect = inv.flags.flag("detect");
    const auto phase = inv.flags.get("phase");
    if (o.detect == !phase.empty()) return bad("give exactly one of --detect or --phase preflight|upgrade|postflight");
    if (!o.detect) {
        auto p = core::parse_chain_phase(phase);
        if (!p) return bad("--phase: expected preflight, upgrade or postflight, got \"" + phase + "\"");
        o.phase = *p;
    }
    o.target = inv.flags.get("target");
    if (!o.detect && o.target.empty()) return bad("--phase needs --target 1.N (the chain passes it on)");
    if (!o.target.empty() && !core::parse_kube_minor(o.target))
        return bad("--target: expected a Kubernetes minor such as 1.36, got \"" + o.target + "\"");
    o.matrix = inv.flags.get("matrix", kDefaultMatrix);
    o.job_template = inv.flags.get("job-template");
    const bool spawns = o.detect || o.phase != core::ChainPhase::Postflight;
    if (spawns && o.job_template.empty()) return bad("--job-template FILE is needed to spawn the next Job");
    o.upgrade_job_template = inv.flags.get("upgrade-job-template", o.job_template);
    if (inv.flags.has("pushgateway")) {
        auto e = parse_url_flag("pushgateway", inv.flags.get("pushgateway"));
        if (!e) return e.error();
        o.pushgateway = std::move(e).value();
    }
    if (!o.pushgateway && (o.detect || o.phase != core::ChainPhase::Upgrade))
        return bad("--pushgateway http://HOST:PORT is needed: this step records its gauges there");
    o.push_job = inv.flags.get("push-job", o.push_job);
    if (o.push_job.empty()) return bad("--push-job must not be empty");
    o.upgrade_command = inv.flags.get("upgrade-command");
    if (!o.detect && o.phase == core::ChainPhase::Upgrade && o.upgrade_command.empty())
        return bad("--phase upgrade needs --upgrade-command (e.g. a kubeadm wrapper; \"{target}\" becomes 1.N)");
    if (inv.flags.has("upgrade-timeout")) {
        auto d = parse_duration("upgrade-timeout", inv.flags.get("upgrade-timeout"));
        if (!d) return d.error();
        o.upgrade_timeout = d.value();
    }
    o.latest = inv.flags.get("latest");
    if (!o.latest.empty() && !core::parse_kube_minor(o.latest))
        return bad("--latest: expected a Kubernetes minor such as 1.37, got \"" + o.latest + "\"");
    return o;
}

int fail(const std::string& what) {
    spdlog::error("upgrade step failed error=\"{}\"", what);
    return kExitError;
}

asio::awaitable<int> preflight(Session& s, const StepOptions& o, Invocation& inv) {
    const auto target = *core::parse_kube_minor(o.target);
    if (auto bad = co_await check_nodes_ready(s.client()); !bad.empty()) co_return fail(bad);
    GateOptions go;
    go.matrix_path = o.matrix;
    go.target = o.target;
    auto run = co_await run_upgrade_gate(s.client(), go);
    print_gate_run(run, false, false, false, inv.out, inv.err);  // the Job's log
    const auto route = core::route_preflight(run.exit_code);
    // Once per run and definitively: no reset at the start, so a standing
    // block stays 1 and never flaps 1 -> 0 -> 1.
    auto ex = co_await asio::this_coro::executor;
    if (auto err = co_await push_gauges(ex, *o.pushgateway, o.push_job,
                                        core::verdict_gauges(target.str(), route.blocked, route.held));
        !err.empty())
        co_return fail(err);
    GateRecord rec;
    rec.target = target.str();
    rec.verdict = run.result ? std::string(core::to_string(run.result->verdict)) : "error";
    rec.exit_code = run.exit_code;
    rec.server_version = run.inputs.server_version;
    rec.evaluated_at = utc_now_rfc3339();
    rec.error = run.error;
    rec.lines = gate_lines(run);
    if (!run.error.empty()) rec.lines.push_back("[ACTIONABLE] gate: could not evaluate: " + run.error);
    if (auto err = co_await record_gate_reasons(s.client(), s.ns(), rec); !err.empty()) co_return fail(err);
    spdlog::info("preflight decided target={} gate_exit={} blocked={} held={} decision=\"{}\"", target.str(),
                 run.exit_code, route.blocked, route.held, route.why);
    if (!route.proceed) co_return kExitOk;  // a deliberate decision: the Job completes, the chain halts
    auto next =
        co_await create_chain_job(s.client(), s.ns(), o.upgrade_job_template, core::ChainPhase::Upgrade, target);
    if (!next.error.empty()) co_return fail(next.error);
    co_return kExitOk;
}

asio::awaitable<int> after_upgrade(Session& s, const StepOptions& o) {
    const auto target = *core::parse_kube_minor(o.target);
    if (auto err = co_await wait_for_server_minor(s.client(), target, o.upgrade_timeout); !err.empty())
        co_return fail(err);
    if (auto bad = co_await check_nodes_ready(s.client()); !bad.empty()) co_return fail(bad);
    auto next = co_await create_chain_job(s.client(), s.ns(), o.job_template, core::ChainPhase::Postflight, target);
    if (!next.error.empty()) co_return fail(next.error);
    co_return kExitOk;
}

asio::awaitable<int> postflight(Session& s, const StepOptions& o) {
    const auto target = *core::parse_kube_minor(o.target);
    auto v = co_await kube::probe_server_version(s.client());
    if (!v.error.empty()) co_return fail("cannot read /version: " + v.error);
    auto m = core::parse_kube_minor(v.git_version);
    if (!m || *m != target) co_return fail("the cluster runs " + v.git_version + ", not " + target.str());
    if (auto bad = co_await check_nodes_ready(s.client()); !bad.empty()) co_return fail(bad);
    auto ex = co_await asio::this_coro::executor;
    if (auto err = co_await push_gauges(ex, *o.pushgateway, o.push_job, core::verdict_gauges(target.str(), 0, 0));
        !err.empty())
        co_return fail(err);
    spdlog::info("postflight passed version={} target={}", v.git_version, target.str());
    co_return kExitOk;
}

asio::awaitable<int> detect(Session& s, const StepOptions& o) {
    auto v = co_await kube::probe_server_version(s.client());
    if (!v.error.empty()) co_return fail("cannot read /version: " + v.error);
    auto current = core::parse_kube_minor(v.git_version);
    if (!current) co_return fail("cannot read the server version \"" + v.git_version + "\"");
    const core::KubeMinor target = o.target.empty() ? current->next() : *core::parse_kube_minor(o.target);
    auto ex = co_await asio::this_coro::executor;
    if (!o.latest.empty() && target > *core::parse_kube_minor(o.latest)) {
        if (auto err = co_await push_gauges(ex, *o.pushgateway, o.push_job, core::available_gauge(current->str(), false));
            !err.empty())
            co_return fail(err);
        spdlog::info("no newer Kubernetes minor server={} latest={}", v.git_version, o.latest);
        co_return kExitOk;
    }
    // An echo, not an announcement: the nightly report says it.
    spdlog::info("kubernetes upgrade available server={} target={}", v.git_version, target.str());
    if (auto err = co_await push_gauges(ex, *o.pushgateway, o.push_job, core::available_gauge(target.str(), true));
        !err.empty())
        co_return fail(err);
    auto jobs = co_await list_chain_jobs(s.client(), s.ns(), target.str());
    if (!jobs) co_return fail("cannot list the chain's Jobs in " + s.ns() + ": " + jobs.error().describe());
    const auto d = core::decide_detector(target.str(), jobs.value());
    spdlog::info("detector decided target={} action={} announce={} why=\"{}\"", target.str(), core::to_string(d.action),
                 d.announce, d.why);
    if (d.action == core::DetectorAction::None) co_return kExitOk;
    auto job = co_await create_chain_job(s.client(), s.ns(), o.job_template, core::ChainPhase::Preflight, target);
    if (!job.error.empty()) co_return fail(job.error);
    if (d.announce) {
        // The announcement is an Event on the new Job (and this log line);
        // a silent re-evaluation of a refusal gets neither.
        const bool failed = d.action == core::DetectorAction::RespawnFailed;
        char host[256] = {};
        if (gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "upgrade-detector");
        kube::EventRecorder events(s.client(), "attune.io/upgrade-detector", host);
        kube::ObjectReference ref("batch/v1", "Job", s.ns(), job.name, job.uid);
        kube::K8sEvent ev(ref, failed ? "Warning" : "Normal", failed ? "UpgradePreflightRespawned" : "UpgradeAvailable",
                          "SpawnPreflight",
                          failed ? d.why + ": spawned " + job.name
                                 : "Kubernetes " + target.str() + " is available (cluster " + v.git_version +
                                       "): spawned preflight " + job.name);
        co_await events.emit(ev);
        spdlog::warn("announce upgrade chain target={} job={} reason={}", target.str(), job.name, ev.reason);
    }
    co_return kExitOk;
}

int run(Invocation& inv) {
    auto parsed = parse(inv);
    if (!parsed) return usage_error(inv.err, "upgrade-step", parsed.error().message, kExitUsage);
    const auto& o = parsed.value();
    if (!o.detect && o.phase == core::ChainPhase::Upgrade) {
        const auto cmd = core::upgrade_command_for(o.upgrade_command, *core::parse_kube_minor(o.target));
        spdlog::info("running the upgrade command command=\"{}\"", cmd);
        const int rc = run_upgrade_command(cmd, o.upgrade_timeout);
        if (rc != 0) return fail("the upgrade command exited " + std::to_string(rc));
        return run_in_session(inv, o.upgrade_timeout + std::chrono::minutes(1), kExitError,
                              [&](Session& s) { return after_upgrade(s, o); });
    }
    return run_in_session(inv, std::chrono::minutes(5), kExitError, [&](Session& s) -> asio::awaitable<int> {
        if (o.detect) co_return co_await detect(s, o);
        if (o.phase == core::ChainPhase::Preflight) co_return co_await preflight(s, o, inv);
        co_return co_await postflight(s, o);
    });
}

}  // namespace

Command make_upgrade_step_command() {
    Command c;
    c.name = "upgrade-step";
    c.summary = "One step of the nightly Kubernetes upgrade chain (detect, preflight, upgrade, postflight)";
    c.usage = "kubectl attune upgrade-step --detect | --phase preflight|upgrade|postflight --target 1.N [flags]";
    c.description =
        "--detect (the CronJob) finds the next minor and spawns a preflight Job: when none exists (announced),\n"
        "again when the last one Completed but no upgrade Job exists (a refusal re-evaluated, silently), again\n"
        "when it Failed (announced). An announcement is a Kubernetes Event on the new Job.\n"
        "preflight runs the gate and pushes k8s_upgrade_blocked/k8s_upgrade_held once: exit 0 of the gate\n"
        "spawns the upgrade Job; an actionable block, a gate error or a hold completes the step and halts the chain.\n"
        "upgrade runs --upgrade-command, waits for the new version, spawns postflight; postflight clears the gauges.\n"
        "Exit 0 for every deliberate decision; 1 for a real failure (unhealthy nodes, upgrade error, push failure).";
    c.flags = {
        {"detect", 0, FlagKind::Boolean, "", "run the detector (the nightly CronJob)"},
        {"phase", 0, FlagKind::Value, "PHASE", "preflight, upgrade or postflight"},
        {"target", 0, FlagKind::Value, "1.N", "the chain's target (default for --detect: the next minor)"},
        {"matrix", 0, FlagKind::Value, "FILE",
         std::string("the gate's compat matrix (default ") + kDefaultMatrix + ")"},
        {"job-template", 0, FlagKind::Value, "FILE", "the chain Job template (JSON batch/v1 Job) for the next step"},
        {"upgrade-job-template", 0, FlagKind::Value, "FILE",
         "preflight: the upgrade phase's Job template (default --job-template)"},
        {"pushgateway", 0, FlagKind::Value, "URL", "Pushgateway base URL, http://HOST:PORT"},
        {"push-job", 0, FlagKind::Value, "NAME", "the Pushgateway job label (default attune-upgrade)"},
        {"upgrade-command", 0, FlagKind::Value, "CMD", "the upgrade, run by /bin/sh -c; {target} becomes 1.N"},
        {"upgrade-timeout", 0, FlagKind::Value, "DURATION",
         "for the upgrade command and the new version (default 30m)"},
        {"latest", 0, FlagKind::Value, "1.N", "--detect: the newest released minor; at it, nothing is spawned"},
    };
    c.run = run;
    return c;
}

}  // namespace attune::cli
