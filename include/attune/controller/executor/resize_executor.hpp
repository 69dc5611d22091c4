#pragma once
// The resize executor (docs/resize.md): carries out the core's decisions for every
// workload whose winning policy resizes (Auto: every eligible pod; OneShot:
// one replica at a time) and that has a fresh recommendation in the store.
//
// One coroutine per workload key at a time, off its own workqueue (dedupe,
// per-key serialisation, backoff). A pass takes one snapshot of the caches,
// then, in order:
//   1. follows the resizes of ours in flight (classify_resize_state through
//      the pod informer; a resize counts only once Applied) and settles
//      them: Resized, the cycle, template persistence and the HPA retune;
//   2. evicts (InPlaceOrRecreate) or reports InfeasibleBlocked;
//   3. watches resized pods for safetyObservationPeriod and reverts what
//      hurts to the originals stored on the pod (judge_safety, plan_revert);
//   4. ends startup boosts (decide_boost_restore);
//   5. resizes: decide_resize per selected pod, the originals first
//      (tracking_patch), then one PATCH pods/{name}/resize.
// Idle workloads (HPA-held or manual zero), paused policies and modes that
// do not resize stop before step 2. Canary is the lifecycle's (docs/lifecycle.md):
// in step 5 run_lifecycle drives core::step_lifecycle and resizes and rolls
// back through the same resize_one.
//
// Every write goes through the client, so --leader-elect's fence covers
// them all. State lives on the one io_context thread; nothing is left
// half-updated across a co_await (a slot is taken before its PATCH is sent
// and given back if the PATCH fails).
//
// The files of this folder (src/controller/executor/, headers beside this one):
//   resize_executor.cpp   the queue, the handlers and one pass (the order above)
//   resize_snapshot.*     the pass's one synchronous read of the caches, decoded
//   resize_follow.cpp     step 1: resizes in flight until Applied, then settled
//   resize_followups.cpp  steps 2 and 4 and what follows step 1: eviction,
//                         boost restore, template persistence, HPA retune
//   safety_monitor.cpp    step 3: the observation window and the revert
//   resize_submit.cpp     the one write path: originals, then PATCH /resize
//   lifecycle_stage.cpp   step 5 for Canary: the progressive lifecycle
//   resize_reporting.cpp  Events, status.resizeHistory and the counters
//   ResizeLedger.*       the resize part of each policy's status between writes
//   ExecutorMetrics.*    the executor's Prometheus families
#include <attune/controller/event_queue.hpp>
#include <attune/controller/executor/executor_metrics.hpp>
#include <attune/controller/node_load_index.hpp>
#include <attune/controller/executor/resize_ledger.hpp>
#include <attune/controller/executor/resize_snapshot.hpp>
#include <attune/policy/time_zones.hpp>
#include <attune/controller/workqueue.hpp>
#include <attune/core/model/capabilities.hpp>
#include <attune/core/lifecycle/lifecycle.hpp>
#include <attune/core/policy/policy.hpp>
#include <attune/core/resize/resize_events.hpp>
#include <attune/core/resize/resize_gates.hpp>
#include <attune/core/resize/resize_pass.hpp>
#include <attune/core/resize/resize_tracking.hpp>
#include <attune/core/followups/template_persistence.hpp>
#include <attune/kube/client.hpp>
#include <attune/kube/event_recorder.hpp>
#include <attune/kube/informer.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace attune::controller {

class RecommendationStore;
struct StoredRecommendation;

