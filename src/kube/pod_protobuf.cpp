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

using Field = ProtobufReader::Field;
using Wire = ProtobufReader::Wire;

// Field numbers from k8s.io/api/core/v1 and apimachinery meta/v1
// generated.proto (they never change once released).
namespace pod_f {
constexpr std::uint32_t kMetadata = 1, kSpec = 2, kStatus = 3;
}
namespace meta_f {
constexpr std::uint32_t kName = 1, kNs = 3, kUid = 5, kResourceVersion = 6, kGeneration = 7, kCreation = 8,
                        kDeletion = 9, kLabels = 11, kAnnotations = 12, kOwnerReferences = 13;
}
namespace owner_f {
constexpr std::uint32_t kKind = 1, kName = 3, kUid = 4, kApiVersion = 5, kController = 6;
}
namespace spec_f {
constexpr std::uint32_t kContainers = 2, kNodeName = 10, kInitContainers = 20, kResources = 40;
}
namespace container_f {
constexpr std::uint32_t kName = 1, kResources = 8, kResizePolicy = 23, kRestartPolicy = 24;
}
namespace requirements_f {
constexpr std::uint32_t kLimits = 1, kRequests = 2, kClaims = 3;
}
namespace status_f {
constexpr std::uint32_t kPhase = 1, kConditions = 2, kContainerStatuses = 8, kQosClass = 9, kInitContainerStatuses = 10,
                        kResize = 14, kObservedGeneration = 17, kAllocatedResources = 19, kResources = 20;
}
namespace condition_f {
constexpr std::uint32_t kType = 1, kStatus = 2, kReason = 5, kMessage = 6, kObservedGeneration = 7;
}
namespace cstatus_f {
constexpr std::uint32_t kName = 1, kState = 2, kLastState = 3, kReady = 4, kRestartCount = 5, kAllocatedResources = 10,
                        kResources = 11;
}
namespace state_f {
constexpr std::uint32_t kWaiting = 1, kRunning = 2, kTerminated = 3;
}
namespace terminated_f {
constexpr std::uint32_t kExitCode = 1, kReason = 3, kFinishedAt = 6;
}

// A malformed message anywhere makes the whole object fail.
struct Decoder {
    bool ok = true;

    // Visits every field of a message; fails on malformed wire data.
    template <class Fn>
    void each(std::string_view message, Fn&& fn) {
        ProtobufReader r(message);
        Field f;
        while (ok && r.next(f)) fn(f);
        if (r.failed()) ok = false;
    }

    std::string_view bytes(const Field& f) {
        if (f.type != Wire::Bytes) ok = false;
        return f.bytes;
    }
    std::int64_t integer(const Field& f) {
        if (f.type != Wire::Varint) ok = false;
        return static_cast<std::int64_t>(f.value);
    }
    std::int32_t int32(const Field& f) { return static_cast<std::int32_t>(integer(f)); }
    bool boolean(const Field& f) { return integer(f) != 0; }

    // map<string, string> / map<string, Quantity> entries: key = 1, value = 2.
    std::pair<std::string_view, std::string_view> entry(const Field& f) {
        std::pair<std::string_view, std::string_view> kv;
        each(bytes(f), [&](const Field& e) {
            if (e.number == 1) kv.first = bytes(e);
            else if (e.number == 2) kv.second = bytes(e);
        });
        return kv;
    }
    // resource.Quantity: its canonical string (field 1), as JSON writes it.
    std::string_view quantity(std::string_view message) {
        std::string_view s;
        each(message, [&](const Field& f) {
            if (f.number == 1) s = bytes(f);
        });
        return s;
    }
    void resource_entry(json::object& list, const Field& f) {
        auto [name, q] = entry(f);
        list[name] = quantity(q);
    }

