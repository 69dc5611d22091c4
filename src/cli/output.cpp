#include "output.hpp"

#include "object_fields.hpp"

#include <attune/kube/yaml_json.hpp>

#include <boost/json.hpp>


#include <algorithm>
#include <cctype>
#include <charconv>
#include <numeric>

namespace attune::cli {

namespace {
core::Error bad(std::string msg) { return core::make_error("bad_usage", std::move(msg)); }

std::string cell_text(const boost::json::value* v) {
    if (v == nullptr || v->is_null()) return "<none>";
    if (v->is_string()) return std::string(v->get_string());
    if (v->is_bool()) return v->get_bool() ? "true" : "false";
    if (v->is_array()) {
        // kubectl joins list cells with commas.
        std::string out;
        for (const auto& e : v->get_array()) {
            if (!out.empty()) out += ",";
            out += cell_text(&e);
        }
        return out.empty() ? "<none>" : out;
    }
    return boost::json::serialize(*v);
}

std::optional<double> number_of(const boost::json::value* v) {
    if (v == nullptr) return std::nullopt;
    if (v->is_int64()) return static_cast<double>(v->get_int64());
    if (v->is_uint64()) return static_cast<double>(v->get_uint64());
    if (v->is_double()) return v->get_double();
    return std::nullopt;
}

// ".a.b", "{.a.b}", "a.b" -> "a.b"
std::string normalise_path(std::string_view p) {
    if (p.size() >= 2 && p.front() == '{' && p.back() == '}') p = p.substr(1, p.size() - 2);
    if (!p.empty() && p.front() == '.') p.remove_prefix(1);
    return std::string(p);
}

void pretty(const boost::json::value& v, std::string& out, int depth) {
    const std::string pad(static_cast<std::size_t>(depth) * 2, ' ');
    const std::string inner(static_cast<std::size_t>(depth + 1) * 2, ' ');
    if (v.is_object()) {
        const auto& o = v.get_object();
        if (o.empty()) {
            out += "{}";
            return;
        }
        out += "{\n";
        bool first = true;
        for (const auto& kv : o) {
            if (!first) out += ",\n";
            first = false;
            out += inner + boost::json::serialize(boost::json::value(kv.key())) + ": ";
            pretty(kv.value(), out, depth + 1);
        }
        out += "\n" + pad + "}";
    } else if (v.is_array()) {
        const auto& a = v.get_array();
        if (a.empty()) {
            out += "[]";
            return;
        }
        out += "[\n";
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (i) out += ",\n";
            out += inner;
            pretty(a[i], out, depth + 1);
        }
        out += "\n" + pad + "]";
    } else {
        out += boost::json::serialize(v);
    }
}

}  // namespace

core::Result<OutputFormat> parse_output_format(std::string_view value) {
    if (value.empty() || value == "table") return OutputFormat::Table;
    if (value == "wide") return OutputFormat::Wide;
    if (value == "json") return OutputFormat::Json;
    if (value == "yaml") return OutputFormat::Yaml;
    return bad("unable to match a printer suitable for the output format \"" + std::string(value) +
               "\", allowed formats are: json,table,wide,yaml");
}

const boost::json::value* find_path(const boost::json::value& record, std::string_view path) {
    const boost::json::value* cur = &record;
    while (!path.empty()) {
        const auto dot = path.find('.');
        const auto key = path.substr(0, dot);
        if (!cur->is_object()) return nullptr;
        cur = cur->get_object().if_contains(key);
        if (cur == nullptr) return nullptr;
        path = dot == std::string_view::npos ? std::string_view{} : path.substr(dot + 1);
    }
    return cur;
}

core::Result<std::vector<std::size_t>> sort_order(const boost::json::array& records, std::span<const Column> columns,
                                                  std::string_view sort_by) {
    std::vector<std::size_t> order(records.size());
    std::iota(order.begin(), order.end(), 0);
    if (sort_by.empty()) return order;
    std::string path = normalise_path(sort_by);
    for (const auto& c : columns)
        if (iequals(c.header, sort_by)) path = c.path;
    const bool known =
        std::any_of(records.begin(), records.end(), [&](const auto& r) { return find_path(r, path) != nullptr; }) ||
        records.empty();
    if (!known) return bad("couldn't find any field with path \"" + std::string(sort_by) + "\" in the list of objects");
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const auto* va = find_path(records[a], path);
        const auto* vb = find_path(records[b], path);
        auto na = number_of(va), nb = number_of(vb);
        if (na && nb) return *na < *nb;
        return cell_text(va) < cell_text(vb);
    });
    return order;
}

core::Result<std::string> render_table(const boost::json::array& records, std::span<const Column> columns,
                                       const TableOptions& opts) {
    std::vector<const Column*> shown;
    for (const auto& c : columns)
        if (!c.wide_only || opts.wide) shown.push_back(&c);

    auto sorted = sort_order(records, columns, opts.sort_by);
    if (!sorted) return sorted.error();
    const std::vector<std::size_t> order = std::move(sorted).value();

    std::vector<std::vector<std::string>> rows;
    if (!opts.no_headers) {
        std::vector<std::string> h;
        for (const auto* c : shown) {
            std::string up = c->header;
            std::transform(up.begin(), up.end(), up.begin(), [](unsigned char ch) { return std::toupper(ch); });
            h.push_back(std::move(up));
        }
        rows.push_back(std::move(h));
    }
    for (auto i : order) {
        std::vector<std::string> r;
        for (const auto* c : shown)
            r.push_back(c->text != nullptr ? c->text(records[i]) : cell_text(find_path(records[i], c->path)));
        rows.push_back(std::move(r));
    }
    std::vector<std::size_t> width(shown.size(), 0);
    for (const auto& r : rows)
        for (std::size_t j = 0; j < r.size(); ++j) width[j] = std::max(width[j], r[j].size());
    std::string out;
    for (const auto& r : rows) {
        std::string line;
        for (std::size_t j = 0; j < r.size(); ++j) {
            line += r[j];
            if (j + 1 < r.size()) line += std::string(width[j] - r[j].size() + 3, ' ');
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + "\n";
    }
    return out;
}

std::optional<std::string> render_document(OutputFormat f, const boost::json::value& doc) {
    if (f == OutputFormat::Json) return to_pretty_json(doc);
    if (f == OutputFormat::Yaml) return to_yaml(doc);
    return std::nullopt;
}

std::string to_pretty_json(const boost::json::value& v) {
    std::string out;
    pretty(v, out, 0);
    out += "\n";
    return out;
}

std::string to_yaml(const boost::json::value& v) { return kube::to_yaml(v); }

bool colour_enabled(bool is_tty, const char* no_color_env, const char* term_env) {
    if (!is_tty) return false;
    if (no_color_env != nullptr && *no_color_env != '\0') return false;
    if (term_env != nullptr && std::string_view(term_env) == "dumb") return false;
    return true;
}

std::string paint(Colour c, std::string_view text, bool enabled) {
    if (!enabled) return std::string(text);
    const char* code = "";
    switch (c) {
        case Colour::Red: code = "\x1b[31m"; break;
        case Colour::Yellow: code = "\x1b[33m"; break;
        case Colour::Green: code = "\x1b[32m"; break;
        case Colour::Cyan: code = "\x1b[36m"; break;
        case Colour::Bold: code = "\x1b[1m"; break;
    }
    return std::string(code) + std::string(text) + "\x1b[0m";
}

}  // namespace attune::cli
