#!/usr/bin/env python3
"""Harness for `make bench-scale` (not product code): prints the objects of the
scale benchmark as one kubectl List per namespace.

    workload.py namespaces NS_COUNT                 -> Namespaces
    workload.py deployments NS DEPLOYS REPLICAS     -> Deployments of one namespace
    workload.py policy NS [auto|observe-vpa]        -> the namespace's AttunePolicy

Pods are shaped like real Deployment pods: several labels and annotations,
about 15 environment variables, config/secret/emptyDir volumes, probes, and a
logging sidecar in every third Deployment. Requests are small so that 100 pods
fit a simulated node.
"""
import json
import sys


def policy(ns, kind="auto"):
    if kind == "observe-vpa":
        # Observe with a VPA source: the setting both this manager and the Go
        # operator support, where neither has anything to resize.
        source, mode = {"vpa": {"name": "bench"}}, "Observe"
    elif kind == "auto":
        # Auto with a Manual source that restates the live sizes (omitted keys
        # are inherited), so the executor plans every pod each cycle but has
        # nothing to send: the bench measures the manager with the executor
        # running, not 10,000 resizes.
        source, mode = {"manual": {"containers": [{"name": "app", "resources": {}}]}}, "Auto"
    else:
        raise SystemExit(f"workload.py: unknown policy kind {kind!r} (auto, observe-vpa)")
    return {
        "apiVersion": "attune.io/v1alpha1",
        "kind": "AttunePolicy",
        "metadata": {"name": "bench", "namespace": ns},
        "spec": {
            "targetRef": {"kind": "Deployment", "selector": {"matchLabels": {"attune.io/bench": "true"}}},
            "metricsSource": source,
            "cpu": {},
            "memory": {},
            "updateStrategy": {"type": mode},
        },
    }


def container(name, image, cpu, mem, env_count, port):
    env = [{"name": f"APP_SETTING_{i:02d}", "value": f"value-of-setting-{i}-for-{name}"} for i in range(env_count)]
    env.append({"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}})
    env.append({"name": "POD_NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}})
    c = {
        "name": name,
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "args": ["--config=/etc/app/config.yaml", "--log-format=json"],
        "env": env,
        "resources": {"requests": {"cpu": cpu, "memory": mem}, "limits": {"memory": mem}},
        "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"},
                         {"resourceName": "memory", "restartPolicy": "NotRequired"}],
        "volumeMounts": [{"name": "config", "mountPath": "/etc/app"},
                         {"name": "tmp", "mountPath": "/tmp"}],
    }
    if port:
        c["ports"] = [{"containerPort": port, "name": "http"}]
        c["readinessProbe"] = {"httpGet": {"path": "/readyz", "port": port}, "periodSeconds": 5}
        c["livenessProbe"] = {"httpGet": {"path": "/healthz", "port": port}, "periodSeconds": 10}
    return c


def deployment(ns, i, replicas):
    name = f"svc-{i:04d}"
    labels = {"app": name, "team": f"team-{i % 7}", "tier": ["web", "api", "worker"][i % 3]}
    containers = [container("app", f"registry.bench.local/{name}:v1.{i % 13}.0", "20m", "64Mi", 15, 8080)]
    if i % 3 == 0:
        containers.append(container("log-shipper", "registry.bench.local/log-shipper:v3.2.1", "5m", "32Mi", 6, 0))
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": ns,
                     "labels": dict(labels, **{"attune.io/bench": "true"}),
                     "annotations": {"owner": f"team-{i % 7}@bench.local", "description": "scale benchmark workload"}},
        "spec": {
            "replicas": replicas,
            "revisionHistoryLimit": 2,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {
                    "labels": dict(labels, version=f"v1.{i % 13}.0", **{"attune.io/bench-pod": "true"}),
                    "annotations": {
                        "prometheus.io/scrape": "true",
                        "prometheus.io/port": "8080",
                        "checksum/config": f"{i * 2654435761 % (1 << 64):016x}{i:048x}",
                        "sim.attune.io/load": '{"*": {"cpu": "5m", "memory": "24Mi"}}',
                    },
                },
                "spec": {
                    "containers": containers,
                    "volumes": [
                        {"name": "config", "configMap": {"name": f"{name}-config", "optional": True}},
                        {"name": "tmp", "emptyDir": {"sizeLimit": "64Mi"}},
                    ],
                    "terminationGracePeriodSeconds": 5,
                    "securityContext": {"runAsNonRoot": True, "runAsUser": 10001},
                    "tolerations": [{"key": "bench.local/dedicated", "operator": "Exists", "effect": "NoSchedule"}],
                },
            },
        },
    }


def main(argv):
    what = argv[1]
    if what == "namespaces":
        items = [{"apiVersion": "v1", "kind": "Namespace",
                  "metadata": {"name": f"bench-{n:02d}", "labels": {"attune.io/bench": "true"}}}
                 for n in range(int(argv[2]))]
    elif what == "deployments":
        ns, count, replicas = argv[2], int(argv[3]), int(argv[4])
        first = int(argv[5]) if len(argv) > 5 else 0
        items = [deployment(ns, first + i, replicas) for i in range(count)]
    elif what == "policy":
        items = [policy(argv[2], argv[3] if len(argv) > 3 else "auto")]
    else:
        sys.exit(f"workload.py: unknown kind {what!r}")
    json.dump({"apiVersion": "v1", "kind": "List", "items": items}, sys.stdout)


if __name__ == "__main__":
    main(sys.argv)
