#include "attune/core/util/json_patch.hpp"

#include <boost/json.hpp>
#include <charconv>
#include <optional>
#include <vector>

namespace attune::core {
namespace json = boost::json;

std::string escape_json_pointer_token(std::string_view token) {
    std::string out;
    out.reserve(token.size() + 4);
    for (char c : token) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}

namespace {

json::object op(std::string_view name, const std::string& path) {
    json::object o;
    o["op"] = name;
    o["path"] = path;
    return o;
}

void append_token(std::string& path, std::string_view token) {
    path += '/';
    for (char c : token) {
        if (c == '~') path += "~0";
        else if (c == '/') path += "~1";
        else path += c;
    }
}

// `path` is a scratch buffer, extended for a child and cut back after: walking
// an unchanged subtree (most of a pod) allocates nothing.
void diff_into(const json::value& before, const json::value& after, std::string& path, json::array& out) {
    if (before.is_object() && after.is_object()) {
        const auto& b = before.get_object();
        const auto& a = after.get_object();
        const std::size_t len = path.size();
        for (const auto& [k, bv] : b) {
            if (a.contains(k)) continue;
            append_token(path, k);
            out.push_back(op("remove", path));
            path.resize(len);
        }
        for (const auto& [k, av] : a) {
            const auto* bv = b.if_contains(k);
            append_token(path, k);
            if (bv) {
                diff_into(*bv, av, path, out);
            } else {
                auto o = op("add", path);
                o["value"] = av;
                out.push_back(std::move(o));
            }
            path.resize(len);
        }
        return;
    }
    if (before.is_array() && after.is_array() && before.get_array().size() == after.get_array().size()) {
        const auto& b = before.get_array();
        const auto& a = after.get_array();
        const std::size_t len = path.size();
        for (std::size_t i = 0; i < a.size(); ++i) {
            path += '/';
            path += std::to_string(i);
            diff_into(b[i], a[i], path, out);
            path.resize(len);
        }
        return;
    }
    if (before == after) return;
    auto o = op("replace", path);
    o["value"] = after;
    out.push_back(std::move(o));
}

// ---- apply ----

struct PatchError {
    std::string message;
};

std::vector<std::string> parse_pointer(std::string_view p) {
    std::vector<std::string> tokens;
    if (p.empty()) return tokens;
    if (p.front() != '/') throw PatchError{"pointer '" + std::string(p) + "' does not start with '/'"};
    std::size_t pos = 1;
    for (;;) {
        const std::size_t next = p.find('/', pos);
        const std::string_view raw = p.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos);
        std::string t;
        for (std::size_t i = 0; i < raw.size(); ++i) {
            if (raw[i] != '~') {
                t += raw[i];
                continue;
            }
            if (i + 1 >= raw.size() || (raw[i + 1] != '0' && raw[i + 1] != '1'))
                throw PatchError{"pointer '" + std::string(p) + "' has an invalid '~' escape"};
            t += raw[i + 1] == '0' ? '~' : '/';
            ++i;
        }
        tokens.push_back(std::move(t));
        if (next == std::string_view::npos) break;
        pos = next + 1;
    }
    return tokens;
}

// An array index: digits without a leading zero ("0" itself is fine).
std::optional<std::size_t> parse_index(const std::string& t) {
    if (t.empty() || (t.size() > 1 && t[0] == '0')) return std::nullopt;
    std::size_t v = 0;
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc{} || end != t.data() + t.size()) return std::nullopt;
    return v;
}

json::value* resolve(json::value& doc, const std::vector<std::string>& tokens, std::size_t count) {
    json::value* cur = &doc;
    for (std::size_t i = 0; i < count; ++i) {
        const auto& t = tokens[i];
        if (auto* o = cur->if_object()) {
            auto it = o->find(t);
            if (it == o->end()) return nullptr;
            cur = &it->value();
        } else if (auto* a = cur->if_array()) {
            auto idx = parse_index(t);
            if (!idx || *idx >= a->size()) return nullptr;
            cur = &(*a)[*idx];
        } else {
            return nullptr;
        }
    }
    return cur;
}

std::string require_string(const json::object& o, std::string_view key, std::size_t index) {
    const auto* v = o.if_contains(key);
    if (!v || !v->is_string())
        throw PatchError{"operation " + std::to_string(index) + ": '" + std::string(key) + "' must be a string"};
    return std::string(v->get_string());
}

