#include <attune/controller/secret_reader.hpp>

#include <attune/core/util/json_path.hpp>
#include <attune/core/util/base64.hpp>

namespace attune::controller {

SecretReader::SecretReader(kube::Client& client, std::chrono::seconds ttl, std::size_t max_entries)
    : client_(client), ttl_(ttl), max_entries_(max_entries) {}

boost::asio::awaitable<core::Result<std::string>> SecretReader::read(std::string ns, std::string name,
                                                                     std::string key) {
    const auto id = ns + "/" + name + "/" + key;
    const auto now = Clock::now();
    if (auto it = cache_.find(id); it != cache_.end() && now - it->second.read_at < ttl_) co_return it->second.value;

    auto bad = [&](std::string why) { return core::make_error("secret_unreadable", "Secret " + ns + "/" + name + ": " + why); };
    auto r = co_await client_.get(kube::resources::secrets(), ns, name);
    core::Result<std::string> value = bad("not read");
    if (!r) {
        const auto& e = r.error();
        if (e.is_not_found()) value = bad("not found");
        else if (e.is_forbidden())
            // The apiserver's message names the verb and the resource.
            value = bad("forbidden (" + e.message + "); grant the manager the secret-reads Role in namespace " +
                        ns + ": the kustomize component deploy/kustomize/components/secret-reads, or the chart "
                        "value secretReads.namespaces");
        else value = bad(e.describe());
    } else if (const auto* data = core::object_at(r.value(), {"data"}); !data || !data->contains(key)) {
        value = bad("has no key \"" + key + "\"");
    } else if (auto decoded = core::base64_decode(core::string_at(*data, {key})); !decoded) {
        value = bad("key \"" + key + "\" is not valid base64");
    } else {
        value = std::move(*decoded);
    }
    // Bounded: a full cache starts over rather than growing with names.
    if (cache_.size() >= max_entries_ && !cache_.contains(id)) cache_.clear();
    cache_[id] = Entry{value, now};
    co_return value;
}

}  // namespace attune::controller
