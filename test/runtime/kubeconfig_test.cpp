#include "test_certs.hpp"

#include <attune/core/util/base64.hpp>
#include <attune/kube/kubeconfig.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

namespace attune::kube {
namespace {
namespace fs = std::filesystem;
using core::base64_encode;
using test::pki;
using test::write_file;
using ::testing::HasSubstr;

// The token source a kubeconfig user with token or tokenFile gets (null: another kind, or none).
TokenSource* as_token(const RestConfig& cfg) { return dynamic_cast<TokenSource*>(cfg.credentials.get()); }

struct Kubeconfig : ::testing::Test {
    fs::path dir;
    void SetUp() override {
        dir = fs::temp_directory_path() /
              ("attune-kubeconfig-" + std::to_string(::getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir / "sub");
    }
    void TearDown() override { fs::remove_all(dir); }

    fs::path write(const std::string& name, const std::string& content) {
        write_file(dir / name, content);
        return dir / name;
    }

    // Expects resolve to fail with a message containing `needle`.
    void expect_error(const std::string& yaml, const std::string& needle, std::string_view ctx = {},
                      bool allow_insecure = false) {
        try {
            resolve_kubeconfig({{dir / "config", yaml}}, ctx, allow_insecure);
            ADD_FAILURE() << "expected config_error containing '" << needle << "'";
        } catch (const ConfigError& e) {
            EXPECT_THAT(e.what(), HasSubstr(needle));
        }
    }
};

std::string good_yaml(const std::string& ca_line, const std::string& user_lines) {
    return "apiVersion: v1\nkind: Config\ncurrent-context: dev\n"
           "clusters:\n- name: c1\n  cluster:\n    server: https://127.0.0.1:6443\n    " + ca_line + "\n"
           "users:\n- name: u1\n  user:\n" + user_lines +
           "contexts:\n- name: dev\n  context:\n    cluster: c1\n    user: u1\n    namespace: team-a\n";
}

TEST_F(Kubeconfig, FilesRelativeToTheKubeconfig) {
    write("sub/ca.crt", pki().ca_pem);
    write("sub/client.crt", pki().client_cert_pem);
    write("sub/client.key", pki().client_key_pem);
    const auto yaml = good_yaml("certificate-authority: sub/ca.crt",
                                "    client-certificate: sub/client.crt\n    client-key: sub/client.key\n");
    auto cfg = resolve_kubeconfig({{dir / "config", yaml}}, "", false);
    EXPECT_EQ(cfg.host, "127.0.0.1");
    EXPECT_EQ(cfg.port, "6443");
    EXPECT_EQ(cfg.default_namespace, "team-a");
    EXPECT_EQ(cfg.context, "dev");
    EXPECT_EQ(cfg.tls.ca_pem, pki().ca_pem);
    EXPECT_EQ(cfg.tls.client_cert_pem, pki().client_cert_pem);
    EXPECT_EQ(cfg.tls.client_key_pem, pki().client_key_pem);
    EXPECT_FALSE(cfg.credentials);
}

TEST_F(Kubeconfig, InlineDataAndBearerToken) {
    const auto yaml = good_yaml("certificate-authority-data: " + base64_encode(pki().ca_pem),
                                "    token: abc.def\n");
    auto cfg = resolve_kubeconfig({{dir / "config", yaml}}, "", false);
    EXPECT_EQ(cfg.tls.ca_pem, pki().ca_pem);
    ASSERT_TRUE(as_token(cfg));
    EXPECT_EQ(as_token(cfg)->current(TokenSource::Clock::now()), "abc.def");
}

TEST_F(Kubeconfig, TokenFileIsReadAndReRead) {
    write("tok", "first\n");
    const auto yaml = good_yaml("certificate-authority-data: " + base64_encode(pki().ca_pem), "    tokenFile: tok\n");
    auto cfg = resolve_kubeconfig({{dir / "config", yaml}}, "", false);
    ASSERT_TRUE(as_token(cfg));
    const auto t0 = TokenSource::Clock::now();
    EXPECT_EQ(as_token(cfg)->current(t0), "first");
    write("tok", "second");
    EXPECT_EQ(as_token(cfg)->current(t0 + std::chrono::seconds(1)), "first");   // not yet due
    EXPECT_EQ(as_token(cfg)->current(t0 + std::chrono::seconds(61)), "second");  // refreshed
    fs::remove(dir / "tok");
    EXPECT_EQ(as_token(cfg)->current(t0 + std::chrono::seconds(200)), "second");  // keeps the last good one
}

TEST_F(Kubeconfig, TokenFileWatchedForChangesAndForcedReread) {
    write("tok", "first");
    auto t = TokenSource::from_file(dir / "tok", std::chrono::seconds(3600), true);
    const auto t0 = TokenSource::Clock::now();
    EXPECT_EQ(t->current(t0), "first");
    // Another modification time: re-read at once, long before the refresh interval.
    write("tok", "second");
    fs::last_write_time(dir / "tok", fs::last_write_time(dir / "tok") + std::chrono::seconds(5));
    EXPECT_EQ(t->current(t0 + std::chrono::seconds(1)), "second");
    // force_reread (after a 401) reads now, whatever the clock says.
    auto fixed_interval = TokenSource::from_file(dir / "tok", std::chrono::seconds(3600));
    write("tok", "third");
    EXPECT_EQ(fixed_interval->current(t0), "second");
    EXPECT_TRUE(fixed_interval->force_reread());
    EXPECT_EQ(fixed_interval->current(t0), "third");
    fs::remove(dir / "tok");
    EXPECT_FALSE(fixed_interval->force_reread());
    EXPECT_EQ(fixed_interval->current(t0), "third");  // the last good token stays
    EXPECT_FALSE(TokenSource::fixed("x")->force_reread());
}

TEST_F(Kubeconfig, ContextFlagOverridesCurrentContext) {
    auto yaml = good_yaml("certificate-authority-data: " + base64_encode(pki().ca_pem), "    token: t\n");
    yaml += "- name: prod\n  context:\n    cluster: c1\n";
    auto cfg = resolve_kubeconfig({{dir / "config", yaml}}, "prod", false);
    EXPECT_EQ(cfg.context, "prod");
    EXPECT_EQ(cfg.default_namespace, "default");
    EXPECT_FALSE(cfg.credentials);
}

TEST_F(Kubeconfig, KubeconfigListMergesFirstDefinitionWins) {
    const auto a = write("a.yaml", "current-context: from-a\n"
                                   "clusters:\n- name: shared\n  cluster:\n    server: https://10.0.0.1\n"
                                   "    certificate-authority-data: " + base64_encode(pki().ca_pem) + "\n"
                                   "contexts:\n- name: from-a\n  context:\n    cluster: shared\n    user: u\n");
    const auto b = write("b.yaml", "current-context: from-b\n"
                                   "clusters:\n- name: shared\n  cluster:\n    server: https://10.9.9.9\n"
                                   "users:\n- name: u\n  user:\n    token: from-b-token\n"
                                   "contexts:\n- name: from-b\n  context:\n    cluster: shared\n");
    KubeconfigOptions o;
    o.kubeconfig_env = (dir / "missing.yaml").string() + "::" + a.string() + ":" + b.string();
    auto cfg = load_kubeconfig(o);
    EXPECT_EQ(cfg.context, "from-a");
    EXPECT_EQ(cfg.host, "10.0.0.1");  // a's cluster wins
    EXPECT_EQ(cfg.port, "443");
    ASSERT_TRUE(as_token(cfg));            // the user comes from b
    EXPECT_EQ(as_token(cfg)->current(TokenSource::Clock::now()), "from-b-token");
}

TEST_F(Kubeconfig, ContextNamesAreEveryMergedContextSorted) {
    const auto a = write("a.yaml",
                         "contexts:\n- name: zeta\n  context:\n    cluster: c\n"
                         "- name: alpha\n  context:\n    cluster: c\n");
    const auto b = write("b.yaml",
                         "contexts:\n- name: alpha\n  context:\n    cluster: other\n"
                         "- name: mid\n  context:\n    cluster: c\n");
    KubeconfigOptions o;
    o.kubeconfig_env = a.string() + ":" + (dir / "missing.yaml").string() + ":" + b.string();
    EXPECT_EQ(list_kubeconfig_contexts(o), (std::vector<std::string>{"alpha", "mid", "zeta"}));
    // Only the file --kubeconfig names.
    o.kubeconfig_flag = b.string();
    EXPECT_EQ(list_kubeconfig_contexts(o), (std::vector<std::string>{"alpha", "mid"}));
    EXPECT_TRUE(kubeconfig_context_names({{dir / "empty", ""}}).empty());
    // Malformed input is a ConfigError naming the file, as for resolve.
    try {
        kubeconfig_context_names({{dir / "bad", "contexts: {a: 1}\n"}});
        ADD_FAILURE() << "expected ConfigError";
    } catch (const ConfigError& e) {
        EXPECT_THAT(e.what(), HasSubstr("'contexts' must be a list"));
        EXPECT_THAT(e.what(), HasSubstr("bad"));
    }
}

TEST_F(Kubeconfig, FlagBeatsEnvironmentAndMustExist) {
    KubeconfigOptions o;
    o.kubeconfig_flag = (dir / "nope").string();
    o.kubeconfig_env = "/does/not/matter";
    try {
        load_kubeconfig(o);
        ADD_FAILURE();
    } catch (const ConfigError& e) {
        EXPECT_THAT(e.what(), HasSubstr("cannot read file"));
    }
    KubeconfigOptions none;
    none.kubeconfig_env = (dir / "x").string() + ":" + (dir / "y").string();
    EXPECT_THROW(load_kubeconfig(none), ConfigError);
}

TEST_F(Kubeconfig, InsecureSkipVerifyRefusedUnlessAllowed) {
    const std::string yaml = "current-context: dev\nclusters:\n- name: c1\n  cluster:\n    server: https://h:1\n"
                             "    insecure-skip-tls-verify: true\ncontexts:\n- name: dev\n  context:\n    cluster: c1\n";
    expect_error(yaml, "insecure-skip-tls-verify is refused");
    auto cfg = resolve_kubeconfig({{dir / "config", yaml}}, "", true);
    EXPECT_TRUE(cfg.tls.insecure_skip_verify);
}

TEST_F(Kubeconfig, MalformedInputsHaveClearErrors) {
    const std::string ca = "    certificate-authority-data: " + base64_encode(pki().ca_pem) + "\n";
    const std::string ctx = "contexts:\n- name: dev\n  context:\n    cluster: c1\n    user: u1\n";
    const std::string cl = "clusters:\n- name: c1\n  cluster:\n    server: https://h:6443\n" + ca;
    expect_error("clusters: [", "invalid YAML at line");
    expect_error("- a\n- b\n", "top level must be a mapping");
    expect_error("kind: Pod\n", "kind must be 'Config'");
    expect_error("clusters: {}\n", "'clusters' must be a list");
    expect_error("clusters:\n- cluster: {server: x}\n", "clusters[0] has no name");
    expect_error("clusters:\n- name: c\n", "has no 'cluster' mapping");
    expect_error(cl + ctx, "no current-context set");
    expect_error("current-context: nope\n" + cl + ctx, "context 'nope' not found");
    expect_error("current-context: dev\n" + ctx, "cluster 'c1' not found");
    expect_error("current-context: dev\n" + cl + ctx, "user 'u1' not found");
    expect_error("current-context: dev\nclusters:\n- name: c1\n  cluster:\n" + ca + ctx + "users:\n- name: u1\n  user: {}\n",
                 "has no server");
    const std::string users_ok = "users:\n- name: u1\n  user: {token: t}\n";
    expect_error("current-context: dev\nclusters:\n- name: c1\n  cluster:\n    server: http://h\n" + ca + ctx + users_ok,
                 "only https:// is supported");
    expect_error("current-context: dev\nclusters:\n- name: c1\n  cluster:\n    server: https://h:99999\n" + ca + ctx + users_ok,
                 "invalid port");
    expect_error("current-context: dev\nclusters:\n- name: c1\n  cluster:\n    server: https://h\n"
                 "    certificate-authority-data: '!!notbase64!!'\n" + ctx + users_ok,
                 "not valid base64");
    expect_error("current-context: dev\nclusters:\n- name: c1\n  cluster:\n    server: https://h\n"
                 "    certificate-authority: /nonexistent/ca.crt\n" + ctx + users_ok,
                 "cannot read certificate-authority file");
    expect_error("current-context: dev\nclusters:\n- name: c1\n  cluster:\n    server: https://h\n"
                 "    certificate-authority: /x\n    certificate-authority-data: eA==\n" + ctx + users_ok,
                 "both 'certificate-authority' and 'certificate-authority-data'");
    expect_error("current-context: dev\n" + cl + ctx + "users:\n- name: u1\n  user:\n    client-certificate-data: eA==\n",
                 "must be given together");
    expect_error("current-context: dev\n" + cl + ctx + "users:\n- name: u1\n  user:\n    exec: {command: x}\n",
                 "exec: apiVersion must be set");
    expect_error("current-context: dev\n" + cl + ctx + "users:\n- name: u1\n  user:\n    username: a\n    password: b\n",
                 "basic authentication is not supported");
    expect_error("current-context: dev\n" + cl + ctx + "users:\n- name: u1\n  user:\n    tokenFile: /nonexistent\n",
                 "token file");
    expect_error("current-context: dev\n" + cl + ctx + "users:\n- name: u1\n  user:\n    token: [a]\n",
                 "field 'token' must be a string");
    expect_error("current-context: dev\nclusters:\n- name: c1\n  cluster:\n    server: https://h\n"
                 "    insecure-skip-tls-verify: maybe\n" + ctx + users_ok,
                 "must be true or false");
    expect_error("current-context: dev\nclusters:\n- name: c1\n  cluster:\n    server: https://h\n"
                 "    insecure-skip-tls-verify: true\n" + ca + ctx + users_ok,
                 "cannot be combined", {}, true);
}

TEST_F(Kubeconfig, ExecUserErrorsNameTheField) {
    const std::string head = "current-context: dev\nclusters:\n- name: c1\n  cluster:\n    server: https://h:6443\n"
                             "contexts:\n- name: dev\n  context:\n    cluster: c1\n    user: u1\n"
                             "users:\n- name: u1\n  user:\n    exec:\n";
    const std::string v1 = "      apiVersion: client.authentication.k8s.io/v1\n";
    struct Row {
        std::string exec;
        const char* error;
    };
    const std::vector<Row> rows = {
        {"      command: p\n      interactiveMode: Never\n", "user 'u1': exec: apiVersion must be set"},
        {"      apiVersion: client.authentication.k8s.io/v1alpha1\n      command: p\n",
         "apiVersion 'client.authentication.k8s.io/v1alpha1' is not supported"},
        {v1 + "      command: p\n", "interactiveMode must be set for client.authentication.k8s.io/v1"},
        {v1 + "      interactiveMode: Never\n", "exec: command must be set"},
        {v1 + "      command: p\n      interactiveMode: Maybe\n", "interactiveMode 'Maybe' is not one of"},
        {v1 + "      command: p\n      interactiveMode: Never\n      args: x\n", "'args' must be a list of strings"},
        {v1 + "      command: p\n      interactiveMode: Never\n      args: [[a]]\n",
         "'args' must be a list of strings"},
        {v1 + "      command: p\n      interactiveMode: Never\n      env: [x]\n", "env[0] must be a mapping"},
        {v1 + "      command: p\n      interactiveMode: Never\n      env: [{value: x}]\n", "env[0] has no name"},
        {v1 + "      command: p\n      interactiveMode: Never\n      provideClusterInfo: perhaps\n",
         "field 'provideClusterInfo' must be true or false"},
        {v1 + "      command: [p]\n      interactiveMode: Never\n", "field 'command' must be a string"},
    };
    for (const auto& r : rows) expect_error(head + r.exec, r.error);
    expect_error(head.substr(0, head.size() - 1) + " [a]\n", "'exec' must be a mapping");
}

TEST_F(Kubeconfig, ExecUserIsASourceAndStaticCredentialsWin) {
    const std::string head = "current-context: dev\nclusters:\n- name: c1\n  cluster:\n    server: https://h:6443\n"
                             "contexts:\n- name: dev\n  context:\n    cluster: c1\n    user: u1\n"
                             "users:\n- name: u1\n  user:\n";
    const std::string exec = "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: p\n"
                             "      interactiveMode: Never\n      args: [a, b]\n      env: [{name: A, value: '1'}]\n"
                             "      installHint: get p\n";
    auto only = resolve_kubeconfig({{dir / "config", head + exec}}, "", false);
    ASSERT_TRUE(only.credentials);
    EXPECT_EQ(as_token(only), nullptr);  // an exec source, not a token
    // As kubectl: a token given alongside is used and the plugin never runs.
    auto both = resolve_kubeconfig({{dir / "config", head + "    token: static\n" + exec}}, "", false);
    ASSERT_TRUE(as_token(both));
    EXPECT_EQ(as_token(both)->current(TokenSource::Clock::now()), "static");
}

TEST_F(Kubeconfig, ServerUrlForms) {
    RestConfig c;
    parse_server_url("https://[::1]:8443/prefix/", c);
    EXPECT_EQ(c.host, "::1");
    EXPECT_EQ(c.port, "8443");
    EXPECT_EQ(c.path_prefix, "/prefix");
    parse_server_url("https://api.example.test", c);
    EXPECT_EQ(c.host, "api.example.test");
    EXPECT_EQ(c.port, "443");
    EXPECT_EQ(c.path_prefix, "");
    EXPECT_THROW(parse_server_url("https://", c), ConfigError);
    EXPECT_THROW(parse_server_url("https://[::1", c), ConfigError);
    EXPECT_THROW(parse_server_url("https://u:p@h", c), ConfigError);
}

TEST_F(Kubeconfig, InCluster) {
    write("ca.crt", pki().ca_pem);
    write("token", "sa-token\n");
    write("namespace", "attune-system\n");
    InClusterOptions o;
    o.service_host = "10.96.0.1";
    o.service_port = "443";
    o.dir = dir;
    auto cfg = load_in_cluster(o);
    EXPECT_EQ(cfg.host, "10.96.0.1");
    EXPECT_EQ(cfg.default_namespace, "attune-system");
    EXPECT_EQ(as_token(cfg)->current(TokenSource::Clock::now()), "sa-token");
    EXPECT_EQ(cfg.tls.ca_pem, pki().ca_pem);
    o.service_host.clear();
    EXPECT_THROW(load_in_cluster(o), ConfigError);
    o.service_host = "fd00::1";
    EXPECT_EQ(load_in_cluster(o).host, "fd00::1");
    fs::remove(dir / "token");
    EXPECT_THROW(load_in_cluster(o), ConfigError);
}

}  // namespace
}  // namespace attune::kube
