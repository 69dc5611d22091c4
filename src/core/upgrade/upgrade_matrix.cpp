#include "attune/core/upgrade/upgrade_matrix.hpp"

#include <boost/json.hpp>
#include <boost/json/basic_parser_impl.hpp>

#include <algorithm>
#include <map>
#include <set>

namespace attune::core {
namespace {

// ---- Source lines of every field -------------------------------------------
//
// Boost.JSON values carry no positions, so a second, position-only pass feeds
// the text to a basic_parser one byte at a time: each callback then happens
// while a known line is being read. It records the line of every object key
// and array element under its readable path ("addons.calico.versions[1]").

struct Frame {
    bool array = false;
    std::size_t index = 0;  // next element (arrays)
    std::string key;        // current key (objects)
};

std::string path_of(const std::vector<Frame>& stack) {
    std::string p;
    for (std::size_t i = 1; i < stack.size(); ++i) {  // stack[0] is the document
        const auto& parent = stack[i - 1];
        if (parent.array) {
            p += "[" + std::to_string(parent.index) + "]";
        } else if (!parent.key.empty()) {  // empty: no key read yet in this object
            if (!p.empty()) p += ".";
            p += parent.key;
        }
    }
    return p;
}

struct PositionHandler {
    static constexpr std::size_t max_object_size = static_cast<std::size_t>(-1);
    static constexpr std::size_t max_array_size = static_cast<std::size_t>(-1);
    static constexpr std::size_t max_key_size = static_cast<std::size_t>(-1);
    static constexpr std::size_t max_string_size = static_cast<std::size_t>(-1);

    std::size_t line = 1;
    std::map<std::string, std::size_t> lines;
    // The path of the value being read: a stack of containers, each with the
    // slot (key or index) its current child sits in.
    std::vector<Frame> stack{Frame{}};
    std::vector<std::string> open;  // paths of open containers, for error messages
    std::string key_buf;
    bool in_scalar = false;

    std::string current() const {
        std::vector<Frame> s = stack;
        s.push_back(Frame{});
        return path_of(s);
    }
    // A value starts in the current slot.
    void value_begin() {
        if (stack.size() > 1 && stack.back().array) lines.emplace(current(), line);
    }
    // A value ended: arrays move to their next slot.
    void value_end() {
        if (stack.back().array) ++stack.back().index;
    }
    bool container_begin(bool array) {
        value_begin();
        open.push_back(current());
        Frame f;
        f.array = array;
        stack.push_back(f);
        return true;
    }
    bool container_end() {
        stack.pop_back();
        open.pop_back();
        value_end();
        return true;
    }
    bool scalar_part() {
        if (!in_scalar) value_begin();
        in_scalar = true;
        return true;
    }
    bool scalar_done() {
        if (!in_scalar) value_begin();
        in_scalar = false;
        value_end();
        return true;
    }

