#include <attune/core/util/base64.hpp>
#include <attune/kube/exec_credential_source.hpp>
#include <attune/kube/kubeconfig.hpp>
#include <attune/kube/yaml_json.hpp>

#include <boost/json.hpp>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace attune::kube {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const fs::path& file, const std::string& what) {
    throw ConfigError("kubeconfig " + file.string() + ": " + what);
}

std::optional<std::string> read_whole(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// A named entry (cluster, user or context) with the file it came from.
struct Named {
    YAML::Node body;
    fs::path file;
};

std::string scalar(const Named& e, const char* field, const std::string& where) {
    const auto n = e.body[field];
    if (!n) return {};
    if (!n.IsScalar()) fail(e.file, where + ": field '" + field + "' must be a string");
    return n.as<std::string>();
}

bool flag(const Named& e, const char* field, const std::string& where) {
    const auto n = e.body[field];
    if (!n) return false;
    try {
        return n.as<bool>();
    } catch (const YAML::Exception&) {
        fail(e.file, where + ": field '" + field + "' must be true or false");
    }
}

// Reads "<field>" (a path, relative to the defining file) or "<field>-data"
// (base64). Both at once is ambiguous and refused, as kubectl does.
std::string material(const Named& e, const std::string& field, const std::string& where) {
    const std::string path = scalar(e, field.c_str(), where);
    const std::string data = scalar(e, (field + "-data").c_str(), where);
    if (!path.empty() && !data.empty()) fail(e.file, where + ": both '" + field + "' and '" + field + "-data' are set");
    if (!data.empty()) {
        auto decoded = core::base64_decode(data);
        if (!decoded) fail(e.file, where + ": '" + field + "-data' is not valid base64");
        if (decoded->empty()) fail(e.file, where + ": '" + field + "-data' is empty");
        return *decoded;
    }
    if (path.empty()) return {};
    fs::path p(path);
    if (p.is_relative()) p = e.file.parent_path() / p;
    auto content = read_whole(p);
    if (!content) fail(e.file, where + ": cannot read " + field + " file " + p.string());
    if (content->empty()) fail(e.file, where + ": " + field + " file " + p.string() + " is empty");
    return *content;
}

// users[].user.exec, read field by field; check_exec_config judges it.
ExecConfig read_exec(const Named& u, const std::string& where) {
    const YAML::Node x = u.body["exec"];
    if (!x.IsMap()) fail(u.file, where + ": 'exec' must be a mapping");
    const Named e{x, u.file};
    const std::string ew = where + ": exec";
    ExecConfigInput in;
    in.api_version = scalar(e, "apiVersion", ew);
    in.command = scalar(e, "command", ew);
    in.install_hint = scalar(e, "installHint", ew);
    in.provide_cluster_info = flag(e, "provideClusterInfo", ew);
    if (x["interactiveMode"]) in.mode = scalar(e, "interactiveMode", ew);
    if (const auto args = x["args"]; args && !args.IsNull()) {
        if (!args.IsSequence()) fail(u.file, ew + ": 'args' must be a list of strings");
        for (const auto& a : args) {
            if (!a.IsScalar()) fail(u.file, ew + ": 'args' must be a list of strings");
            in.args.push_back(a.Scalar());
        }
    }
    if (const auto env = x["env"]; env && !env.IsNull()) {
        if (!env.IsSequence()) fail(u.file, ew + ": 'env' must be a list of {name, value}");
        std::size_t i = 0;
        for (const auto& item : env) {
            const std::string iw = ew + ": env[" + std::to_string(i++) + "]";
            if (!item.IsMap()) fail(u.file, iw + " must be a mapping with name and value");
            const Named ev{item, u.file};
            in.env.push_back({scalar(ev, "name", iw), scalar(ev, "value", iw)});
        }
    }
    auto checked = check_exec_config(in);
    if (!checked) fail(u.file, where + ": " + checked.error().message);
    ExecConfig cfg = std::move(checked).value();
    cfg.command = resolve_exec_command(cfg.command, u.file.parent_path().string());
    return cfg;
}

// What spec.cluster tells a plugin with provideClusterInfo.
ExecClusterInfo read_exec_cluster(const Named& cl, const std::string& where, const RestConfig& out) {
    ExecClusterInfo info;
    info.server = scalar(cl, "server", where);
    info.tls_server_name = out.tls.server_name;
    info.insecure_skip_tls_verify = out.tls.insecure_skip_verify;
    info.certificate_authority_data = out.tls.ca_pem;
    info.proxy_url = scalar(cl, "proxy-url", where);
    if (const auto exts = cl.body["extensions"]; exts && !exts.IsNull()) {
        if (!exts.IsSequence()) fail(cl.file, where + ": 'extensions' must be a list");
        for (const auto& ext : exts) {
            if (!ext.IsMap() || !ext["name"] || !ext["name"].IsScalar()) continue;
            if (ext["name"].Scalar() != kExecClusterExtension) continue;
            if (const auto body = ext["extension"]; body && !body.IsNull()) info.config = yaml_to_json(body);
        }
    }
    return info;
}

struct Merged {
    std::map<std::string, Named> clusters, users, contexts;
    std::string current_context;
    fs::path current_context_file;
};

void collect(const KubeconfigSource& src, const YAML::Node& root, const char* list, const char* inner,
             std::map<std::string, Named>& into) {
    const auto seq = root[list];
    if (!seq || seq.IsNull()) return;
    if (!seq.IsSequence()) fail(src.path, std::string("'") + list + "' must be a list");
    std::size_t i = 0;
    for (const auto& item : seq) {
        const std::string where = std::string(list) + "[" + std::to_string(i++) + "]";
        if (!item.IsMap()) fail(src.path, where + " must be a mapping");
        const auto name = item["name"];
        if (!name || !name.IsScalar() || name.as<std::string>().empty()) fail(src.path, where + " has no name");
        const auto body = item[inner];
        if (!body || !body.IsMap()) fail(src.path, where + " ('" + name.as<std::string>() + "') has no '" + inner + "' mapping");
        into.try_emplace(name.as<std::string>(), Named{body, src.path});  // first definition wins
    }
}

}  // namespace

