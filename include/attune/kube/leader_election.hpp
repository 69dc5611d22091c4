#pragma once
// Lease-based leader election (coordination.k8s.io/v1), client-go semantics:
// lease 15 s, renew deadline 10 s, retry 2 s; expiry judged on our own clock
// from when we last saw the record change; clean release on shutdown
// (holderIdentity "" and leaseDurationSeconds 1).
#include <attune/kube/client.hpp>

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>

namespace attune::kube {

struct leader_election_config {
    leader_election_config() = default;
    leader_election_config(std::string ns_, std::string name_, std::string identity_,
                           std::chrono::seconds lease = std::chrono::seconds(15),
                           std::chrono::seconds renew = std::chrono::seconds(10),
                           std::chrono::seconds retry = std::chrono::seconds(2))
        : ns(std::move(ns_)), name(std::move(name_)), identity(std::move(identity_)), lease_duration(lease),
          renew_deadline(renew), retry_period(retry) {}
    std::string ns;
    std::string name;
    std::string identity;
    std::chrono::seconds lease_duration{15};
    std::chrono::seconds renew_deadline{10};
    std::chrono::seconds retry_period{2};
};

struct lease_record {
    lease_record() = default;
    std::string holder;
    long long duration_seconds = 0;
    std::string acquire_time, renew_time;
    long long transitions = 0;
    std::string resource_version;
};

// Pure decision logic.
class lease_fsm {
public:
    using clock = std::chrono::steady_clock;
    enum class action { create, take, renew, wait };

    explicit lease_fsm(leader_election_config cfg) : cfg_(std::move(cfg)) {}

    // `observed`: the lease as just read (nullopt: it does not exist).
    action decide(const std::optional<lease_record>& observed, clock::time_point now);
    // Result of the write that followed a create/take/renew.
    void on_write(bool ok, clock::time_point now);
    // Leader while the last successful write is younger than the renew deadline.
    bool is_leader(clock::time_point now) const;
    const leader_election_config& config() const noexcept { return cfg_; }

private:
    leader_election_config cfg_;
    std::optional<lease_record> last_seen_;
    clock::time_point last_seen_at_{};
    std::optional<clock::time_point> last_renew_;
};

lease_record lease_from_json(const boost::json::value& lease);

class leader_elector {
public:
    using wall_clock = std::function<std::chrono::system_clock::time_point()>;

    leader_elector(client& c, leader_election_config cfg, wall_clock now = nullptr);

    void on_started_leading(std::function<void()> f) { started_ = std::move(f); }
    void on_stopped_leading(std::function<void()> f) { stopped_ = std::move(f); }

    // Campaigns and renews until stop(); then releases the lease if held.
    boost::asio::awaitable<void> run();
    void stop() noexcept;
    bool is_leader() const noexcept;

    // One round: read, decide, write. Exposed for tests.
    boost::asio::awaitable<void> step();
    // Writes holderIdentity "" / leaseDurationSeconds 1 when we hold the lease.
    boost::asio::awaitable<void> release();

private:
    lease_record next_record(lease_fsm::action act, const std::optional<lease_record>& observed) const;
    boost::asio::awaitable<client::json_result> write(bool create, const boost::json::value& body);

    client& client_;
    lease_fsm fsm_;
    wall_clock now_;
    std::function<void()> started_, stopped_;
    bool leading_ = false;
    bool stopping_ = false;
    std::optional<lease_record> current_;
    std::shared_ptr<void> timer_;  // the run() sleep, cancelled by stop()
};

}  // namespace attune::kube
