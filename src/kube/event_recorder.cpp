#include <attune/kube/event_recorder.hpp>
#include <attune/kube/micro_time.hpp>

#include <boost/json.hpp>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace attune::kube {
namespace json = boost::json;
namespace asio = boost::asio;

std::string EventSeriesTracker::key_of(const K8sEvent& ev) {
    const auto& r = ev.regarding;
    // \x1f cannot appear in names or reasons: no ambiguous concatenation.
    return fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}", r.api_version, r.kind, r.ns, r.name, r.uid,
                       ev.type, ev.reason, ev.action, ev.note);
}

EventSeriesTracker::Decision EventSeriesTracker::observe(const K8sEvent& ev, Clock::time_point now) {
    Decision d;
    d.key = key_of(ev);
    auto it = series_.find(d.key);
    if (it != series_.end() && now - it->second.last_seen > opts_.series_window) {
        forget(d.key);
        it = series_.end();
    }
    if (it == series_.end()) {
        if (series_.size() >= opts_.max_tracked && !lru_.empty()) forget(lru_.back());
        lru_.push_front(d.key);
        Series s;
        s.first_seen = s.last_seen = s.last_patch = now;
        s.lru = lru_.begin();
        series_.emplace(d.key, std::move(s));
        d.what = Verdict::Create;
        return d;
    }
    auto& s = it->second;
    ++s.count;
    s.last_seen = now;
    lru_.splice(lru_.begin(), lru_, s.lru);
    d.count = s.count;
    d.event_name = s.event_name;
    // Until the create succeeded there is nothing to patch.
    d.what = (!s.event_name.empty() && now - s.last_patch >= opts_.patch_interval) ? Verdict::Patch : Verdict::Suppress;
    return d;
}

void EventSeriesTracker::created(const std::string& key, std::string event_name) {
    if (auto it = series_.find(key); it != series_.end()) it->second.event_name = std::move(event_name);
}

void EventSeriesTracker::patched(const std::string& key, Clock::time_point now) {
    if (auto it = series_.find(key); it != series_.end()) {
        it->second.last_patch = now;
        it->second.patched_count = it->second.count;
    }
}

void EventSeriesTracker::forget(const std::string& key) {
    if (auto it = series_.find(key); it != series_.end()) {
        lru_.erase(it->second.lru);
        series_.erase(it);
    }
}

std::vector<EventSeriesTracker::Decision> EventSeriesTracker::due(Clock::time_point now) const {
    std::vector<Decision> out;
    for (const auto& [k, s] : series_) {
        if (s.count > s.patched_count && !s.event_name.empty() && now - s.last_patch >= opts_.patch_interval)
            out.push_back(Decision{Verdict::Patch, k, s.event_name, s.count});
    }
    return out;
}

EventRecorder::EventRecorder(Client& c, std::string controller, std::string instance, EventSeriesTracker::Options opts,
                             WallClock now)
    : client_(c), controller_(std::move(controller)), instance_(std::move(instance)), tracker_(opts),
      now_(now ? std::move(now) : WallClock([] { return std::chrono::system_clock::now(); })) {}

asio::awaitable<bool> EventRecorder::create(const std::string& key, const K8sEvent& ev) {
    const auto& r = ev.regarding;
    const std::string name = fmt::format("{}.{:x}{:04x}", r.name.empty() ? "attune" : r.name,
                                         std::chrono::duration_cast<std::chrono::microseconds>(
                                             now_().time_since_epoch()).count(),
                                         ++seq_ & 0xffff);
    std::string note = ev.note.substr(0, 1024);
    json::object regarding{{"apiVersion", r.api_version}, {"kind", r.kind}, {"name", r.name}};
    if (!r.ns.empty()) regarding["namespace"] = r.ns;
    if (!r.uid.empty()) regarding["uid"] = r.uid;
    const std::string ns = r.ns.empty() ? "default" : r.ns;
    json::value body = {{"apiVersion", "events.k8s.io/v1"},
                        {"kind", "Event"},
                        {"metadata", {{"name", name}, {"namespace", ns}}},
                        {"eventTime", format_micro_time(now_())},
                        {"reportingController", controller_},
                        {"reportingInstance", instance_},
                        {"action", ev.action},
                        {"reason", ev.reason},
                        {"type", ev.type},
                        {"note", note},
                        {"regarding", std::move(regarding)}};
    // The name is ours and unique, so a create whose response was lost (the
    // apiserver restarting under it) is sent again; AlreadyExists then means
    // the lost attempt landed.
    WriteOptions wo;
    wo.replay_safe = true;
    auto res = co_await client_.create(resources::events(), ns, body, wo);
    if (!res && !res.error().is_already_exists()) {
        client_.metrics().k8s_events.Add({{"result", "error"}}).Increment();
        spdlog::warn("event create failed namespace={} name={} reason={} error=\"{}\"", r.ns, r.name, ev.reason,
                     res.error().describe());
        tracker_.forget(key);
        co_return false;
    }
    client_.metrics().k8s_events.Add({{"result", "created"}}).Increment();
    tracker_.created(key, name);
    co_return true;
}

asio::awaitable<void> EventRecorder::patch_series(const EventSeriesTracker::Decision& d, const std::string& ns) {
    json::value patch = {{"series", {{"count", d.count}, {"lastObservedTime", format_micro_time(now_())}}}};
    auto res =
        co_await client_.patch(resources::events(), ns, d.event_name, PatchType::JsonMerge, json::serialize(patch));
    tracker_.patched(d.key, EventSeriesTracker::Clock::now());
    if (res) {
        client_.metrics().k8s_events.Add({{"result", "series_patched"}}).Increment();
        co_return;
    }
    client_.metrics().k8s_events.Add({{"result", "error"}}).Increment();
    if (res.error().is_not_found()) {
        // The Event expired (TTL) while the series went on: start a new one.
        tracker_.forget(d.key);
        if (auto it = originals_.find(d.key); it != originals_.end()) {
            auto again = it->second;
            tracker_.observe(again, EventSeriesTracker::Clock::now());
            co_await create(d.key, again);
        }
    } else {
        spdlog::warn("event series patch failed namespace={} event={} error=\"{}\"", ns, d.event_name,
                     res.error().describe());
    }
}

asio::awaitable<void> EventRecorder::emit(K8sEvent ev) {
    auto d = tracker_.observe(ev, EventSeriesTracker::Clock::now());
    const std::string ns = ev.regarding.ns.empty() ? "default" : ev.regarding.ns;
    switch (d.what) {
        case EventSeriesTracker::Verdict::Create:
            originals_[d.key] = ev;
            co_await create(d.key, ev);
            break;
        case EventSeriesTracker::Verdict::Patch: co_await patch_series(d, ns); break;
        case EventSeriesTracker::Verdict::Suppress:
            client_.metrics().k8s_events.Add({{"result", "deduplicated"}}).Increment();
            break;
    }
    // Keep the originals bounded by what the tracker still follows.
    if (originals_.size() > tracker_.size() + 64) {
        std::erase_if(originals_, [&](const auto& kv) { return !tracker_.contains(kv.first); });
    }
}

asio::awaitable<void> EventRecorder::flush() {
    for (const auto& d : tracker_.due(EventSeriesTracker::Clock::now())) {
        std::string ns = "default";
        if (auto it = originals_.find(d.key); it != originals_.end() && !it->second.regarding.ns.empty())
            ns = it->second.regarding.ns;
        co_await patch_series(d, ns);
    }
}

}  // namespace attune::kube