namespace {
RestConfig resolve_checked(const std::vector<KubeconfigSource>& sources, std::string_view context_override,
                           bool allow_insecure_tls, const ExecPluginOptions& exec);
Merged merge_sources(const std::vector<KubeconfigSource>& sources);

// Any yaml-cpp complaint not mapped to a field becomes a ConfigError naming the first file.
template <class F>
auto yaml_errors_as_config_errors(const std::vector<KubeconfigSource>& sources, F&& f) {
    try {
        return f();
    } catch (const YAML::Exception& e) {
        throw ConfigError("kubeconfig " + (sources.empty() ? std::string() : sources.front().path.string()) +
                          ": malformed: " + e.what());
    }
}
}  // namespace

RestConfig resolve_kubeconfig(const std::vector<KubeconfigSource>& sources, std::string_view context_override,
                              bool allow_insecure_tls, const ExecPluginOptions& exec) {
    return yaml_errors_as_config_errors(sources, [&] {
        return resolve_checked(sources, context_override, allow_insecure_tls, exec);
    });
}

std::vector<std::string> kubeconfig_context_names(const std::vector<KubeconfigSource>& sources) {
    return yaml_errors_as_config_errors(sources, [&] {
        std::vector<std::string> names;
        for (const auto& [name, ctx] : merge_sources(sources).contexts) names.push_back(name);
        return names;  // std::map: already sorted
    });
}