    bool on_document_begin(boost::json::error_code&) { return true; }
    bool on_document_end(boost::json::error_code&) { return true; }
    bool on_array_begin(boost::json::error_code&) { return container_begin(true); }
    bool on_array_end(std::size_t, boost::json::error_code&) { return container_end(); }
    bool on_object_begin(boost::json::error_code&) { return container_begin(false); }
    bool on_object_end(std::size_t, boost::json::error_code&) { return container_end(); }
    bool on_string_part(boost::json::string_view, std::size_t, boost::json::error_code&) { return scalar_part(); }
    bool on_string(boost::json::string_view, std::size_t, boost::json::error_code&) { return scalar_done(); }
    bool on_key_part(boost::json::string_view s, std::size_t, boost::json::error_code&) {
        key_buf.append(s.data(), s.size());
        return true;
    }
    bool on_key(boost::json::string_view s, std::size_t, boost::json::error_code&) {
        key_buf.append(s.data(), s.size());
        stack.back().key = std::move(key_buf);
        key_buf.clear();
        lines.emplace(current(), line);
        return true;
    }
    bool on_number_part(boost::json::string_view, boost::json::error_code&) { return scalar_part(); }
    bool on_int64(std::int64_t, boost::json::string_view, boost::json::error_code&) { return scalar_done(); }
    bool on_uint64(std::uint64_t, boost::json::string_view, boost::json::error_code&) { return scalar_done(); }
    bool on_double(double, boost::json::string_view, boost::json::error_code&) { return scalar_done(); }
    bool on_bool(bool, boost::json::error_code&) { return scalar_done(); }
    bool on_null(boost::json::error_code&) { return scalar_done(); }
    bool on_comment_part(boost::json::string_view, boost::json::error_code&) { return true; }
    bool on_comment(boost::json::string_view, boost::json::error_code&) { return true; }
};

struct ScanResult {
    std::map<std::string, std::size_t> lines;
    bool syntax_ok = true;
    std::size_t error_line = 0;
    std::string error_near;  // the innermost open container, or the last key
    std::string error_what;
};

ScanResult scan_positions(std::string_view text) {
    boost::json::basic_parser<PositionHandler> p{boost::json::parse_options{}};
    ScanResult out;
    boost::json::error_code ec;
    for (std::size_t i = 0; i < text.size(); ++i) {
        p.write_some(true, text.data() + i, 1, ec);
        if (ec) break;
        if (text[i] == '\n') ++p.handler().line;
    }
    if (!ec) p.write_some(false, nullptr, 0, ec);
    auto& h = p.handler();
    out.lines = std::move(h.lines);
    if (ec) {
        out.syntax_ok = false;
        out.error_line = h.line;
        if (ec == boost::json::error::incomplete) {
            // The text ended early: name the last line that has anything on it.
            const auto last = text.find_last_not_of(" \t\r\n");
            out.error_line = last == std::string_view::npos
                                 ? 1
                                 : 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + last, '\n'));
        }
        out.error_near = h.current();
        out.error_what = ec == boost::json::error::incomplete ? "the JSON ends early (an unclosed { or [?)"
                                                              : "JSON syntax error (" + ec.message() + ")";
    }
    return out;
}

// ---- Decoding ---------------------------------------------------------------

struct MatrixFailure {
    std::string path;
    std::string what;
};

[[noreturn]] void fail(std::string path, std::string what) { throw MatrixFailure{std::move(path), std::move(what)}; }

std::string join(const std::string& base, std::string_view key) {
    return base.empty() ? std::string(key) : base + "." + std::string(key);
}

const boost::json::object& need_object(const boost::json::value& v, const std::string& path) {
    if (!v.is_object()) fail(path, "expected an object");
    return v.get_object();
}

std::string need_string(const boost::json::object& o, std::string_view key, const std::string& path) {
    const auto* v = o.if_contains(key);
    if (v == nullptr) fail(join(path, key), "missing");
    if (!v->is_string()) fail(join(path, key), "expected a string");
    return std::string(v->get_string());
}

std::string opt_string(const boost::json::object& o, std::string_view key, const std::string& path) {
    const auto* v = o.if_contains(key);
    if (v == nullptr) return {};
    if (!v->is_string()) fail(join(path, key), "expected a string");
    return std::string(v->get_string());
}

// Keys starting with '_' are comments, anywhere.
void only_keys(const boost::json::object& o, std::initializer_list<std::string_view> allowed, const std::string& path) {
    for (const auto& kv : o) {
        const std::string_view k = kv.key();
        if (!k.empty() && k.front() == '_') continue;
        if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) {
            std::string list;
            for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
            fail(join(path, k), "unknown field (known here: " + list + ")");
        }
    }
}

KubeMinor need_minor(std::string_view text, const std::string& path) {
    auto m = parse_kube_minor(text);
    // A minor only: "1.36", not "1.36.2" or "v1.36".
    if (!m || text.empty() || text.front() == 'v' || std::count(text.begin(), text.end(), '.') != 1)
        fail(path, "expected a Kubernetes minor such as \"1.36\", got \"" + std::string(text) + "\"");
    return *m;
}

