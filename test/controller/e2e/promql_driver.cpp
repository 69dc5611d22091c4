// Driver for the real-Prometheus harness check
// (e2e/tests/62_promql_queries_real_prometheus.sh); not a unit test.
//
//   promql_driver usage URL NAMESPACE KIND NAME [--pods a,b] [--window S] [--step S]
//                 [--rate-window S] [--aggregation Max|Avg|None] [--min-points N]
//       builds the core's cpu and memory range queries for one workload, runs
//       them through kube::PrometheusClient, groups the answers by
//       container and prints one JSON object: the queries, per resource and
//       container the series and sample counts and the last value, and the
//       recommender's status entry for what came back.
//   promql_driver instant URL QUERY
//       runs one instant query and prints {"ok", "series"} or {"ok", "code", "message"}.
//   promql_driver guardrail URL NAMESPACE WORKLOAD POD TEMPLATE
//       renders an SLO-guardrail template, confines it to NAMESPACE with
//       force_namespace, runs it and prints the query and the outcome.
#include <attune/kube/prometheus_client.hpp>
#include <attune/core/recommend/prometheus_response.hpp>
#include <attune/core/recommend/promql.hpp>
#include <attune/core/recommend/recommendation_status.hpp>
#include <attune/core/recommend/recommender.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace asio = boost::asio;
namespace json = boost::json;
namespace core = attune::core;
using attune::kube::PrometheusClient;
using attune::kube::PrometheusOutcome;