struct ExecutorOptions {
    ExecutorOptions() = default;
    int workers = 2;
    RateLimitOptions rate;
    int conflict_retries = 3;                         // 409 on /resize: re-read, re-plan, retry this often
    std::chrono::milliseconds safety_tick{5'000};     // re-judge pods under safety watch this often
    std::chrono::milliseconds held_requeue{30'000};   // look again at pods a gate held
    std::chrono::seconds deferred_bound{15 * 60};     // InPlaceOrRecreate: evict after Deferred this long
};

// One instant PromQL query against the policy's Prometheus: the first
// sample's value; nullopt when the query failed, returned nothing, or the
// policy has no Prometheus. A failed query passes (docs/safety.md).
using InstantQueryFn =
    std::function<boost::asio::awaitable<std::optional<double>>(std::shared_ptr<const core::EffectivePolicy>,
                                                                std::string)>;

class ResizeExecutor {
public:
    // `events`: the controller's bounded Event queue (it applies the D rule
    // and attune.io/suppress-warnings); null: Events are not sent (tests).
    ResizeExecutor(boost::asio::any_io_executor ex, kube::Client& client, EventQueue* events, ExecutorMetrics& metrics,
                   ExecutorCaches caches, const RecommendationStore& store, ExecutorOptions opts);

    // The probed capabilities; until they are set nothing is planned.
    void set_capabilities(const core::Capabilities& caps);
    void set_instant_query(InstantQueryFn query);

    // Pod changes: the pod's workload passes again; the node index follows.
    kube::Informer::Handler on_pod_change();
    // The store changed this workload's recommendation.
    void on_recommendation_change(const ObjectKey& workload);
    // Start of leadership: every workload the store holds gets a pass, and
    // resizes found in flight are adopted (followed, not reported again).
    void enqueue_all();

    boost::asio::awaitable<void> run_worker();
    void shut_down();

    // One pass, for tests (the workers call it for each key).
    boost::asio::awaitable<void> process(ObjectKey key);

    const ResizeLedger& ledger() const noexcept { return ledger_; }
    // Called after every pass that changed a policy's ledger book (the
    // status aggregator writes it).
    void on_ledger_change(std::function<void(const std::string& ns, const std::string& policy)> cb);
    Workqueue& queue() noexcept { return queue_; }
    std::size_t in_flight() const noexcept { return in_flight_.size(); }

private:
    struct InFlightResize {
        core::TrackedResize t;
        ObjectKey workload;
        std::string policy;      // name
        std::string policy_key;  // "ns/name", the cycle's key
        std::chrono::steady_clock::time_point sent;  // for attune_resize_duration_seconds
    };
    // What one pass knows about the workload and its managing policy.
    struct PassContext {
        ExecutorSnapshot snap;
        std::shared_ptr<const StoredRecommendation> rec_holder;  // a copy: the store may move on while we await
        const StoredRecommendation* rec = nullptr;
        const core::EffectivePolicy* policy = nullptr;
        std::string policy_name;
        std::string policy_key;  // "ns/name" (cycles)
        kube::ObjectReference regarding;
        ResizeLedger::Book* book = nullptr;
        core::Timestamp now;
        // What the recommendation asks of the pods (its resize targets, as
        // text): holds, refusals and reverts are remembered against it, so a
        // refresh that changes nothing neither re-reports nor retries them.
        std::string targets_key;
        bool acting = false;        // resizing mode, not paused, not idle: writes allowed
        bool work_left = false;     // pods wait for a slot
        bool holds_cycle = false;   // a validating lifecycle attempt keeps the cycle open between its steps
        bool cooldown_held = false;
        std::optional<std::chrono::milliseconds> requeue;  // the soonest look-again
        void requeue_in(std::chrono::milliseconds d) { requeue = requeue ? std::min(*requeue, d) : d; }
    };
    enum class SubmitOutcome { Accepted, Held, Refused, Failed, Fenced };
    struct SubmitResult {
        SubmitOutcome what = SubmitOutcome::Failed;
        core::Pod pod;          // as planned from (re-read after a 409)
        core::ResizePlan plan;  // as sent
        std::int64_t generation = 0;
        std::string reason;     // history reason: annotation-persist-failed | -conflict | the apiserver's Status reason
        std::string message;
        std::vector<std::string> stale_versions;  // the pod's resourceVersions from before the /resize
        std::string resource_version;             // the pod's, in the /resize answer
    };
    using ReplanFn = std::function<std::optional<core::ResizePlan>(const core::Pod&)>;

    // Steps of a pass: resize_follow.cpp, safety_monitor.cpp,
    // resize_followups.cpp (eviction, boosts, persistence, HPA), resize_submit.cpp.
    boost::asio::awaitable<void> follow(PassContext& c);
    boost::asio::awaitable<void> settle_applied(PassContext& c, InFlightResize f, const core::Pod& pod);
    // `changes`: what the resize in flight asked for (the history's from/to).
    boost::asio::awaitable<void> evict_or_block(PassContext& c, const core::Pod& pod, core::ResizeStatus status,
                                                std::optional<core::Timestamp> deferred_since,
                                                std::vector<core::ContainerChange> changes);
    boost::asio::awaitable<void> watch_safety(PassContext& c);
    boost::asio::awaitable<void> restore_boosts(PassContext& c);
    boost::asio::awaitable<void> resize_pods(PassContext& c);
    // The one way a pod is resized (Auto, OneShot and the lifecycle's
    // canaries and rollbacks): decide_resize through the gates, then
    // submit, track, Events and metrics. True when the /resize was accepted.
    // `max_concurrent`: the lifecycle's limit in place of updateStrategy's.
    // `restore`: a return to earlier values (ResizeGateInputs::restore).
    boost::asio::awaitable<bool> resize_one(PassContext& c, core::Pod pod, std::vector<core::ContainerTarget> targets,
                                            core::ControlledValues controlled, std::optional<int> max_concurrent,
                                            bool restore = false);
    // Canary (lifecycle_stage.cpp, docs/lifecycle.md "How the shell drives it").
    boost::asio::awaitable<void> run_lifecycle(PassContext& c);
    boost::asio::awaitable<core::ThrottlingMeasurement> measure_throttling(PassContext& c,
                                                                           std::vector<std::string> pods,
                                                                           std::chrono::seconds window);
    // The policy's status.lifecycle from the ledger, written now (before any
    // other action when webhook eligibility is withdrawn). False: not written.
    boost::asio::awaitable<bool> write_lifecycle_status(PassContext& c);
    boost::asio::awaitable<void> patch_lifecycle_template(PassContext& c, core::ContainerResourceMap resources,
                                                          std::string revision);
    // Writes a planned template patch: metrics, history TemplatePatched, Event. False when it failed.
    boost::asio::awaitable<bool> write_template_patch(PassContext& c, const core::TemplatePatch& patch,
                                                      const core::Pod& pod_template, core::PersistWhen when);
    boost::asio::awaitable<void> persist(PassContext& c);
    boost::asio::awaitable<void> retune_hpa(PassContext& c, const core::Pod& applied);
    boost::asio::awaitable<void> close_cycle(PassContext& c);
    // attune.io/last-resize-time = now on the policy (merge patch), remembered
    // here too so the gates see it before the policy cache does.
    boost::asio::awaitable<void> write_cooldown_anchor(PassContext& c, std::string why);
    std::optional<std::string> cooldown_anchor(const PassContext& c) const;
    boost::asio::awaitable<SubmitResult> submit(core::Pod pod, core::ResizePlan plan, ReplanFn replan,
                                                bool write_originals, std::string workload);
    // A JSON merge patch of the pod's metadata (tracking annotations); false when it failed (logged).
    boost::asio::awaitable<bool> patch_pod_metadata(core::Pod pod, std::string body, std::string what);

    core::ResizeGateInputs gate_inputs(PassContext& c, const core::Pod& pod, const core::NodeFacts* node);
    // Follows an accepted /resize (r) until it settles.
    void track(PassContext& c, const SubmitResult& r, core::TrackedKind kind, std::string reason);
    void refresh_pod_states(PassContext& c);

    // Reporting (resize_reporting.cpp): Events regarding the policy, history, metrics.
    // Regarding the policy, or `regarding` (the lifecycle's Events are on the workload).
    void emit(const PassContext& c, const core::EventIntent& e, const kube::ObjectReference* regarding = nullptr);
    boost::asio::awaitable<void> report_held(PassContext& c, const core::Pod& pod, const core::ResizeHeld& h);
    boost::asio::awaitable<void> report_not_sent(PassContext& c, const core::Pod& pod, const SubmitResult& r);
    // Once per pod, generation and reason: true the first time.
    bool first_report(const PassContext& c, const std::string& pod_uid, const std::string& reason);
    void history(PassContext& c, std::vector<core::HistoryEntry> entries);
    void count_resize(const PassContext& c, const std::vector<core::ContainerChange>& changes, std::string result);

    boost::asio::any_io_executor ex_;
    kube::Client& client_;
    EventQueue* events_;
    ExecutorMetrics& metrics_;
    ExecutorCaches caches_;
    const RecommendationStore& store_;
    ExecutorOptions opts_;
    Workqueue queue_;
    std::optional<core::Capabilities> caps_;
    InstantQueryFn query_;
    std::function<void(const std::string&, const std::string&)> ledger_changed_;
    policy::TimeZones zones_;

    std::unordered_map<std::string, InFlightResize> in_flight_;  // by pod uid
    // Pod uids ever followed (in flight, then settled): a resize found in
    // flight on any other pod is adopted, once.
    std::set<std::string> followed_;
    // Per workload key, the uids of pods we resized (pruned as they go).
    std::unordered_map<std::string, std::set<std::string>> resized_pods_;
    // Pods reverted, and the targets they were reverted from: those targets
    // are not applied to them again (a new recommendation may be).
    std::unordered_map<std::string, std::string> reverted_;
    // The /resize of these targets was refused (4xx): never retried blindly.
    std::unordered_map<std::string, std::string> refused_;
    // What was reported per pod (uid -> {targets, reason}): each once. Kept
    // small (cleared past a few entries) and dropped with the pod.
    std::unordered_map<std::string, std::set<std::pair<std::string, std::string>>> reported_holds_;
    // The hold last written to the history per workload key (targets + reason).
    std::unordered_map<std::string, std::pair<std::string, std::string>> recorded_holds_;
    // Workload keys with a resize Applied since their template was last persisted or their HPA retuned.
    std::set<std::string> applied_since_persist_;
    // The targets last persisted (OnRecommendation), per workload key.
    std::unordered_map<std::string, std::string> persisted_targets_;
    core::ResizeCycleBook cycles_;
    std::unordered_map<std::string, core::Timestamp> anchors_;  // policy key -> the anchor this manager wrote last
    ResizeLedger ledger_;
    NodeLoadIndex nodes_;
    bool stopping_ = false;
};

}  // namespace attune::controller