DottedVersion need_version(std::string_view text, const std::string& path) {
    auto v = parse_dotted_version(text);
    if (!v) fail(path, "expected a version such as \"3.29.1\", got \"" + std::string(text) + "\"");
    return *v;
}

AddonSpec decode_addon(std::string name, const boost::json::value& v, const std::string& path) {
    const auto& o = need_object(v, path);
    only_keys(o, {"source", "versions", "pinned", "pin_reason"}, path);
    AddonSpec a;
    a.name = std::move(name);

    const auto* src = o.if_contains("source");
    if (src == nullptr) fail(join(path, "source"), "missing (where to read the running version)");
    const auto sp = join(path, "source");
    const auto& so = need_object(*src, sp);
    only_keys(so, {"kind", "namespace", "name", "container", "label"}, sp);
    a.source.kind = need_string(so, "kind", sp);
    if (a.source.kind != "Deployment" && a.source.kind != "DaemonSet" && a.source.kind != "StatefulSet")
        fail(join(sp, "kind"), "expected Deployment, DaemonSet or StatefulSet, got \"" + a.source.kind + "\"");
    a.source.ns = need_string(so, "namespace", sp);
    a.source.name = need_string(so, "name", sp);
    a.source.container = opt_string(so, "container", sp);
    a.source.label = opt_string(so, "label", sp);
    if (a.source.container.empty() == a.source.label.empty())
        fail(sp, "needs exactly one of \"container\" (version from its image tag) or \"label\"");

    const auto vp = join(path, "versions");
    const auto* vs = o.if_contains("versions");
    if (vs == nullptr) fail(vp, "missing");
    if (!vs->is_array() || vs->get_array().empty()) fail(vp, "expected a non-empty array");
    std::size_t i = 0;
    for (const auto& row : vs->get_array()) {
        const auto rp = vp + "[" + std::to_string(i++) + "]";
        const auto& ro = need_object(row, rp);
        only_keys(ro, {"version", "max_k8s"}, rp);
        AddonVersionRow r;
        r.version = need_version(need_string(ro, "version", rp), join(rp, "version"));
        r.max_k8s = need_minor(need_string(ro, "max_k8s", rp), join(rp, "max_k8s"));
        for (const auto& seen : a.versions)
            if (seen.version == r.version) fail(join(rp, "version"), "duplicate version " + r.version.text);
        a.versions.push_back(std::move(r));
    }
    std::stable_sort(a.versions.begin(), a.versions.end(),
                     [](const AddonVersionRow& x, const AddonVersionRow& y) { return x.version < y.version; });

    if (const auto* p = o.if_contains("pinned")) {
        if (!p->is_bool()) fail(join(path, "pinned"), "expected true or false");
        a.pinned = p->get_bool();
    }
    a.pin_reason = opt_string(o, "pin_reason", path);
    if (a.pinned && a.pin_reason.empty())
        fail(join(path, "pinned"), "true needs a \"pin_reason\" (the report shows why it is held)");
    return a;
}

