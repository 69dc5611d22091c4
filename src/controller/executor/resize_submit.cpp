// The one write path of a resize (docs/resize.md): the originals on the pod
// first (before the first resize, so a revert survives a restart), then ONE
// strategic-merge PATCH of pods/{name}/resize carrying every container and
// the envelope. 409: re-read, re-plan, retry (bounded). Any other 4xx is a
// planner bug or an apiserver that refuses the envelope: never retried blindly; the caller reports it.
#include <attune/controller/executor/resize_executor.hpp>
#include <attune/kube/wall_now.hpp>

#include <attune/core/util/json_path.hpp>
#include <attune/core/safety/original_values.hpp>
#include <attune/core/resize/resize_report.hpp>

#include <boost/json/serialize.hpp>

#include <spdlog/spdlog.h>

namespace attune::controller {
namespace asio = boost::asio;
namespace json = boost::json;

namespace {

bool is_client_error(const kube::ApiError& e) {
    return e.kind == kube::ErrorKind::ApiStatus && e.code >= 400 && e.code < 500;
}

using kube::wall_now;

}  // namespace

asio::awaitable<bool> ResizeExecutor::patch_pod_metadata(core::Pod pod, std::string body, std::string what) {
    auto r = co_await client_.patch(kube::resources::pods(), pod.namespace_, pod.name, kube::PatchType::JsonMerge,
                                    std::move(body));
    if (r) co_return true;
    if (!r.error().is_not_found() && !r.error().is_fenced())
        spdlog::warn("pod metadata patch failed namespace={} pod={} uid={} what=\"{}\" error=\"{}\"", pod.namespace_,
                     pod.name, pod.uid, what, r.error().describe());
    co_return false;
}

asio::awaitable<ResizeExecutor::SubmitResult> ResizeExecutor::submit(core::Pod pod, core::ResizePlan plan,
                                                                     ReplanFn replan, bool write_originals,
                                                                     std::string workload) {
    SubmitResult out;
    for (int attempt = 0;; ++attempt) {
        out.pod = pod;
        out.plan = plan;  // what was (or would have been) sent, for the report
        if (write_originals) {
            std::vector<std::string> names;
            for (const auto& ch : core::container_changes(pod, plan.planned)) names.push_back(ch.container);
            const auto originals = core::capture_originals(pod, names);
            auto r =
                co_await client_.patch(kube::resources::pods(), pod.namespace_, pod.name, kube::PatchType::JsonMerge,
                                       json::serialize(core::tracking_patch(originals, workload, wall_now())));
            if (r) out.stale_versions.push_back(std::string(kube::meta_string(r.value(), "resourceVersion")));
            if (!r) {
                out.what = r.error().is_fenced() ? SubmitOutcome::Fenced : SubmitOutcome::Failed;
                out.reason = r.error().is_conflict() ? "annotation-persist-conflict" : "annotation-persist-failed";
                out.message = r.error().describe();
                co_return out;
            }
            write_originals = false;  // on the pod now; a re-read after a 409 carries them
        }
        auto r = co_await client_.patch(kube::resources::pods(), pod.namespace_, pod.name,
                                        kube::PatchType::StrategicMerge, json::serialize(plan.body), "resize");
        if (r) {
            out.what = SubmitOutcome::Accepted;
            out.generation = core::int_at(r.value(), {"metadata", "generation"}).value_or(0);
            out.resource_version = std::string(kube::meta_string(r.value(), "resourceVersion"));
            co_return out;
        }
        const auto& e = r.error();
        out.message = e.describe();
        out.reason = e.reason.empty() ? std::to_string(e.code) : e.reason;
        if (e.is_fenced()) {
            out.what = SubmitOutcome::Fenced;
            co_return out;
        }
        if (e.is_conflict() && attempt < opts_.conflict_retries) {
            spdlog::info("resize conflict; re-reading the pod namespace={} pod={} uid={} attempt={}", pod.namespace_,
                         pod.name, pod.uid, attempt + 1);
            auto fresh = co_await client_.get(kube::resources::pods(), pod.namespace_, pod.name);
            if (!fresh) {
                out.what = fresh.error().is_fenced() ? SubmitOutcome::Fenced : SubmitOutcome::Failed;
                out.reason = "re-fetch-failed";
                out.message = fresh.error().describe();
                co_return out;
            }
            auto decoded = core::decode_pod(fresh.value());
            if (!decoded || decoded.value().uid != pod.uid) {
                out.what = SubmitOutcome::Failed;
                out.reason = "re-fetch-failed";
                out.message = decoded ? "the pod was replaced" : decoded.error().message;
                co_return out;
            }
            pod = std::move(decoded).value();
            auto again = replan(pod);
            if (!again) {
                out.what = SubmitOutcome::Held;
                out.pod = pod;
                co_return out;
            }
            plan = std::move(*again);
            continue;
        }
        out.what = is_client_error(e) && !e.is_conflict() && !e.is_too_many_requests() ? SubmitOutcome::Refused
                                                                                       : SubmitOutcome::Failed;
        co_return out;
    }
}

}  // namespace attune::controller
