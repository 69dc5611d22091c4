// Driver for the core-vs-apiserver e2e (e2e/tests/65_core_plan_resize_accepted.sh).
//
//   plan_resize_driver pods SEED N
//       prints a v1 List of N valid random pods (some with spec.resources,
//       some with native sidecars, Guaranteed and Burstable shapes);
//   plan_resize_driver plan SEED ROUND VERSION.json NODES.json FORCE_MEMORY_DECREASE < podlist.json
//       decides capabilities from `kubectl version -o json` and
//       `kubectl get nodes -o json` with the core's decide_capabilities,
//       draws random targets for every pod of a `kubectl get pods -o json`
//       list, runs plan_resize (with the pod's node) and prints one JSON
//       line per pod: {"name", "body"} or {"name", "skip", "message"}.
//       FORCE_MEMORY_DECREASE=true drops the 1.33 clamp (negative control).
//
// Deterministic: mt19937_64 output is fixed by the standard; only its raw
// output is used (the std distributions are implementation-defined).
#include <boost/json.hpp>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "attune/core/resize/envelope.hpp"
#include "attune/core/policy/overlay.hpp"
#include "attune/core/resize/plan_resize.hpp"
#include "attune/core/resize/qos_compat.hpp"
#include "attune/core/util/stable_hash.hpp"

namespace core = attune::core;
namespace json = boost::json;

