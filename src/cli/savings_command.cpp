// kubectl attune savings [POLICY]: per policy, the estimated request savings
// of its recommendations and their monthly price (savings_records.hpp), and a
// total. Reads AttunePolicies and the defaults objects (for costPricing).
#include "cluster_reads.hpp"
#include "commands.hpp"
#include "savings_records.hpp"
#include "session.hpp"

#include <attune/core/util/json_path.hpp>

#include <boost/json.hpp>

#include <ostream>

namespace attune::cli {
namespace asio = boost::asio;
namespace json = boost::json;

namespace {

int run(Invocation& inv) {
    if (inv.flags.positionals.size() > 1)
        return usage_error(inv.err, "savings", "at most one policy name, got \"" + inv.flags.positionals[1] + "\"",
                           kExitUsage);
    const std::string policy = inv.flags.positionals.empty() ? "" : inv.flags.positionals[0];
    json::array records;
    std::string ns;
    const int rc = run_in_session(inv, std::chrono::seconds(30), kExitError, [&](Session& s) -> asio::awaitable<int> {
        ns = inv.common.all_namespaces ? "" : s.ns();
        auto listed = co_await read_report_policies(s.client(), ns, policy);
        if (!listed) {
            inv.err << "error: " << listed.error().message << "\n";
            co_return kExitError;
        }
        const auto& ctx = listed.value();
        const auto effective = effective_policies(ctx);
        for (const auto& p : ctx.policies) {
            const std::string key = std::string(core::string_at(p, {"metadata", "namespace"})) + "/" +
                                    std::string(core::string_at(p, {"metadata", "name"}));
            const auto it = effective.find(key);
            auto r = savings_record(p, it == effective.end() ? nullptr : &it->second);
            if (!r) {
                inv.err << "error: " << key << ": " << r.error().message << "\n";
                co_return kExitError;
            }
            records.push_back(std::move(r).value());
        }
        co_return kExitOk;
    });
    if (rc != kExitOk) return rc;
    auto order = savings_order(records, inv.common.sort_by, inv.common.all_namespaces);
    if (!order) return usage_error(inv.err, "savings", order.error().message, kExitUsage);
    json::array sorted;
    for (const auto i : order.value()) sorted.push_back(records[i]);
    const auto total = savings_total(sorted);
    if (auto doc = render_document(inv.common.output, json::object{{"items", sorted}, {"total", total}})) {
        inv.out << *doc;
        return kExitOk;
    }
    if (sorted.empty()) {
        inv.err << "No AttunePolicies found in " << (inv.common.all_namespaces ? "any namespace" : ns + " namespace")
                << ".\n";
        return kExitOk;
    }
    sorted.push_back(total);  // the last row, whatever the order
    TableOptions o;
    o.wide = inv.common.output == OutputFormat::Wide;
    o.no_headers = inv.common.no_headers;
    const auto cols = savings_columns(inv.common.all_namespaces);
    auto t = render_table(sorted, cols, o);
    if (!t) return usage_error(inv.err, "savings", t.error().message, kExitUsage);
    inv.out << t.value();
    return kExitOk;
}

}  // namespace

Command make_savings_command() {
    Command c;
    c.name = "savings";
    c.summary = "Per policy: estimated CPU and memory request savings and their monthly price, with a total";
    c.usage =
        "kubectl attune savings [POLICY] [-n NS | -A] [--sort-by name|namespace|savings|age|PATH] [-o table|wide|json|yaml]";
    c.description =
        "Per policy, the current requests minus the recommended ones over the containers of status.recommendations\n"
        "(each container once: the pod template's requests, as the manager's status.savings counts them), split\n"
        "into reductions and increases, priced with the effective costPricing (AttuneNamespaceDefaults, else\n"
        "AttuneDefaults, else $0.031 per core-hour and $0.004 per GiB-hour) over 730 hours a month. The last row\n"
        "is the total. -o wide adds the increases and the prices; -o json|yaml prints {\"items\": [...], \"total\": {...}}\n"
        "with the exact quantities and unrounded dollars.";
    c.run = run;
    return c;
}

}  // namespace attune::cli
