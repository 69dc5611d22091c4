#pragma once
// The credential_source of a kubeconfig user with an exec plugin: runs the
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

class exec_credential_source final : public credential_source,
                                     public std::enable_shared_from_this<exec_credential_source> {
public:
    // Seams for tests; empty: the wall clock and isatty(0).
    struct hooks {
        std::function<std::chrono::system_clock::time_point()> wall_clock;
        std::function<bool()> stdin_is_terminal;
    };

    // `cluster` is sent to the plugin only when cfg.provide_cluster_info.
    static std::shared_ptr<exec_credential_source> make(exec_config cfg, exec_cluster_info cluster,
                                                        exec_plugin_options opts, hooks h = {});

    boost::asio::awaitable<credential_result> get(boost::asio::any_io_executor ex,
                                                  clock::time_point deadline) override;
    bool refused(std::uint64_t generation) override;

    const exec_config& config() const noexcept { return cfg_; }
    std::uint64_t runs() const noexcept { return runs_; }  // plugin runs started

private:
    struct run_state;
    exec_credential_source(exec_config cfg, exec_cluster_info cluster, exec_plugin_options opts, hooks h);
    // `self` keeps this source alive for the whole run, whoever stops waiting.
    boost::asio::awaitable<void> run(boost::asio::any_io_executor ex, std::shared_ptr<run_state> rs,
                                     std::shared_ptr<exec_credential_source> self);
    credential_result obtain(const exec_run& r);

    exec_config cfg_;
    exec_cluster_info cluster_;
    exec_plugin_options opts_;
    hooks hooks_;
    std::optional<credential> cached_;
    std::optional<core::Timestamp> expiration_;
    std::shared_ptr<run_state> inflight_;
    std::uint64_t generation_ = 0;
    std::uint64_t runs_ = 0;
};

}  // namespace attune::kube