json::value remove_at(json::value& doc, const std::vector<std::string>& tokens, const std::string& where) {
    if (tokens.empty()) throw PatchError{where + ": cannot remove the whole document"};
    json::value* parent = resolve(doc, tokens, tokens.size() - 1);
    if (!parent) throw PatchError{where + ": path does not exist"};
    const auto& last = tokens.back();
    if (auto* o = parent->if_object()) {
        auto it = o->find(last);
        if (it == o->end()) throw PatchError{where + ": path does not exist"};
        json::value v = std::move(it->value());
        o->erase(it);
        return v;
    }
    if (auto* a = parent->if_array()) {
        auto idx = parse_index(last);
        if (!idx || *idx >= a->size()) throw PatchError{where + ": array index out of range"};
        json::value v = std::move((*a)[*idx]);
        a->erase(a->begin() + static_cast<std::ptrdiff_t>(*idx));
        return v;
    }
    throw PatchError{where + ": parent is neither an object nor an array"};
}

void add_at(json::value& doc, const std::vector<std::string>& tokens, json::value v, const std::string& where) {
    if (tokens.empty()) {
        doc = std::move(v);
        return;
    }
    json::value* parent = resolve(doc, tokens, tokens.size() - 1);
    if (!parent) throw PatchError{where + ": parent path does not exist"};
    const auto& last = tokens.back();
    if (auto* o = parent->if_object()) {
        (*o)[last] = std::move(v);
        return;
    }
    if (auto* a = parent->if_array()) {
        if (last == "-") {
            a->push_back(std::move(v));
            return;
        }
        auto idx = parse_index(last);
        if (!idx || *idx > a->size()) throw PatchError{where + ": array index out of range"};
        a->insert(a->begin() + static_cast<std::ptrdiff_t>(*idx), std::move(v));
        return;
    }
    throw PatchError{where + ": parent is neither an object nor an array"};
}

}  // namespace

json::array json_patch_diff(const json::value& before, const json::value& after) {
    json::array out;
    std::string path;
    diff_into(before, after, path, out);
    return out;
}

Result<json::value> apply_json_patch(json::value document, const json::array& patch) {
    try {
        for (std::size_t i = 0; i < patch.size(); ++i) {
            const auto* o = patch[i].if_object();
            if (!o) throw PatchError{"operation " + std::to_string(i) + " is not an object"};
            const std::string name = require_string(*o, "op", i);
            const std::string path = require_string(*o, "path", i);
            const std::string where = "operation " + std::to_string(i) + " (" + name + " " + path + ")";
            const auto tokens = parse_pointer(path);
            const auto* value = o->if_contains("value");
            if (name == "add" || name == "replace" || name == "test") {
                if (!value) throw PatchError{where + ": 'value' is missing"};
            }
            if (name == "add") {
                add_at(document, tokens, *value, where);
            } else if (name == "remove") {
                remove_at(document, tokens, where);
            } else if (name == "replace") {
                json::value* target = resolve(document, tokens, tokens.size());
                if (!target) throw PatchError{where + ": path does not exist"};
                *target = *value;
            } else if (name == "test") {
                json::value* target = resolve(document, tokens, tokens.size());
                if (!target || *target != *value) throw PatchError{where + ": test failed"};
            } else if (name == "move" || name == "copy") {
                const std::string from = require_string(*o, "from", i);
                const auto from_tokens = parse_pointer(from);
                if (name == "move" && from_tokens.size() < tokens.size() &&
                    std::equal(from_tokens.begin(), from_tokens.end(), tokens.begin()))
                    throw PatchError{where + ": cannot move a value into one of its children"};
                json::value* source = resolve(document, from_tokens, from_tokens.size());
                if (!source) throw PatchError{where + ": 'from' path does not exist"};
                json::value v = name == "move" ? remove_at(document, from_tokens, where) : *source;
                add_at(document, tokens, std::move(v), where);
            } else {
                throw PatchError{where + ": unknown operation"};
            }
        }
    } catch (const PatchError& e) {
        return make_error("invalid_patch", e.message);
    }
    return document;
}

}  // namespace attune::core
