#include "workload_manifest.hpp"

#include "output.hpp"

#include <boost/json.hpp>

namespace attune::cli {
namespace json = boost::json;

std::string workload_label(std::string_view ns, std::string_view kind, std::string_view name) {
    return std::string(ns) + "/" + std::string(kind) + "/" + std::string(name);
}

}  // namespace attune::cli

namespace attune::cli {

std::string render_manifest_stream(const json::array& objects, bool as_json) {
    if (as_json) return to_pretty_json(json::object{{"apiVersion", "v1"}, {"kind", "List"}, {"items", objects}});
    std::string out;
    for (const auto& o : objects) out += "---\n" + to_yaml(o);
    return out;
}

}  // namespace attune::cli
