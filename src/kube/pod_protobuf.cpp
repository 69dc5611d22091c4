#include <attune/kube/pod_protobuf.hpp>

#include <attune/core/policy/annotations.hpp>
#include <attune/core/util/timestamp.hpp>
#include <attune/kube/protobuf_reader.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <optional>
#include <string>

namespace attune::kube {
namespace json = boost::json;

namespace {

using field = protobuf_reader::field;
using wire = protobuf_reader::wire;

// Field numbers from k8s.io/api/core/v1 and apimachinery meta/v1
// generated.proto (they never change once released).
namespace pod_f { constexpr std::uint32_t metadata = 1, spec = 2, status = 3; }
namespace meta_f {
constexpr std::uint32_t name = 1, ns = 3, uid = 5, resource_version = 6, generation = 7, creation = 8, deletion = 9,
                        labels = 11, annotations = 12, owner_references = 13;
}
namespace owner_f { constexpr std::uint32_t kind = 1, name = 3, uid = 4, api_version = 5, controller = 6; }
namespace spec_f { constexpr std::uint32_t containers = 2, node_name = 10, init_containers = 20, resources = 40; }
namespace container_f { constexpr std::uint32_t name = 1, resources = 8, resize_policy = 23, restart_policy = 24; }
namespace requirements_f { constexpr std::uint32_t limits = 1, requests = 2, claims = 3; }
namespace status_f {
constexpr std::uint32_t phase = 1, conditions = 2, container_statuses = 8, qos_class = 9, init_container_statuses = 10,
                        resize = 14, observed_generation = 17, allocated_resources = 19, resources = 20;
}
namespace condition_f { constexpr std::uint32_t type = 1, status = 2, reason = 5, message = 6, observed_generation = 7; }
namespace cstatus_f {
constexpr std::uint32_t name = 1, state = 2, last_state = 3, ready = 4, restart_count = 5, allocated_resources = 10,
                        resources = 11;
}
namespace state_f { constexpr std::uint32_t waiting = 1, running = 2, terminated = 3; }
namespace terminated_f { constexpr std::uint32_t exit_code = 1, reason = 3, finished_at = 6; }

// A malformed message anywhere makes the whole object fail.
struct decoder {
    bool ok = true;

    // Visits every field of a message; fails on malformed wire data.
    template <class Fn>
    void each(std::string_view message, Fn&& fn) {
        protobuf_reader r(message);
        field f;
        while (ok && r.next(f)) fn(f);
        if (r.failed()) ok = false;
    }

    std::string_view bytes(const field& f) {
        if (f.type != wire::bytes) ok = false;
        return f.bytes;
    }
    std::int64_t integer(const field& f) {
        if (f.type != wire::varint) ok = false;
        return static_cast<std::int64_t>(f.value);
    }
    std::int32_t int32(const field& f) { return static_cast<std::int32_t>(integer(f)); }
    bool boolean(const field& f) { return integer(f) != 0; }

    // map<string, string> / map<string, Quantity> entries: key = 1, value = 2.
    std::pair<std::string_view, std::string_view> entry(const field& f) {
        std::pair<std::string_view, std::string_view> kv;
        each(bytes(f), [&](const field& e) {
            if (e.number == 1) kv.first = bytes(e);
            else if (e.number == 2) kv.second = bytes(e);
        });
        return kv;
    }
    // resource.Quantity: its canonical string (field 1), as JSON writes it.
    std::string_view quantity(std::string_view message) {
        std::string_view s;
        each(message, [&](const field& f) {
            if (f.number == 1) s = bytes(f);
        });
        return s;
    }
    void resource_entry(json::object& list, const field& f) {
        auto [name, q] = entry(f);
        list[name] = quantity(q);
    }

    // metav1.Time as JSON writes it: RFC 3339 in UTC, whole seconds; null when zero.
    json::value time(std::string_view message) {
        std::int64_t seconds = 0, nanos = 0;
        each(message, [&](const field& f) {
            if (f.number == 1) seconds = integer(f);
            else if (f.number == 2) nanos = integer(f);
        });
        if (seconds == 0 && nanos == 0) return nullptr;
        return json::string(core::format_timestamp(core::Timestamp(std::chrono::seconds(seconds))));
    }
    json::object owner_reference(std::string_view message) {
        std::string_view api_version, kind, name, uid;
        std::optional<bool> controller;
        each(message, [&](const field& f) {
            switch (f.number) {
                case owner_f::api_version: api_version = bytes(f); break;
                case owner_f::kind: kind = bytes(f); break;
                case owner_f::name: name = bytes(f); break;
                case owner_f::uid: uid = bytes(f); break;
                case owner_f::controller: controller = boolean(f); break;
                default: break;
            }
        });
        json::object o;
        o["apiVersion"] = api_version;
        o["kind"] = kind;
        o["name"] = name;
        o["uid"] = uid;
        if (controller) o["controller"] = *controller;
        return o;
    }

