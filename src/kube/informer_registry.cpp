#include <attune/kube/informer_registry.hpp>

#include <stdexcept>

namespace attune::kube {

void InformerRegistry::define(const std::string& name, InformerOptions opts) {
    defined_.insert_or_assign(name, std::move(opts));
}

const InformerOptions* InformerRegistry::definition(const std::string& name) const {
    auto it = defined_.find(name);
    return it == defined_.end() ? nullptr : &it->second;
}

std::vector<std::string> InformerRegistry::defined_names() const {
    std::vector<std::string> out;
    for (const auto& [name, opts] : defined_) out.push_back(name);
    return out;
}

Informer& InformerRegistry::need(const std::string& name) {
    if (auto it = needed_.find(name); it != needed_.end()) return *it->second;
    auto def = defined_.find(name);
    if (def == defined_.end()) throw std::out_of_range("informer_registry: no informer named " + name);
    auto [it, ok] = needed_.emplace(name, std::make_unique<Informer>(client_, def->second));
    return *it->second;
}

Informer* InformerRegistry::find(const std::string& name) const {
    auto it = needed_.find(name);
    return it == needed_.end() ? nullptr : it->second.get();
}

bool InformerRegistry::all_synced() const noexcept {
    for (const auto& [name, inf] : needed_)
        if (!inf->has_synced()) return false;
    return true;
}

std::vector<std::string> InformerRegistry::not_synced() const {
    std::vector<std::string> out;
    for (const auto& [name, inf] : needed_)
        for (const auto& ns : inf->not_synced()) out.push_back(ns.empty() ? name : name + "/" + ns);
    return out;
}

}  // namespace attune::kube
