#pragma once
// The CredentialSource of a kubeconfig user with an exec plugin: runs the
// plugin when there is no valid credential (first use, past its
// expirationTimestamp, or refused with a 401), one run at a time with every
// other caller waiting for its result, and caches what it returned.
#include <attune/kube/credentials.hpp>
#include <attune/kube/exec_credential.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

namespace attune::kube {

class ExecCredentialSource final : public CredentialSource, public std::enable_shared_from_this<ExecCredentialSource> {
public:
    // Seams for tests; empty: the wall clock and isatty(0).
    struct Hooks {
        std::function<std::chrono::system_clock::time_point()> wall_clock;
        std::function<bool()> stdin_is_terminal;
    };

    // `cluster` is sent to the plugin only when cfg.provide_cluster_info.
    static std::shared_ptr<ExecCredentialSource> make(ExecConfig cfg, ExecClusterInfo cluster, ExecPluginOptions opts,
                                                      Hooks h = {});

    boost::asio::awaitable<CredentialResult> get(boost::asio::any_io_executor ex, Clock::time_point deadline) override;
    bool refused(std::uint64_t generation) override;

    const ExecConfig& config() const noexcept { return cfg_; }
    std::uint64_t runs() const noexcept { return runs_; }  // plugin runs started

private:
    struct run_state;
    ExecCredentialSource(ExecConfig cfg, ExecClusterInfo cluster, ExecPluginOptions opts, Hooks h);
    // `self` keeps this source alive for the whole run, whoever stops waiting.
    boost::asio::awaitable<void> run(boost::asio::any_io_executor ex, std::shared_ptr<run_state> rs,
                                     std::shared_ptr<ExecCredentialSource> self);
    CredentialResult obtain(const ExecRun& r);

    ExecConfig cfg_;
    ExecClusterInfo cluster_;
    ExecPluginOptions opts_;
    Hooks hooks_;
    std::optional<Credential> cached_;
    std::optional<core::Timestamp> expiration_;
    std::shared_ptr<run_state> inflight_;
    std::uint64_t generation_ = 0;
    std::uint64_t runs_ = 0;
};

}  // namespace attune::kube