namespace {

int usage_error() {
    std::cerr << "usage: promql_driver usage URL NAMESPACE KIND NAME [--pods a,b] [--window S] [--step S]\n"
                 "                     [--rate-window S] [--aggregation Max|Avg|None] [--min-points N]\n"
                 "       promql_driver instant URL QUERY\n"
                 "       promql_driver guardrail URL NAMESPACE WORKLOAD POD TEMPLATE\n";
    return 2;
}

double now_seconds() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::shared_ptr<PrometheusClient> make_client(asio::io_context& io, const std::string& url) {
    attune::kube::PrometheusSettings s;
    s.address = url;
    s.query_timeout = std::chrono::seconds(10);
    auto c = PrometheusClient::create(io.get_executor(), s);
    if (!c.ok()) {
        std::cerr << "promql_driver: " << c.error().message << "\n";
        std::exit(2);
    }
    return c.value();
}

template <class T>
T run(asio::io_context& io, asio::awaitable<T> aw) {
    std::optional<T> out;
    asio::co_spawn(io, std::move(aw), [&](std::exception_ptr e, T v) {
        if (e) std::rethrow_exception(e);
        out.emplace(std::move(v));
    });
    io.restart();
    io.run();
    return std::move(*out);
}

json::object error_json(const core::Error& e) { return {{"ok", false}, {"code", e.code}, {"message", e.message}}; }

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= s.size() && !s.empty()) {
        const auto comma = s.find(',', start);
        out.push_back(s.substr(start, comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

int usage_command(int argc, char** argv) {
    if (argc < 6) return usage_error();
    const std::string url = argv[2], ns = argv[3], kind = argv[4], name = argv[5];
    std::vector<std::string> pods;
    double window = 300, step = 15;
    long rate_window = 60;
    int min_points = 3;
    auto aggregation = core::PodAggregation::Max;
    for (int i = 6; i + 1 < argc; i += 2) {
        const std::string k = argv[i], v = argv[i + 1];
        if (k == "--pods") pods = split(v);
        else if (k == "--window") window = std::atof(v.c_str());
        else if (k == "--step") step = std::atof(v.c_str());
        else if (k == "--rate-window") rate_window = std::atol(v.c_str());
        else if (k == "--min-points") min_points = std::atoi(v.c_str());
        else if (k == "--aggregation") aggregation = v == "Avg" ? core::PodAggregation::Avg
                                                    : v == "None" ? core::PodAggregation::None
                                                                  : core::PodAggregation::Max;
        else return usage_error();
    }
    const auto regex = core::workload_pod_regex(kind, name, pods);
    if (!regex.ok()) {
        std::cout << json::serialize(error_json(regex.error())) << "\n";
        return 1;
    }
    core::UsageQuerySpec spec;
    spec.namespace_ = ns;
    spec.pod_regex = regex.value();
    spec.aggregation = aggregation;
    spec.rate_window = std::chrono::seconds(rate_window);

    asio::io_context io;
    auto client = make_client(io, url);
    const double end = now_seconds(), start = end - window;
    json::object out;
    std::map<std::string, core::GroupedSamples> grouped[2];
    bool failed = false;
    for (const auto resource : {core::ResourceKind::Cpu, core::ResourceKind::Memory}) {
        const bool cpu = resource == core::ResourceKind::Cpu;
        const auto q = core::usage_query(resource, spec).value();
        out[cpu ? "cpu_query" : "memory_query"] = q;
        const auto o = run(io, client->query_range(q, start, end, std::chrono::seconds(static_cast<long>(step))));
        if (!o.result.ok()) {
            out[cpu ? "cpu_error" : "memory_error"] = error_json(o.result.error());
            failed = true;
            continue;
        }
        json::object per;
        for (auto& [container, g] : core::group_by_label(o.result.value(), "container")) {
            per[container] = json::object{{"series", g.series},
                                          {"samples", g.samples.size()},
                                          {"dropped", g.non_finite_dropped},
                                          {"last", g.samples.empty() ? 0.0 : g.samples.back().value}};
            grouped[cpu ? 0 : 1].emplace(container, std::move(g));
        }
        out[cpu ? "cpu" : "memory"] = std::move(per);
    }
    std::map<std::string, bool> names;
    for (const auto& g : grouped)
        for (const auto& [c, unused] : g) names[c] = true;
    std::vector<core::ContainerUsage> usage;
    for (const auto& [c, unused] : names) {
        core::ContainerUsage u;
        u.name = c;
        if (auto it = grouped[0].find(c); it != grouped[0].end()) u.cpu = it->second.samples;
        if (auto it = grouped[1].find(c); it != grouped[1].end()) u.memory = it->second.samples;
        usage.push_back(std::move(u));
    }
    core::RecommenderSettings settings;
    settings.minimum_data_points = min_points;
    const auto w = core::recommend_workload(usage, settings, end, step);
    out["recommendation"] = core::workload_recommendation_json(name, kind, w, true);
    json::array insufficient;
    for (const auto& d : w.insufficient)
        insufficient.push_back(json::object{{"name", d.name}, {"message", core::insufficient_data_message(d.collected(), d.required, step)}});
    out["insufficient"] = std::move(insufficient);
    std::cout << json::serialize(out) << "\n";
    return failed ? 1 : 0;
}

json::object instant_json(asio::io_context& io, PrometheusClient& c, const std::string& q) {
    const auto o = run(io, c.query(q, now_seconds()));
    if (!o.result.ok()) return error_json(o.result.error());
    return {{"ok", true}, {"series", o.result.value().series.size()}};
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return usage_error();
    const std::string cmd = argv[1];
    if (cmd == "usage") return usage_command(argc, argv);
    if (cmd == "instant" && argc == 4) {
        asio::io_context io;
        auto c = make_client(io, argv[2]);
        const auto o = instant_json(io, *c, argv[3]);
        std::cout << json::serialize(o) << "\n";
        return o.at("ok").as_bool() ? 0 : 1;
    }
    if (cmd == "guardrail" && argc == 7) {
        const core::GuardrailVars vars{argv[3], argv[4], argv[5]};
        auto rendered = core::render_guardrail_query(argv[6], vars);
        if (!rendered.ok()) {
            std::cout << json::serialize(error_json(rendered.error())) << "\n";
            return 1;
        }
        auto forced = core::force_namespace(rendered.value(), vars.namespace_);
        if (!forced.ok()) {
            std::cout << json::serialize(error_json(forced.error())) << "\n";
            return 1;
        }
        asio::io_context io;
        auto c = make_client(io, argv[2]);
        auto o = instant_json(io, *c, forced.value());
        o["query"] = forced.value();
        std::cout << json::serialize(o) << "\n";
        return o.at("ok").as_bool() ? 0 : 1;
    }
    return usage_error();
}