    json::object object_meta(std::string_view message) {
        std::string_view name, ns, uid, rv;
        std::int64_t generation = 0;
        json::value created = nullptr;
        std::optional<json::value> deleted;
        json::object labels, annotations;
        json::array owners;
        each(message, [&](const field& f) {
            switch (f.number) {
                case meta_f::name: name = bytes(f); break;
                case meta_f::ns: ns = bytes(f); break;
                case meta_f::uid: uid = bytes(f); break;
                case meta_f::resource_version: rv = bytes(f); break;
                case meta_f::generation: generation = integer(f); break;
                case meta_f::creation: created = time(bytes(f)); break;
                case meta_f::deletion: deleted = time(bytes(f)); break;
                case meta_f::labels: {
                    auto [k, v] = entry(f);
                    labels[k] = v;
                    break;
                }
                case meta_f::annotations: {
                    // Only Attune's own, as strip_pod keeps them.
                    auto [k, v] = entry(f);
                    if (k.find(core::kKeyPrefix) != std::string_view::npos) annotations[k] = v;
                    break;
                }
                case meta_f::owner_references: owners.push_back(owner_reference(bytes(f))); break;
                default: break;
            }
        });
        json::object md;
        if (!name.empty()) md["name"] = name;
        if (!ns.empty()) md["namespace"] = ns;
        if (!uid.empty()) md["uid"] = uid;
        if (!rv.empty()) md["resourceVersion"] = rv;
        if (generation != 0) md["generation"] = generation;
        if (!created.is_null()) md["creationTimestamp"] = std::move(created);
        if (deleted) md["deletionTimestamp"] = std::move(*deleted);
        if (!labels.empty()) md["labels"] = std::move(labels);
        if (!annotations.empty()) md["annotations"] = std::move(annotations);
        if (!owners.empty()) md["ownerReferences"] = std::move(owners);
        return md;
    }

    json::object requirements(std::string_view message) {
        json::object limits, requests;
        json::array claims;
        each(message, [&](const field& f) {
            switch (f.number) {
                case requirements_f::limits: resource_entry(limits, f); break;
                case requirements_f::requests: resource_entry(requests, f); break;
                case requirements_f::claims: {
                    std::string_view name, request;
                    each(bytes(f), [&](const field& c) {
                        if (c.number == 1) name = bytes(c);
                        else if (c.number == 2) request = bytes(c);
                    });
                    json::object c;
                    c["name"] = name;
                    if (!request.empty()) c["request"] = request;
                    claims.push_back(std::move(c));
                    break;
                }
                default: break;
            }
        });
        json::object o;
        if (!limits.empty()) o["limits"] = std::move(limits);
        if (!requests.empty()) o["requests"] = std::move(requests);
        if (!claims.empty()) o["claims"] = std::move(claims);
        return o;
    }

    json::object container(std::string_view message) {
        std::string_view name;
        json::object resources;
        json::array resize_policy;
        std::optional<std::string_view> restart_policy;
        each(message, [&](const field& f) {
            switch (f.number) {
                case container_f::name: name = bytes(f); break;
                case container_f::resources: resources = requirements(bytes(f)); break;
                case container_f::resize_policy: {
                    std::string_view resource, policy;
                    each(bytes(f), [&](const field& p) {
                        if (p.number == 1) resource = bytes(p);
                        else if (p.number == 2) policy = bytes(p);
                    });
                    json::object p;
                    p["resourceName"] = resource;
                    p["restartPolicy"] = policy;
                    resize_policy.push_back(std::move(p));
                    break;
                }
                case container_f::restart_policy: restart_policy = bytes(f); break;
                default: break;
            }
        });
        json::object c;
        c["name"] = name;
        c["resources"] = std::move(resources);  // a struct: JSON writes {} when empty
        if (!resize_policy.empty()) c["resizePolicy"] = std::move(resize_policy);
        if (restart_policy) c["restartPolicy"] = *restart_policy;
        return c;
    }

