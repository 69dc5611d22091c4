#include "manager_version.hpp"

#include <attune/core/upgrade/upgrade_version.hpp>

namespace attune::cli {

ManagerVersionProbe manager_version_from(const boost::json::value& deployment) {
    ManagerVersionProbe p;
    const auto* obj = deployment.if_object();
    if (obj == nullptr) {
        p.error = "not a Deployment object";
        return p;
    }
    if (const auto* md = obj->if_contains("metadata"); md && md->is_object()) {
        if (const auto* labels = md->get_object().if_contains("labels"); labels && labels->is_object()) {
            if (const auto* v = labels->get_object().if_contains("app.kubernetes.io/version"); v && v->is_string()) {
                p.version = std::string(v->get_string());
                p.source = "label app.kubernetes.io/version";
                return p;
            }
        }
    }
    const boost::json::value* containers = nullptr;
    if (const auto* spec = obj->if_contains("spec"); spec && spec->is_object())
        if (const auto* tpl = spec->get_object().if_contains("template"); tpl && tpl->is_object())
            if (const auto* ps = tpl->get_object().if_contains("spec"); ps && ps->is_object())
                containers = ps->get_object().if_contains("containers");
    if (containers != nullptr && containers->is_array()) {
        for (const auto& c : containers->get_array()) {
            const auto* co = c.if_object();
            if (co == nullptr) continue;
            const auto* name = co->if_contains("name");
            const auto* image = co->if_contains("image");
            if (!name || !name->is_string() || name->get_string() != "manager" || !image || !image->is_string())
                continue;
            const std::string img(image->get_string());
            if (auto tag = core::image_tag(img)) {
                p.version = *tag;
                p.source = "image " + img;
            } else {
                p.error = "image " + img + " has no tag";
            }
            return p;
        }
    }
    p.error = "no app.kubernetes.io/version label and no \"manager\" container";
    return p;
}

boost::asio::awaitable<ManagerVersionProbe> probe_manager_version(kube::Client& c, std::string ns, std::string name) {
    auto r = co_await c.get(kube::resources::deployments(), ns, name);
    if (!r) {
        ManagerVersionProbe p;
        p.error = "Deployment " + ns + "/" + name + ": " + r.error().describe();
        co_return p;
    }
    co_return manager_version_from(r.value());
}

}  // namespace attune::cli