namespace {
// The sources merged by kubectl's rules: for clusters, users and contexts the
// first definition of a name wins; the first non-empty current-context wins.
Merged merge_sources(const std::vector<KubeconfigSource>& sources) {
    if (sources.empty()) throw ConfigError("kubeconfig: no configuration file found");
    Merged m;
    for (const auto& src : sources) {
        YAML::Node root;
        try {
            root = YAML::Load(src.content);
        } catch (const YAML::ParserException& e) {
            fail(src.path, "invalid YAML at line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
        }
        if (root.IsNull()) continue;  // an empty file contributes nothing
        if (!root.IsMap()) fail(src.path, "top level must be a mapping");
        if (const auto k = root["kind"]; k && (!k.IsScalar() || k.as<std::string>() != "Config"))
            fail(src.path, "kind must be 'Config'");
        collect(src, root, "clusters", "cluster", m.clusters);
        collect(src, root, "users", "user", m.users);
        collect(src, root, "contexts", "context", m.contexts);
        if (const auto cc = root["current-context"]; cc && m.current_context.empty()) {
            if (!cc.IsScalar()) fail(src.path, "'current-context' must be a string");
            m.current_context = cc.as<std::string>();
            m.current_context_file = src.path;
        }
    }
    return m;
}

RestConfig resolve_checked(const std::vector<KubeconfigSource>& sources, std::string_view context_override,
                           bool allow_insecure_tls, const ExecPluginOptions& exec) {
    const Merged m = merge_sources(sources);

    const std::string ctx_name = context_override.empty() ? m.current_context : std::string(context_override);
    const fs::path& first = sources.front().path;
    if (ctx_name.empty()) fail(first, "no current-context set and no --context given");
    const auto ctx_it = m.contexts.find(ctx_name);
    if (ctx_it == m.contexts.end()) fail(first, "context '" + ctx_name + "' not found");
    const Named& ctx = ctx_it->second;
    const std::string ctx_where = "context '" + ctx_name + "'";
    const std::string cluster_name = scalar(ctx, "cluster", ctx_where);
    const std::string user_name = scalar(ctx, "user", ctx_where);
    if (cluster_name.empty()) fail(ctx.file, ctx_where + " names no cluster");
    const auto cl_it = m.clusters.find(cluster_name);
    if (cl_it == m.clusters.end()) fail(ctx.file, ctx_where + ": cluster '" + cluster_name + "' not found");
    const Named& cl = cl_it->second;
    const std::string cl_where = "cluster '" + cluster_name + "'";

    RestConfig out;
    out.context = ctx_name;
    if (auto ns = scalar(ctx, "namespace", ctx_where); !ns.empty()) out.default_namespace = ns;

    const std::string server = scalar(cl, "server", cl_where);
    if (server.empty()) fail(cl.file, cl_where + " has no server");
    try {
        parse_server_url(server, out);
    } catch (const ConfigError& e) {
        fail(cl.file, cl_where + ": " + e.what());
    }
    if (!scalar(cl, "proxy-url", cl_where).empty()) fail(cl.file, cl_where + ": proxy-url is not supported");
    out.tls.server_name = scalar(cl, "tls-server-name", cl_where);
    out.tls.ca_pem = material(cl, "certificate-authority", cl_where);
    const bool insecure = flag(cl, "insecure-skip-tls-verify", cl_where);
    if (insecure) {
        if (!out.tls.ca_pem.empty())
            fail(cl.file, cl_where + ": insecure-skip-tls-verify cannot be combined with a certificate authority");
        if (!allow_insecure_tls)
            fail(cl.file, cl_where + ": insecure-skip-tls-verify is refused (pass the explicit allow-insecure flag to accept it)");
        out.tls.insecure_skip_verify = true;
    }

    if (!user_name.empty()) {
        const auto u_it = m.users.find(user_name);
        if (u_it == m.users.end()) fail(ctx.file, ctx_where + ": user '" + user_name + "' not found");
        const Named& u = u_it->second;
        const std::string u_where = "user '" + user_name + "'";
        if (u.body["auth-provider"]) fail(u.file, u_where + ": auth-provider is not supported");
        if (!scalar(u, "username", u_where).empty() || !scalar(u, "password", u_where).empty())
            fail(u.file, u_where + ": basic authentication is not supported");
        out.tls.client_cert_pem = material(u, "client-certificate", u_where);
        out.tls.client_key_pem = material(u, "client-key", u_where);
        if (out.tls.client_cert_pem.empty() != out.tls.client_key_pem.empty())
            fail(u.file, u_where + ": client-certificate and client-key must be given together");
        const std::string token = scalar(u, "token", u_where);
        const std::string token_file = scalar(u, "tokenFile", u_where);
        if (!token.empty()) {
            out.credentials = TokenSource::fixed(token);
        } else if (!token_file.empty()) {
            fs::path p(token_file);
            if (p.is_relative()) p = u.file.parent_path() / p;
            try {
                out.credentials = TokenSource::from_file(p);
            } catch (const ConfigError& e) {
                fail(u.file, u_where + ": " + e.what());
            }
        }
        if (u.body["exec"] && !u.body["exec"].IsNull()) {
            ExecConfig ec = read_exec(u, u_where);
            // As client-go: a token or client certificate given alongside
            // wins, and the plugin is not run.
            if (!out.credentials && out.tls.client_cert_pem.empty())
                out.credentials = ExecCredentialSource::make(std::move(ec), read_exec_cluster(cl, cl_where, out), exec);
        }
    }
    return out;
}
}  // namespace

namespace {
std::vector<KubeconfigSource> read_sources(const std::vector<fs::path>& paths, bool all_required) {
    std::vector<KubeconfigSource> out;
    for (const auto& p : paths) {
        if (p.empty()) continue;
        auto content = read_whole(p);
        if (!content) {
            if (all_required) throw ConfigError("kubeconfig " + p.string() + ": cannot read file");
            continue;
        }
        out.push_back({p, std::move(*content)});
    }
    return out;
}
}  // namespace

// The files kubectl reads: --kubeconfig, else $KUBECONFIG (missing entries
// skipped, at least one must exist), else ~/.kube/config.
std::vector<KubeconfigSource> kubeconfig_sources(const KubeconfigOptions& opts) {
    if (!opts.kubeconfig_flag.empty()) return read_sources({opts.kubeconfig_flag}, true);
    if (opts.kubeconfig_env && !opts.kubeconfig_env->empty()) {
        std::vector<fs::path> paths;
        std::string_view rest = *opts.kubeconfig_env;
        while (true) {
            const auto colon = rest.find(':');
            paths.emplace_back(std::string(rest.substr(0, colon)));
            if (colon == std::string_view::npos) break;
            rest.remove_prefix(colon + 1);
        }
        auto sources = read_sources(paths, false);
        if (sources.empty())
            throw ConfigError("KUBECONFIG=" + *opts.kubeconfig_env + ": none of the files can be read");
        return sources;
    }
    if (opts.home.empty()) throw ConfigError("kubeconfig: no --kubeconfig, $KUBECONFIG or home directory");
    return read_sources({opts.home / ".kube" / "config"}, true);
}

RestConfig load_kubeconfig(const KubeconfigOptions& opts) {
    return resolve_kubeconfig(kubeconfig_sources(opts), opts.context, opts.allow_insecure_tls, opts.exec);
}

std::vector<std::string> list_kubeconfig_contexts(const KubeconfigOptions& opts) {
    return kubeconfig_context_names(kubeconfig_sources(opts));
}

RestConfig load_in_cluster(const InClusterOptions& opts) {
    if (opts.service_host.empty() || opts.service_port.empty())
        throw ConfigError("in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set");
    RestConfig out;
    const bool v6 = opts.service_host.find(':') != std::string::npos;
    parse_server_url("https://" + (v6 ? "[" + opts.service_host + "]" : opts.service_host) + ":" + opts.service_port,
                     out);
    auto ca = read_whole(opts.dir / "ca.crt");
    if (!ca || ca->empty()) throw ConfigError("in-cluster: cannot read " + (opts.dir / "ca.crt").string());
    out.tls.ca_pem = std::move(*ca);
    out.credentials = TokenSource::from_file(opts.dir / "token", opts.token_refresh);
    if (auto ns = read_whole(opts.dir / "namespace"); ns && !ns->empty()) {
        while (!ns->empty() && (ns->back() == '\n' || ns->back() == ' ')) ns->pop_back();
        out.default_namespace = *ns;
    }
    out.context = "in-cluster";
    return out;
}

namespace {
KubeconfigOptions options_from_environment(std::string kubeconfig_flag) {
    KubeconfigOptions o;
    o.kubeconfig_flag = std::move(kubeconfig_flag);
    if (const char* env = std::getenv("KUBECONFIG")) o.kubeconfig_env = env;
    if (const char* home = std::getenv("HOME")) o.home = home;
    return o;
}
}  // namespace

std::vector<std::string> list_default_contexts(std::string kubeconfig_flag) {
    return list_kubeconfig_contexts(options_from_environment(std::move(kubeconfig_flag)));
}

RestConfig load_default_config(std::string kubeconfig_flag, std::string context, bool allow_insecure_tls,
                               ExecPluginOptions exec) {
    KubeconfigOptions o = options_from_environment(std::move(kubeconfig_flag));
    o.exec = std::move(exec);
    o.context = std::move(context);
    o.allow_insecure_tls = allow_insecure_tls;
    const bool have_file = !o.kubeconfig_flag.empty() || (o.kubeconfig_env && !o.kubeconfig_env->empty());
    const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
    if (!have_file && host && *host) {
        InClusterOptions ic;
        ic.service_host = host;
        if (const char* port = std::getenv("KUBERNETES_SERVICE_PORT")) ic.service_port = port;
        return load_in_cluster(ic);
    }
    return load_kubeconfig(o);
}

}  // namespace attune::kube