    json::object pod_spec(std::string_view message) {
        json::array init, containers;
        bool have_containers = false;
        std::string_view node;
        std::optional<json::object> resources;
        each(message, [&](const field& f) {
            switch (f.number) {
                case spec_f::containers:
                    have_containers = true;
                    containers.push_back(container(bytes(f)));
                    break;
                case spec_f::init_containers: init.push_back(container(bytes(f))); break;
                case spec_f::node_name: node = bytes(f); break;
                case spec_f::resources: resources = requirements(bytes(f)); break;
                default: break;
            }
        });
        json::object s;
        if (!init.empty()) s["initContainers"] = std::move(init);
        // Not omitempty: a nil slice is null in JSON.
        if (have_containers) s["containers"] = std::move(containers);
        else s["containers"] = nullptr;
        if (!node.empty()) s["nodeName"] = node;
        if (resources) s["resources"] = std::move(*resources);
        return s;
    }

    json::object condition(std::string_view message) {
        std::string_view type, status, reason, msg;
        std::int64_t observed = 0;
        each(message, [&](const field& f) {
            switch (f.number) {
                case condition_f::type: type = bytes(f); break;
                case condition_f::status: status = bytes(f); break;
                case condition_f::reason: reason = bytes(f); break;
                case condition_f::message: msg = bytes(f); break;
                case condition_f::observed_generation: observed = integer(f); break;
                default: break;
            }
        });
        json::object c;
        c["type"] = type;
        if (observed != 0) c["observedGeneration"] = observed;
        c["status"] = status;
        if (!reason.empty()) c["reason"] = reason;
        if (!msg.empty()) c["message"] = msg;
        return c;
    }

    // A ContainerState reduced as strip_container_state does; nullopt when
    // nothing is left (JSON's {} is then erased).
    std::optional<json::object> container_state(std::string_view message) {
        json::object st;
        each(message, [&](const field& f) {
            switch (f.number) {
                case state_f::waiting: {
                    std::string_view reason;
                    each(bytes(f), [&](const field& w) {
                        if (w.number == 1) reason = bytes(w);
                    });
                    json::object w;
                    if (!reason.empty()) w["reason"] = reason;
                    st["waiting"] = std::move(w);
                    break;
                }
                case state_f::running: {
                    json::value started = nullptr;
                    each(bytes(f), [&](const field& r) {
                        if (r.number == 1) started = time(bytes(r));
                    });
                    json::object r;
                    r["startedAt"] = std::move(started);
                    st["running"] = std::move(r);
                    break;
                }
                case state_f::terminated: {
                    std::int32_t exit_code = 0;
                    std::string_view reason;
                    json::value finished = nullptr;
                    each(bytes(f), [&](const field& t) {
                        switch (t.number) {
                            case terminated_f::exit_code: exit_code = int32(t); break;
                            case terminated_f::reason: reason = bytes(t); break;
                            case terminated_f::finished_at: finished = time(bytes(t)); break;
                            default: break;
                        }
                    });
                    json::object t;
                    t["exitCode"] = exit_code;
                    if (!reason.empty()) t["reason"] = reason;
                    t["finishedAt"] = std::move(finished);
                    st["terminated"] = std::move(t);
                    break;
                }
                default: break;
            }
        });
        if (st.empty()) return std::nullopt;
        return st;
    }

    json::object container_status(std::string_view message) {
        std::string_view name;
        std::optional<json::object> state, last_state, resources;
        bool ready = false;
        std::int32_t restarts = 0;
        json::object allocated;
        each(message, [&](const field& f) {
            switch (f.number) {
                case cstatus_f::name: name = bytes(f); break;
                case cstatus_f::state: state = container_state(bytes(f)); break;
                case cstatus_f::last_state: last_state = container_state(bytes(f)); break;
                case cstatus_f::ready: ready = boolean(f); break;
                case cstatus_f::restart_count: restarts = int32(f); break;
                case cstatus_f::allocated_resources: resource_entry(allocated, f); break;
                case cstatus_f::resources: resources = requirements(bytes(f)); break;
                default: break;
            }
        });
        json::object c;
        c["name"] = name;
        if (state) c["state"] = std::move(*state);
        if (last_state) c["lastState"] = std::move(*last_state);
        c["ready"] = ready;
        c["restartCount"] = restarts;
        if (!allocated.empty()) c["allocatedResources"] = std::move(allocated);
        if (resources) c["resources"] = std::move(*resources);
        return c;
    }

