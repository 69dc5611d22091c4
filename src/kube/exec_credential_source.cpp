#include <attune/kube/exec_credential_source.hpp>
#include <attune/kube/exec_process.hpp>

#include <attune/http/tls_context.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <spdlog/spdlog.h>

#include <unistd.h>

#include <algorithm>
#include <vector>

namespace attune::kube {
namespace asio = boost::asio;
using Steady = std::chrono::steady_clock;

// One plugin run and who waits for it. Waiters are timers armed at their
// own deadline; the run cancels them when it has a result.
struct ExecCredentialSource::run_state {
    bool done = false;
    CredentialResult result;
    std::vector<std::shared_ptr<asio::steady_timer>> waiters;
};

std::shared_ptr<ExecCredentialSource> ExecCredentialSource::make(ExecConfig cfg, ExecClusterInfo cluster,
                                                                 ExecPluginOptions opts, Hooks h) {
    return std::shared_ptr<ExecCredentialSource>(
        new ExecCredentialSource(std::move(cfg), std::move(cluster), std::move(opts), std::move(h)));
}

ExecCredentialSource::ExecCredentialSource(ExecConfig cfg, ExecClusterInfo cluster, ExecPluginOptions opts, Hooks h)
    : cfg_(std::move(cfg)), cluster_(std::move(cluster)), opts_(std::move(opts)), hooks_(std::move(h)) {
    if (!hooks_.wall_clock) hooks_.wall_clock = [] { return std::chrono::system_clock::now(); };
    if (!hooks_.stdin_is_terminal) hooks_.stdin_is_terminal = [] { return ::isatty(STDIN_FILENO) == 1; };
}

asio::awaitable<CredentialResult> ExecCredentialSource::get(asio::any_io_executor ex, Clock::time_point deadline) {
    auto self = shared_from_this();
    if (cached_ && exec_credential_valid(expiration_, hooks_.wall_clock())) {
        CredentialResult r;
        r.value = *cached_;
        co_return r;
    }
    auto rs = inflight_;
    if (!rs) {
        // co_spawn may run the plugin's start inline, and a run that fails at
        // once is over (inflight_ reset) before co_spawn returns.
        rs = inflight_ = std::make_shared<run_state>();
        asio::co_spawn(ex, run(ex, rs, self), asio::detached);
    }
    if (!rs->done) {
        auto t = std::make_shared<asio::steady_timer>(ex, deadline);
        rs->waiters.push_back(t);
        co_await t->async_wait(asio::as_tuple(asio::use_awaitable));
        std::erase(rs->waiters, t);
    }
    if (!rs->done) {
        CredentialResult r;
        r.error = "gave up waiting for exec plugin " + cfg_.command + " (it is still running)";
        co_return r;
    }
    co_return rs->result;
}

bool ExecCredentialSource::refused(std::uint64_t generation) {
    // Another request's 401 may have dropped it already, or a run replaced it.
    if (cached_ && cached_->generation == generation) {
        spdlog::info("exec plugin credential refused by the apiserver; it runs again on the next request command={}",
                     cfg_.command);
        cached_.reset();
        expiration_.reset();
    }
    return true;
}

CredentialResult ExecCredentialSource::obtain(const ExecRun& r) {
    CredentialResult out;
    if (r.how != ExecRun::End::Exited || r.exit_code != 0) {
        out.error = describe_exec_failure(cfg_, r).message;
        return out;
    }
    auto parsed = parse_exec_credential(r.stdout_data, cfg_.api_version, hooks_.wall_clock());
    if (!parsed) {
        out.error = parsed.error().message + " (from " + cfg_.command + ")";
        return out;
    }
    auto& c = parsed.value();
    if (!c.client_certificate_pem.empty()) {
        if (auto why = http::check_client_identity(c.client_certificate_pem, c.client_key_pem); !why.empty()) {
            out.error = "exec plugin output: status.clientCertificateData/clientKeyData: " + why + " (from " +
                        cfg_.command + ")";
            return out;
        }
    }
    cached_ = Credential{c.token, c.client_certificate_pem, c.client_key_pem, ++generation_};
    expiration_ = c.expiration;
    out.value = *cached_;
    spdlog::info("exec plugin returned a credential command={} kind={} expires={}", cfg_.command,
                 c.client_certificate_pem.empty() ? "token" : (c.token.empty() ? "certificate" : "token+certificate"),
                 c.expiration ? core::format_timestamp(*c.expiration) : std::string("never"));
    return out;
}

asio::awaitable<void> ExecCredentialSource::run(asio::any_io_executor ex, std::shared_ptr<run_state> rs,
                                                std::shared_ptr<ExecCredentialSource> self) {
    (void)self;
    ++runs_;
    CredentialResult result;
    try {
        auto interactive = decide_interactive(cfg_.mode, hooks_.stdin_is_terminal(), opts_.stdin_unavailable,
                                              opts_.stdin_unavailable_reason);
        if (!interactive) {
            result.error = interactive.error().message + " (" + cfg_.command + ")";
        } else {
            ExecSpawn spec;
            spec.command = cfg_.command;
            spec.args = cfg_.args;
            spec.env = build_exec_env(current_environment(), cfg_.env,
                                      exec_info_json(cfg_.api_version, interactive.value(),
                                                     cfg_.provide_cluster_info ? &cluster_ : nullptr));
            spec.interactive = interactive.value();
            spec.timeout = opts_.timeout;
            spec.stdout_cap = opts_.stdout_cap;
            spec.stderr_tail = opts_.stderr_tail;
            const auto started = Steady::now();
            auto r = co_await run_exec_plugin(ex, std::move(spec));
            result = obtain(r);
            if (!result.value)
                spdlog::warn("exec plugin failed command={} duration_ms={} error=\"{}\"", cfg_.command,
                             std::chrono::duration_cast<std::chrono::milliseconds>(Steady::now() - started).count(),
                             result.error);
        }
    } catch (const std::exception& e) {
        result = CredentialResult{};
        result.error = std::string("exec plugin ") + cfg_.command + ": " + e.what();
    }
    rs->result = std::move(result);
    rs->done = true;
    if (inflight_ == rs) inflight_.reset();  // the next caller without a credential starts a new run
    for (auto& w : rs->waiters) w->cancel();
}

}  // namespace attune::kube
