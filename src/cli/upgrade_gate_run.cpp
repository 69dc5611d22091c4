#include "upgrade_gate_run.hpp"

#include "output.hpp"

#include <attune/core/upgrade/upgrade_removed_apis.hpp>
#include <attune/kube/discovery.hpp>

#include <boost/json.hpp>

#include <spdlog/spdlog.h>

#include <fstream>
#include <ostream>
#include <sstream>

namespace attune::cli {
namespace asio = boost::asio;

namespace {

GateRun gate_error(GateRun run, std::string why) {
    run.exit_code = core::kGateError;
    run.error = std::move(why);
    return run;
}

std::string discovery_path(const std::string& gv) {
    return gv.find('/') == std::string::npos ? "/api/" + gv : "/apis/" + gv;
}

}  // namespace

asio::awaitable<GateRun> run_upgrade_gate(kube::Client& c, GateOptions opts) {
    GateRun run;
    run.target = opts.target;
    std::ifstream f(opts.matrix_path);
    if (!f) co_return gate_error(std::move(run), "cannot read the matrix " + opts.matrix_path);
    std::stringstream text;
    text << f.rdbuf();
    auto matrix = core::parse_upgrade_matrix(text.str(), opts.matrix_path);
    if (!matrix) co_return gate_error(std::move(run), matrix.error().message);
    const auto& m = matrix.value();

    auto version = co_await kube::probe_server_version(c);
    if (!version.error.empty()) co_return gate_error(std::move(run), "cannot read /version: " + version.error);
    auto current = core::parse_kube_minor(version.git_version);
    if (!current) co_return gate_error(std::move(run), "cannot read the server version \"" + version.git_version + "\"");
    run.inputs.server_version = version.git_version;
    run.inputs.current = *current;
    if (opts.target.empty()) {
        run.inputs.target = current->next();
    } else {
        auto t = core::parse_kube_minor(opts.target);
        if (!t) co_return gate_error(std::move(run), "--target \"" + opts.target + "\" is not a Kubernetes version such as 1.36");
        run.inputs.target = *t;
    }
    run.target = opts.target.empty() ? run.inputs.target.str() : opts.target;

    for (const auto& spec : m.addons) {
        const auto rt = kube::workload_resource(spec.source.kind);
        if (!rt) co_return gate_error(std::move(run), "addon " + spec.name + ": " + rt.error().message);
        auto w = co_await c.get(rt.value(), spec.source.ns, spec.source.name);
        if (!w && !w.error().is_not_found())
            co_return gate_error(std::move(run), "cannot read " + spec.source.kind + " " + spec.source.ns + "/" +
                                                     spec.source.name + " for addon " + spec.name + ": " +
                                                     w.error().describe());
        run.inputs.addons.push_back(core::observe_addon(spec, w ? &w.value() : nullptr));
    }

    // The apiserver's own count of deprecated-API requests (its /metrics).
    http::Request metrics_req;
    metrics_req.target = "/metrics";
    metrics_req.headers.emplace_back("Accept", "text/plain");
    auto metrics = co_await c.execute(std::move(metrics_req), "get");
    if (!metrics) co_return gate_error(std::move(run), "cannot read the apiserver's /metrics: " + metrics.error().describe());
    auto requested = core::parse_deprecated_api_requests(metrics.value().body);
    if (!requested) co_return gate_error(std::move(run), requested.error().message);
    run.inputs.requested_deprecated = std::move(requested).value();

    // Discovery, for the removal table's group-versions only.
    const auto wanted = core::removal_group_versions(m, run.inputs.target);
    if (!wanted.empty()) {
        auto groups = co_await c.get_path("/apis");
        if (!groups) co_return gate_error(std::move(run), "cannot read discovery /apis: " + groups.error().describe());
        auto served = core::group_versions_from_group_list(groups.value());
        if (!served) co_return gate_error(std::move(run), served.error().message);
        for (const auto& gv : wanted) {
            const bool core_group = gv.find('/') == std::string::npos;
            if (!core_group && std::find(served.value().begin(), served.value().end(), gv) == served.value().end())
                continue;
            auto list = co_await c.get_path(discovery_path(gv));
            if (!list && list.error().is_not_found()) continue;
            if (!list) co_return gate_error(std::move(run), "cannot read discovery for " + gv + ": " + list.error().describe());
            auto resources = core::served_from_resource_list(list.value());
            if (!resources) co_return gate_error(std::move(run), resources.error().message);
            run.inputs.served.push_back(std::move(resources).value());
        }
    }

    if (!m.containerd_min.empty()) {
        kube::ListOptions lo;
        auto nodes = co_await c.list_all(kube::resources::nodes(), "", lo);
        if (!nodes) co_return gate_error(std::move(run), "cannot list nodes: " + nodes.error().describe());
        auto rt = core::node_runtimes_from(nodes.value().items);
        if (!rt) co_return gate_error(std::move(run), rt.error().message);
        run.inputs.nodes = std::move(rt).value();
    }

    auto r = core::evaluate_upgrade_gate(m, run.inputs);
    if (!r) co_return gate_error(std::move(run), r.error().message);
    run.exit_code = r.value().exit_code;
    run.result = std::move(r).value();
    spdlog::info("upgrade gate evaluated server={} target={} verdict={} reasons={}", run.inputs.server_version,
                 run.target, core::to_string(run.result->verdict), run.result->reasons.size());
    co_return run;
}

std::vector<std::string> gate_lines(const GateRun& run) {
    std::vector<std::string> out;
    if (run.result)
        for (const auto& r : run.result->reasons) out.push_back(r.line());
    return out;
}

void print_gate_run(const GateRun& run, bool json, bool yaml, bool colour_on, std::ostream& out, std::ostream& err) {
    if (!run.result) {
        if (json || yaml) {
            const boost::json::value doc = core::gate_error_json(run.target, run.error);
            out << (json ? to_pretty_json(doc) : to_yaml(doc));
        }
        err << "error: upgrade gate: " << run.error << " (exit 3: gate error, fail-safe)\n";
        return;
    }
    const auto& res = *run.result;
    if (json || yaml) {
        const boost::json::value doc = core::gate_result_json(run.inputs, res);
        out << (json ? to_pretty_json(doc) : to_yaml(doc));
    } else {
        for (const auto& r : res.reasons) {
            const auto tag = "[" + std::string(core::tag_of(r.cls)) + "]";
            const auto c = r.cls == core::BlockClass::Actionable ? Colour::Red
                           : r.cls == core::BlockClass::Waiting  ? Colour::Yellow
                                                                 : Colour::Cyan;
            out << paint(c, tag, colour_on) << " " << r.subject << ": " << r.message << "\n";
        }
    }
    std::size_t counts[3] = {0, 0, 0};
    for (const auto& r : res.reasons) ++counts[static_cast<int>(r.cls)];
    err << "upgrade-gate: " << run.inputs.server_version << " -> " << run.target << ": "
        << core::to_string(res.verdict) << " (exit " << res.exit_code << "): " << counts[0] << " actionable, "
        << counts[1] << " waiting, " << counts[2] << " pinned\n";
}

}  // namespace attune::cli
