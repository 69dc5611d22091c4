#pragma once
// Which informers run. Every resource the process may watch is defined once,
// with the options (transform, storage, decoded view) that keep its cache
// lean; a feature asks for the caches it reads with need(), and only those
// informers are ever created and started. A cache nobody reads costs nothing:
// no LIST, no watch, no memory.
#include <attune/kube/informer.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace attune::kube {

class InformerRegistry {
public:
    explicit InformerRegistry(Client& c) : client_(c) {}

    void define(const std::string& name, InformerOptions opts);
    bool defined(const std::string& name) const { return defined_.contains(name); }
    // The options a name was defined with (nothing runs), null when not defined.
    const InformerOptions* definition(const std::string& name) const;
    std::vector<std::string> defined_names() const;

    // A feature reads this cache: the informer is created once and runs from
    // start on. Throws std::out_of_range for a name never defined (a wiring bug).
    Informer& need(const std::string& name);
    // The informer when some feature needed it, else null.
    Informer* find(const std::string& name) const;

    // The needed informers, by name.
    const std::map<std::string, std::unique_ptr<Informer>>& needed() const noexcept { return needed_; }
    bool all_synced() const noexcept;
    // What has not listed yet: "pods" for a cluster-wide stream, "pods/<ns>"
    // for one watched namespace's (--watch-namespaces).
    std::vector<std::string> not_synced() const;

private:
    Client& client_;
    std::map<std::string, InformerOptions> defined_;
    std::map<std::string, std::unique_ptr<Informer>> needed_;
};

}  // namespace attune::kube