namespace {

struct Rng {
    std::mt19937_64 e;
    std::uint64_t below(std::uint64_t n) { return e() % n; }
    bool chance(unsigned percent) { return below(100) < percent; }
};

std::int64_t pick_milli_cpu(Rng& r) {
    static constexpr std::int64_t v[] = {50, 100, 200, 250, 300, 500, 750, 1000, 1500, 2000};
    return v[r.below(std::size(v))];
}

std::int64_t pick_mem_mi(Rng& r) {
    static constexpr std::int64_t v[] = {32, 64, 96, 128, 192, 256, 384, 512, 768, 1024};
    return v[r.below(std::size(v))];
}

std::string cpu(std::int64_t m) { return core::Quantity::from_milli(m).to_string(); }
std::string mem(std::int64_t mi) {
    return core::Quantity::from_value(mi * 1024 * 1024, core::Quantity::Format::BinarySI).to_string();
}

struct Res {
    std::int64_t req_cpu = 0, lim_cpu = 0, req_mem = 0, lim_mem = 0;  // 0 = unset
};

json::object res_json(const Res& r) {
    json::object req, lim, out;
    if (r.req_cpu) req["cpu"] = cpu(r.req_cpu);
    if (r.req_mem) req["memory"] = mem(r.req_mem);
    if (r.lim_cpu) lim["cpu"] = cpu(r.lim_cpu);
    if (r.lim_mem) lim["memory"] = mem(r.lim_mem);
    if (!req.empty()) out["requests"] = std::move(req);
    if (!lim.empty()) out["limits"] = std::move(lim);
    return out;
}

Res random_res(Rng& r, bool guaranteed) {
    Res x;
    x.req_cpu = pick_milli_cpu(r);
    x.req_mem = pick_mem_mi(r);
    if (guaranteed) {
        x.lim_cpu = x.req_cpu;
        x.lim_mem = x.req_mem;
    } else {
        if (r.chance(60)) x.lim_cpu = x.req_cpu * (1 + static_cast<std::int64_t>(r.below(3)));
        if (r.chance(70)) x.lim_mem = x.req_mem * (1 + static_cast<std::int64_t>(r.below(3)));
    }
    return x;
}

json::object container(const std::string& name, const Res& res, Rng& r, bool sidecar) {
    json::object c{{"name", name}, {"image", "attune.local/pause:1"}, {"resources", res_json(res)}};
    if (sidecar) c["restartPolicy"] = "Always";
    if (r.chance(30)) {
        c["resizePolicy"] = json::array{json::object{{"resourceName", "memory"}, {"restartPolicy", "RestartContainer"}}};
    }
    return c;
}

int pods(std::uint64_t seed, int n) {
    Rng r{std::mt19937_64(seed)};
    json::array items;
    for (int i = 0; i < n; ++i) {
        const bool guaranteed = r.chance(35);
        const bool envelope = r.chance(70);
        const bool sidecar = r.chance(40);
        std::vector<Res> cs;
        const int apps = 1 + static_cast<int>(r.below(2));
        for (int j = 0; j < apps; ++j) cs.push_back(random_res(r, guaranteed));
        Res sc = random_res(r, guaranteed);
        json::array containers, init;
        for (int j = 0; j < apps; ++j) containers.push_back(container("app" + std::to_string(j), cs[j], r, false));
        if (sidecar) init.push_back(container("proxy", sc, r, true));
        json::object spec{{"containers", std::move(containers)}, {"terminationGracePeriodSeconds", 0}};
        if (!init.empty()) spec["initContainers"] = std::move(init);
        if (envelope) {
            // A valid envelope: requests >= the sum, limits >= every single
            // container limit and >= the requests; sometimes tight.
            Res env;
            std::int64_t max_lim_cpu = 0, max_lim_mem = 0;
            for (const auto& c : cs) {
                env.req_cpu += c.req_cpu;
                env.req_mem += c.req_mem;
                max_lim_cpu = std::max(max_lim_cpu, c.lim_cpu);
                max_lim_mem = std::max(max_lim_mem, c.lim_mem);
            }
            if (sidecar) {
                env.req_cpu += sc.req_cpu;
                env.req_mem += sc.req_mem;
            }
            if (!r.chance(40)) {
                env.req_cpu += pick_milli_cpu(r);
                env.req_mem += pick_mem_mi(r);
            }
            if (guaranteed) {
                env.lim_cpu = env.req_cpu;
                env.lim_mem = env.req_mem;
            } else if (r.chance(70)) {
                env.lim_cpu = std::max(env.req_cpu + (r.chance(50) ? pick_milli_cpu(r) : 0), max_lim_cpu);
                env.lim_mem = std::max(env.req_mem + (r.chance(50) ? pick_mem_mi(r) : 0), max_lim_mem);
            }
            spec["resources"] = res_json(env);
        }
        items.push_back(json::object{{"apiVersion", "v1"},
                                     {"kind", "Pod"},
                                     {"metadata", json::object{{"name", "plan-" + std::to_string(i)}}},
                                     {"spec", std::move(spec)}});
    }
    std::cout << json::serialize(json::object{{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(items)}})
              << "\n";
    return 0;
}

// Targets move requests (and for RequestsAndLimits, limits) up and down.
core::ResourceRequirements random_target(Rng& r, const core::Container& c, bool with_limits) {
    core::ResourceRequirements t;
    auto scale = [&](const core::Quantity& q, bool memory) {
        static constexpr int pct[] = {25, 50, 75, 90, 110, 150, 200, 300};
        const int p = pct[r.below(std::size(pct))];
        if (memory) {
            const std::int64_t mi = std::max<std::int64_t>(16, q.value() / (1024 * 1024) * p / 100);
            return core::Quantity::from_value(mi * 1024 * 1024, core::Quantity::Format::BinarySI);
        }
        return core::Quantity::from_milli(std::max<std::int64_t>(10, q.milli_value() * p / 100));
    };
    for (std::string_view res : {core::kCpu, core::kMemory}) {
        const bool memory = res == core::kMemory;
        if (const auto* q = core::find(c.resources.requests, res); q && r.chance(80))
            t.requests.emplace(std::string(res), scale(*q, memory));
        if (with_limits) {
            if (const auto* q = core::find(c.resources.limits, res); q && r.chance(80))
                t.limits.emplace(std::string(res), scale(*q, memory));
        }
    }
    return t;
}

// What a planner without the envelope and QoS guards would send: the
// targets written over the live containers (requests kept <= limits), no
// envelope. Sent for guarded skips to prove the apiserver would refuse it.
json::object naive_body(const core::Pod& p, const std::vector<core::ContainerTarget>& targets, bool with_limits) {
    json::array containers, init;
    for (const auto& t : targets) {
        const core::Container* c = p.find_container(t.name);
        core::ResourceRequirements want;
        for (std::string_view r : {core::kCpu, core::kMemory}) {
            if (const auto* q = core::find(t.resources.requests, r)) want.requests.emplace(std::string(r), *q);
            if (const auto* q = core::find(t.resources.limits, r); q && with_limits) want.limits.emplace(std::string(r), *q);
        }
        core::ResourceRequirements next = core::overlay_requirements(c->resources, want);
        for (auto& [name, q] : next.requests)
            if (const auto* lim = core::find(next.limits, name); lim && q > *lim) q = *lim;
        json::object req, lim;
        for (const auto& [k, q] : next.requests) req[k] = q.to_string();
        for (const auto& [k, q] : next.limits) lim[k] = q.to_string();
        json::object res;
        if (!req.empty()) res["requests"] = std::move(req);
        if (!lim.empty()) res["limits"] = std::move(lim);
        (c->is_native_sidecar() ? init : containers).push_back(json::object{{"name", t.name}, {"resources", std::move(res)}});
    }
    json::object spec;
    if (!containers.empty()) spec["containers"] = std::move(containers);
    if (!init.empty()) spec["initContainers"] = std::move(init);
    return json::object{{"spec", std::move(spec)}};
}

json::value read_json_file(const std::string& path) {
    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return json::parse(text);
}

// Capabilities from the cluster's own answers (kubectl version -o json,
// kubectl get nodes -o json) through the core's decision, so the e2e does
// not carry a second copy of the three-way rule. OpenAPI is not fetched:
// its fallbacks apply. ALLOW_DECREASE=false forces the 1.33 clamp off/on
// for the negative-control round.
int plan(std::uint64_t seed, std::uint64_t round, const std::string& version_file, const std::string& nodes_file,
         const std::string& allow_decrease_override) {
    std::string input((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    const auto list = json::parse(input);
    const auto version = read_json_file(version_file);
    const auto node_list = read_json_file(nodes_file);
    core::NodeListProbe nodes;
    std::map<std::string, core::NodeProbe> by_name;
    for (const auto& n : node_list.at("items").as_array()) {
        nodes.nodes.push_back(core::decode_node_probe(n));
        by_name[std::string(n.at("metadata").at("name").as_string())] = nodes.nodes.back();
    }
    const auto decided = core::decide_capabilities(
        {std::string(version.at("serverVersion").at("gitVersion").as_string()), ""},
        {{"pods", "pods/resize"}, ""}, {false, false, "not fetched by the e2e driver"}, nodes);
    if (!decided.ok()) {
        std::cerr << "capabilities: " << decided.error().message << "\n";
        return 2;
    }
    core::Capabilities caps = decided.value();
    if (allow_decrease_override == "true") caps.allow_in_place_memory_limit_decrease = true;
    std::cerr << "caps: in_place_pod_level_resources=" << caps.in_place_pod_level_resources
              << " declared_features_reported=" << caps.declared_features_reported
              << " allow_in_place_memory_limit_decrease=" << caps.allow_in_place_memory_limit_decrease << "\n";
    for (const auto& item : list.at("items").as_array()) {
        auto pod = core::decode_pod(item);
        if (!pod.ok()) {
            std::cerr << "decode: " << pod.error().message << "\n";
            return 2;
        }
        const core::Pod& p = pod.value();
        Rng r{std::mt19937_64(core::stable_hash({std::to_string(seed), std::to_string(round), p.name}))};
        const auto cv = r.chance(50) ? core::ControlledValues::RequestsOnly : core::ControlledValues::RequestsAndLimits;
        std::vector<core::ContainerTarget> targets;
        auto consider = [&](const core::Container& c) {
            if (r.chance(75))
                targets.push_back({c.name, random_target(r, c, cv == core::ControlledValues::RequestsAndLimits), std::nullopt});
        };
        for (const auto& c : p.containers) consider(c);
        for (const auto& c : p.init_containers)
            if (c.is_native_sidecar()) consider(c);
        if (targets.empty()) targets.push_back({p.containers[0].name, random_target(r, p.containers[0], true), std::nullopt});
        core::PlanOptions options;
        if (auto it = by_name.find(p.node_name); it != by_name.end()) options.node = it->second;
        const auto outcome = core::plan_resize(p, targets, caps, cv, options);
        json::object line{{"name", p.name}};
        if (const auto* s = std::get_if<core::Skip>(&outcome)) {
            line["skip"] = s->reason;
            line["message"] = s->message;
            if (s->reason == core::kReasonWouldChangeQos || s->reason == "envelope_constraint")
                line["naive_body"] = naive_body(p, targets, cv == core::ControlledValues::RequestsAndLimits);
        } else {
            const auto& rp = std::get<core::ResizePlan>(outcome);
            line["body"] = rp.body;
            line["envelope_raised"] = rp.envelope.has_value();
            line["memory_clamped"] = !rp.memory_clamped.empty();
        }
        std::cout << json::serialize(line) << "\n";
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> a(argv + 1, argv + argc);
    if (a.size() == 3 && a[0] == "pods") return pods(std::stoull(a[1]), std::stoi(a[2]));
    if (a.size() == 6 && a[0] == "plan") return plan(std::stoull(a[1]), std::stoull(a[2]), a[3], a[4], a[5]);
    std::cerr << "usage: plan_resize_driver pods SEED N | plan SEED ROUND VERSION.json NODES.json FORCE_MEMORY_DECREASE\n";
    return 2;
}