UpgradeMatrix decode_matrix(const boost::json::value& root) {
    const auto& o = need_object(root, "(top level)");
    only_keys(o, {"addons", "containerd_min", "api_removals"}, "");
    UpgradeMatrix m;
    if (const auto* a = o.if_contains("addons")) {
        const auto& ao = need_object(*a, "addons");
        for (const auto& kv : ao) {
            if (!kv.key().empty() && kv.key().front() == '_') continue;
            m.addons.push_back(decode_addon(std::string(kv.key()), kv.value(), join("addons", kv.key())));
        }
    }
    if (const auto* c = o.if_contains("containerd_min")) {
        const auto& co = need_object(*c, "containerd_min");
        for (const auto& kv : co) {
            if (!kv.key().empty() && kv.key().front() == '_') continue;
            const auto p = join("containerd_min", kv.key());
            ContainerdMinimum cm;
            cm.k8s = need_minor(kv.key(), p);
            if (!kv.value().is_string()) fail(p, "expected a containerd version string such as \"2.0.0\"");
            cm.min = need_version(kv.value().get_string(), p);
            m.containerd_min.push_back(std::move(cm));
        }
        std::sort(m.containerd_min.begin(), m.containerd_min.end(),
                  [](const auto& x, const auto& y) { return x.k8s < y.k8s; });
    }
    if (const auto* r = o.if_contains("api_removals")) {
        const auto& ro = need_object(*r, "api_removals");
        for (const auto& kv : ro) {
            if (!kv.key().empty() && kv.key().front() == '_') continue;
            const auto p = join("api_removals", kv.key());
            const KubeMinor release = need_minor(kv.key(), p);
            if (!kv.value().is_array()) fail(p, "expected an array of \"group/version/resource\" strings");
            std::size_t i = 0;
            for (const auto& e : kv.value().get_array()) {
                const auto ep = p + "[" + std::to_string(i++) + "]";
                if (!e.is_string()) fail(ep, "expected a \"group/version/resource\" string");
                const std::string_view s = e.get_string();
                std::vector<std::string> parts;
                std::size_t start = 0;
                while (true) {
                    const auto slash = s.find('/', start);
                    parts.emplace_back(s.substr(start, slash - start));
                    if (slash == std::string_view::npos) break;
                    start = slash + 1;
                }
                const bool bad_part = std::any_of(parts.begin(), parts.end(), [](const auto& x) { return x.empty(); });
                if ((parts.size() != 2 && parts.size() != 3) || bad_part)
                    fail(ep, "expected \"group/version/resource\" (or \"version/resource\" for the core group), got \"" +
                                 std::string(s) + "\"");
                ApiRemoval ar;
                if (parts.size() == 3) ar.group = parts[0];
                ar.version = parts[parts.size() - 2];
                ar.resource = parts.back();
                ar.removed = release;
                m.api_removals.push_back(std::move(ar));
            }
        }
        std::stable_sort(m.api_removals.begin(), m.api_removals.end(),
                         [](const auto& x, const auto& y) { return x.removed < y.removed; });
    }
    if (m.addons.empty() && m.containerd_min.empty() && m.api_removals.empty())
        fail("(top level)", "no \"addons\", \"containerd_min\" or \"api_removals\": nothing to check");
    return m;
}

// The line of `path`, or of its nearest recorded ancestor.
std::size_t line_of(const std::map<std::string, std::size_t>& lines, std::string path) {
    while (!path.empty()) {
        if (auto it = lines.find(path); it != lines.end()) return it->second;
        const auto cut = path.find_last_of(".[");
        if (cut == std::string::npos) break;
        path.resize(cut);
    }
    return 1;
}

}  // namespace

Result<UpgradeMatrix> parse_upgrade_matrix(std::string_view text, std::string_view source_name) {
    const std::string src(source_name);
    auto scan = scan_positions(text);
    if (!scan.syntax_ok) {
        std::string near = scan.error_near.empty() ? std::string("(top level)") : scan.error_near;
        return make_error("invalid_matrix",
                          src + " line " + std::to_string(scan.error_line) + ": " + near + ": " + scan.error_what);
    }
    boost::json::value root;
    try {
        root = boost::json::parse(text);
    } catch (const std::exception& e) {  // cannot happen after a clean scan; kept fail-safe
        return make_error("invalid_matrix", src + ": " + e.what());
    }
    try {
        return decode_matrix(root);
    } catch (const MatrixFailure& f) {
        return make_error("invalid_matrix",
                          src + " line " + std::to_string(line_of(scan.lines, f.path)) + ": " + f.path + ": " + f.what);
    }
}

const ContainerdMinimum* containerd_minimum_for(const UpgradeMatrix& m, KubeMinor target) {
    const ContainerdMinimum* best = nullptr;
    for (const auto& c : m.containerd_min)
        if (c.k8s <= target) best = &c;
    return best;
}

}  // namespace attune::core