    json::object pod_status(std::string_view message) {
        std::int64_t observed = 0;
        std::string_view phase, qos, resize;
        json::array conditions, init_statuses, statuses;
        bool have_conditions = false;
        json::object allocated;
        std::optional<json::object> resources;
        each(message, [&](const field& f) {
            switch (f.number) {
                case status_f::observed_generation: observed = integer(f); break;
                case status_f::phase: phase = bytes(f); break;
                case status_f::conditions: {
                    // Only the resize conditions and readiness, as strip_pod keeps them
                    // (the array stays, possibly empty, when the pod had any).
                    have_conditions = true;
                    auto c = condition(bytes(f));
                    const auto type = c["type"].get_string();
                    if (type == "PodResizePending" || type == "PodResizeInProgress" || type == "Ready")
                        conditions.push_back(std::move(c));
                    break;
                }
                case status_f::init_container_statuses: init_statuses.push_back(container_status(bytes(f))); break;
                case status_f::container_statuses: statuses.push_back(container_status(bytes(f))); break;
                case status_f::qos_class: qos = bytes(f); break;
                case status_f::resize: resize = bytes(f); break;
                case status_f::allocated_resources: resource_entry(allocated, f); break;
                case status_f::resources: resources = requirements(bytes(f)); break;
                default: break;
            }
        });
        json::object s;
        if (observed != 0) s["observedGeneration"] = observed;
        if (!phase.empty()) s["phase"] = phase;
        if (have_conditions) s["conditions"] = std::move(conditions);
        if (!init_statuses.empty()) s["initContainerStatuses"] = std::move(init_statuses);
        if (!statuses.empty()) s["containerStatuses"] = std::move(statuses);
        if (!qos.empty()) s["qosClass"] = qos;
        if (!resize.empty()) s["resize"] = resize;
        if (!allocated.empty()) s["allocatedResources"] = std::move(allocated);
        if (resources) s["resources"] = std::move(*resources);
        return s;
    }

    json::object pod(std::string_view message) {
        json::object md, status;
        json::object spec = pod_spec({});  // an absent spec is an empty one: containers null, as JSON writes it
        each(message, [&](const field& f) {
            switch (f.number) {
                case pod_f::metadata: md = object_meta(bytes(f)); break;
                case pod_f::spec: spec = pod_spec(bytes(f)); break;
                case pod_f::status: status = pod_status(bytes(f)); break;
                default: break;
            }
        });
        // metadata, spec and status are structs: JSON always writes them.
        json::object p;
        p["metadata"] = std::move(md);
        p["spec"] = std::move(spec);
        p["status"] = std::move(status);
        return p;
    }
};

core::error malformed(std::string_view what) {
    return core::make_error("protobuf_decode", "malformed protobuf " + std::string(what));
}

// "k8s\0" + runtime.Unknown{typeMeta, raw}: the raw bytes and their kind.
struct protobuf_envelope {
    std::string_view kind;
    std::string_view raw;
};

core::result<protobuf_envelope> open_protobuf_envelope(std::string_view body) {
    if (!is_protobuf_body(body)) return core::make_error("protobuf_decode", "not a protobuf answer (no k8s magic)");
    decoder d;
    protobuf_envelope env;
    std::string_view encoding;
    d.each(body.substr(kProtobufMagic.size()), [&](const field& f) {
        if (f.number == 1) {
            d.each(d.bytes(f), [&](const field& t) {
                if (t.number == 2) env.kind = d.bytes(t);
            });
        } else if (f.number == 2) {
            env.raw = d.bytes(f);
        } else if (f.number == 3) {
            encoding = d.bytes(f);
        }
    });
    if (!d.ok) return malformed("envelope");
    if (!encoding.empty())
        return core::make_error("protobuf_decode", "unsupported protobuf content encoding " + std::string(encoding));
    return env;
}

}  // namespace

core::result<json::value> pod_from_protobuf(std::string_view message) {
    decoder d;
    auto p = d.pod(message);
    if (!d.ok) return malformed("Pod");
    return json::value(std::move(p));
}

core::result<json::value> status_from_protobuf(std::string_view body) {
    auto env = open_protobuf_envelope(body);
    if (!env) return env.error();
    if (env.value().kind != "Status")
        return core::make_error("protobuf_decode", "expected a Status, got " + std::string(env.value().kind));
    // meta/v1 Status: status = 2, message = 3, reason = 4, code = 6.
    decoder d;
    json::object s;
    s["kind"] = "Status";
    d.each(env.value().raw, [&](const field& f) {
        switch (f.number) {
            case 2: s["status"] = d.bytes(f); break;
            case 3: s["message"] = d.bytes(f); break;
            case 4: s["reason"] = d.bytes(f); break;
            case 6: s["code"] = d.integer(f); break;
            default: break;
        }
    });
    if (!d.ok) return malformed("Status");
    return json::value(std::move(s));
}

}  // namespace attune::kube
