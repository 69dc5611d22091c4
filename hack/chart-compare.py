#!/usr/bin/env python3
"""A Helm render and a kustomize render are one install:

    hack/chart-compare.py HELM.yaml KUSTOMIZE.yaml [--chart-only KIND/NS/NAME]...
        [--base-only KIND/NS/NAME]... [--chart-arg ARG]...

compares them object by object (kind, namespace, name) and exits 1 with a
diff of each object that differs. The only differences allowed are Helm's
own labels (below) and what the caller names: whole objects only one side
renders (NS empty for cluster-scoped ones), and manager arguments only the
chart passes (--chart-arg, removed from the chart's Deployment).
"""
import argparse
import difflib
import sys

import yaml

# Labels Helm charts carry and a kustomize base has no value for (the release,
# the chart version, the tool). Stripped wherever labels appear: metadata,
# selectors and pod templates.
HELM_ONLY_LABELS = {
    "helm.sh/chart",
    "app.kubernetes.io/managed-by",
    "app.kubernetes.io/instance",
    "app.kubernetes.io/version",
}


def strip_labels(d):
    if isinstance(d, dict):
        for k in HELM_ONLY_LABELS:
            d.pop(k, None)
    return d


def normalize(o):
    md = o.get("metadata", {})
    if "labels" in md:
        strip_labels(md["labels"])
        if not md["labels"]:
            del md["labels"]
    spec = o.get("spec")
    if isinstance(spec, dict):
        sel = spec.get("selector")
        if isinstance(sel, dict):
            strip_labels(sel.get("matchLabels", sel if o["kind"] == "Service" else None))
        tmd = spec.get("template", {}).get("metadata") if isinstance(spec.get("template"), dict) else None
        if tmd and "labels" in tmd:
            strip_labels(tmd["labels"])
    return o


def load(path):
    objs = {}
    with open(path, encoding="utf-8") as f:
        for doc in yaml.safe_load_all(f):
            if not doc:
                continue
            md = doc.get("metadata", {})
            key = (doc["kind"], md.get("namespace", ""), md["name"])
            if key in objs:
                sys.exit(f"chart-compare: {path}: {key} twice")
            objs[key] = normalize(doc)
    return objs


def key_of(text):
    kind, ns, name = text.split("/")
    return (kind, ns, name)


def drop_args(objs, args):
    for (kind, _, _), o in objs.items():
        if kind == "Deployment":
            for c in o["spec"]["template"]["spec"]["containers"]:
                c["args"] = [a for a in c.get("args", []) if a not in args]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("helm")
    ap.add_argument("kustomize")
    ap.add_argument("--chart-only", action="append", default=[], type=key_of)
    ap.add_argument("--base-only", action="append", default=[], type=key_of)
    ap.add_argument("--chart-arg", action="append", default=[])
    a = ap.parse_args()
    ONLY_HELM, ONLY_KUSTOMIZE = set(a.chart_only), set(a.base_only)
    helm, kust = load(a.helm), load(a.kustomize)
    drop_args(helm, set(a.chart_arg))
    bad = 0
    for key in sorted(set(helm) | set(kust)):
        name = "/".join(k for k in key if k)
        if key not in kust:
            if key not in ONLY_HELM:
                print(f"chart-compare: only the chart renders {name}")
                bad += 1
            continue
        if key not in helm:
            if key not in ONLY_KUSTOMIZE:
                print(f"chart-compare: only the kustomize base renders {name}")
                bad += 1
            continue
        if helm[key] != kust[key]:
            bad += 1
            a = yaml.safe_dump(kust[key], sort_keys=True).splitlines()
            b = yaml.safe_dump(helm[key], sort_keys=True).splitlines()
            print(f"chart-compare: {name} differs (- kustomize, + chart):")
            print("\n".join(difflib.unified_diff(a, b, "kustomize", "helm", lineterm="", n=2)))
    for key in ONLY_HELM - set(helm):
        print(f"chart-compare: the chart no longer renders {'/'.join(key)}; update ONLY_HELM")
        bad += 1
    for key in ONLY_KUSTOMIZE - set(kust):
        print(f"chart-compare: the base no longer renders {'/'.join(key)}; update ONLY_KUSTOMIZE")
        bad += 1
    if bad:
        return 1
    only = lambda ks: ", ".join("/".join(k for k in key if k) for key in sorted(ks)) or "none"  # noqa: E731
    print(f"chart-compare: {len(helm)} chart objects, {len(kust)} kustomize objects: the same install "
          f"(allowed: labels {', '.join(sorted(HELM_ONLY_LABELS))}; chart only: {only(ONLY_HELM)}; "
          f"kustomize only: {only(ONLY_KUSTOMIZE)}; chart-only args: {' '.join(a.chart_arg) or 'none'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