    // metav1.Time as JSON writes it: RFC 3339 in UTC, whole seconds; null when zero.
    json::value time(std::string_view message) {
        std::int64_t seconds = 0, nanos = 0;
        each(message, [&](const Field& f) {
            if (f.number == 1) seconds = integer(f);
            else if (f.number == 2) nanos = integer(f);
        });
        if (seconds == 0 && nanos == 0) return nullptr;
        return json::string(core::format_timestamp(core::Timestamp(std::chrono::seconds(seconds))));
    }
    json::object owner_reference(std::string_view message) {
        std::string_view api_version, kind, name, uid;
        std::optional<bool> controller;
        each(message, [&](const Field& f) {
            switch (f.number) {
                case owner_f::kApiVersion: api_version = bytes(f); break;
                case owner_f::kKind: kind = bytes(f); break;
                case owner_f::kName: name = bytes(f); break;
                case owner_f::kUid: uid = bytes(f); break;
                case owner_f::kController: controller = boolean(f); break;
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
        each(message, [&](const Field& f) {
            switch (f.number) {
                case meta_f::kName: name = bytes(f); break;
                case meta_f::kNs: ns = bytes(f); break;
                case meta_f::kUid: uid = bytes(f); break;
                case meta_f::kResourceVersion: rv = bytes(f); break;
                case meta_f::kGeneration: generation = integer(f); break;
                case meta_f::kCreation: created = time(bytes(f)); break;
                case meta_f::kDeletion: deleted = time(bytes(f)); break;
                case meta_f::kLabels: {
                    auto [k, v] = entry(f);
                    labels[k] = v;
                    break;
                }
                case meta_f::kAnnotations: {
                    // Only Attune's own, as strip_pod keeps them.
                    auto [k, v] = entry(f);
                    if (k.find(core::kKeyPrefix) != std::string_view::npos) annotations[k] = v;
                    break;
                }
                case meta_f::kOwnerReferences: owners.push_back(owner_reference(bytes(f))); break;
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
        each(message, [&](const Field& f) {
            switch (f.number) {
                case requirements_f::kLimits: resource_entry(limits, f); break;
                case requirements_f::kRequests: resource_entry(requests, f); break;
                case requirements_f::kClaims: {
                    std::string_view name, request;
                    each(bytes(f), [&](const Field& c) {
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
        each(message, [&](const Field& f) {
            switch (f.number) {
                case container_f::kName: name = bytes(f); break;
                case container_f::kResources: resources = requirements(bytes(f)); break;
                case container_f::kResizePolicy: {
                    std::string_view resource, policy;
                    each(bytes(f), [&](const Field& p) {
                        if (p.number == 1) resource = bytes(p);
                        else if (p.number == 2) policy = bytes(p);
                    });
                    json::object p;
                    p["resourceName"] = resource;
                    p["restartPolicy"] = policy;
                    resize_policy.push_back(std::move(p));
                    break;
                }
                case container_f::kRestartPolicy: restart_policy = bytes(f); break;
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
        each(message, [&](const Field& f) {
            switch (f.number) {
                case spec_f::kContainers:
                    have_containers = true;
                    containers.push_back(container(bytes(f)));
                    break;
                case spec_f::kInitContainers: init.push_back(container(bytes(f))); break;
                case spec_f::kNodeName: node = bytes(f); break;
                case spec_f::kResources: resources = requirements(bytes(f)); break;
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
        each(message, [&](const Field& f) {
            switch (f.number) {
                case condition_f::kType: type = bytes(f); break;
                case condition_f::kStatus: status = bytes(f); break;
                case condition_f::kReason: reason = bytes(f); break;
                case condition_f::kMessage: msg = bytes(f); break;
                case condition_f::kObservedGeneration: observed = integer(f); break;
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
        each(message, [&](const Field& f) {
            switch (f.number) {
                case state_f::kWaiting: {
                    std::string_view reason;
                    each(bytes(f), [&](const Field& w) {
                        if (w.number == 1) reason = bytes(w);
                    });
                    json::object w;
                    if (!reason.empty()) w["reason"] = reason;
                    st["waiting"] = std::move(w);
                    break;
                }
                case state_f::kRunning: {
                    json::value started = nullptr;
                    each(bytes(f), [&](const Field& r) {
                        if (r.number == 1) started = time(bytes(r));
                    });
                    json::object r;
                    r["startedAt"] = std::move(started);
                    st["running"] = std::move(r);
                    break;
                }
                case state_f::kTerminated: {
                    std::int32_t exit_code = 0;
                    std::string_view reason;
                    json::value finished = nullptr;
                    each(bytes(f), [&](const Field& t) {
                        switch (t.number) {
                            case terminated_f::kExitCode: exit_code = int32(t); break;
                            case terminated_f::kReason: reason = bytes(t); break;
                            case terminated_f::kFinishedAt: finished = time(bytes(t)); break;
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
        each(message, [&](const Field& f) {
            switch (f.number) {
                case cstatus_f::kName: name = bytes(f); break;
                case cstatus_f::kState: state = container_state(bytes(f)); break;
                case cstatus_f::kLastState: last_state = container_state(bytes(f)); break;
                case cstatus_f::kReady: ready = boolean(f); break;
                case cstatus_f::kRestartCount: restarts = int32(f); break;
                case cstatus_f::kAllocatedResources: resource_entry(allocated, f); break;
                case cstatus_f::kResources: resources = requirements(bytes(f)); break;
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
        each(message, [&](const Field& f) {
            switch (f.number) {
                case status_f::kObservedGeneration: observed = integer(f); break;
                case status_f::kPhase: phase = bytes(f); break;
                case status_f::kConditions: {
                    // Only the resize conditions and readiness, as strip_pod keeps them
                    // (the array stays, possibly empty, when the pod had any).
                    have_conditions = true;
                    auto c = condition(bytes(f));
                    const auto type = c["type"].get_string();
                    if (type == "PodResizePending" || type == "PodResizeInProgress" || type == "Ready")
                        conditions.push_back(std::move(c));
                    break;
                }
                case status_f::kInitContainerStatuses: init_statuses.push_back(container_status(bytes(f))); break;
                case status_f::kContainerStatuses: statuses.push_back(container_status(bytes(f))); break;
                case status_f::kQosClass: qos = bytes(f); break;
                case status_f::kResize: resize = bytes(f); break;
                case status_f::kAllocatedResources: resource_entry(allocated, f); break;
                case status_f::kResources: resources = requirements(bytes(f)); break;
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
        each(message, [&](const Field& f) {
            switch (f.number) {
                case pod_f::kMetadata: md = object_meta(bytes(f)); break;
                case pod_f::kSpec: spec = pod_spec(bytes(f)); break;
                case pod_f::kStatus: status = pod_status(bytes(f)); break;
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

core::Error malformed(std::string_view what) {
    return core::make_error("protobuf_decode", "malformed protobuf " + std::string(what));
}

// "k8s\0" + runtime.Unknown{typeMeta, raw}: the raw bytes and their kind.
struct ProtobufEnvelope {
    std::string_view kind;
    std::string_view raw;
};

core::Result<ProtobufEnvelope> open_protobuf_envelope(std::string_view body) {
    if (!is_protobuf_body(body)) return core::make_error("protobuf_decode", "not a protobuf answer (no k8s magic)");
    Decoder d;
    ProtobufEnvelope env;
    std::string_view encoding;
    d.each(body.substr(kProtobufMagic.size()), [&](const Field& f) {
        if (f.number == 1) {
            d.each(d.bytes(f), [&](const Field& t) {
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

core::Result<json::value> pod_from_protobuf(std::string_view message) {
    Decoder d;
    auto p = d.pod(message);
    if (!d.ok) return malformed("Pod");
    return json::value(std::move(p));
}

core::Result<json::value> status_from_protobuf(std::string_view body) {
    auto env = open_protobuf_envelope(body);
    if (!env) return env.error();
    if (env.value().kind != "Status")
        return core::make_error("protobuf_decode", "expected a Status, got " + std::string(env.value().kind));
    // meta/v1 Status: status = 2, message = 3, reason = 4, code = 6.
    Decoder d;
    json::object s;
    s["kind"] = "Status";
    d.each(env.value().raw, [&](const Field& f) {
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
