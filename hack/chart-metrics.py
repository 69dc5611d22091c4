#!/usr/bin/env python3
"""Every metric the chart's Grafana dashboard and alert rules query is one the
manager exports.

    hack/chart-metrics.py                   names from the manager's sources
    hack/chart-metrics.py --exported FILE   names from a real /metrics scrape
    hack/chart-metrics.py --exported FILE --partial
                                            the scrape's names, and for the families it
                                            does not print yet the sources' (e2e 16)
    hack/chart-metrics.py --extra-query Q   also check PromQL Q (to see the check fail)

The sources' names are the families registered with prometheus-cpp's
Build*().Name("...") and the executor's counter/gauge/histogram(r, "...")
helpers in src/ and webhook/. A histogram family F is queried as F_bucket,
F_sum or F_count. Metrics that do not come from the manager are named here.
prometheus-cpp prints a family only once it has a series, so a fresh
manager's scrape lacks the labelled families nothing has touched yet: with
--partial those are looked up in the sources, and every attune_ family the
scrape does print must be in the sources too (so the scan misses none).
"""
import argparse
import json
import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHART = ROOT / "deploy" / "helm" / "attune"
# Not the manager's: Prometheus's own scrape health, and the kubelet's
# (cAdvisor) container memory, which the dashboard's Memory panel shows.
EXTERNAL = {"up", "container_memory_working_set_bytes"}
PROMQL_WORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset", "and", "or",
                "unless", "le", "inf", "nan"}


def source_families():
    fams = {}
    pat = re.compile(r'Build(Counter|Gauge|Histogram|Summary)\(\)\s*\.Name\("([a-z_:][a-z0-9_:]*)"\)'
                     r'|\b(counter|gauge|histogram)\(r,\s*"([a-z_:][a-z0-9_:]*)"')
    for base in ("src", "webhook"):
        for f in (ROOT / base).rglob("*.cpp"):
            for m in pat.finditer(f.read_text(encoding="utf-8")):
                kind = (m.group(1) or m.group(3)).lower()
                fams[m.group(2) or m.group(4)] = kind
    return fams


def exported_families(path):
    """# TYPE lines of a /metrics scrape."""
    fams = {}
    for line in pathlib.Path(path).read_text(encoding="utf-8").splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(None, 3)
            fams[name] = kind
    return fams


def series_names(fams):
    names = set()
    for name, kind in fams.items():
        names.add(name)
        if kind in ("histogram", "summary"):
            names |= {name + "_bucket", name + "_sum", name + "_count"}
    return names


def metrics_in(expr):
    """Metric names a PromQL expression selects: identifiers followed by a
    selector's { or [ or standing alone, minus functions, keywords and the
    label names inside by (...) / {...}."""
    e = re.sub(r'"(\\.|[^"\\])*"', '""', expr)          # string literals
    e = re.sub(r"\{[^}]*\}", "{}", e)                    # label matchers
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", e)
    e = re.sub(r"\[[^\]]*\]", "[]", e)                   # range selectors
    found = set()
    for m in re.finditer(r"[a-zA-Z_:][a-zA-Z0-9_:]*", e):
        word, rest = m.group(0), e[m.end():].lstrip()
        if rest.startswith("("):
            continue                                     # a function call
        if word.lower() in PROMQL_WORDS or re.fullmatch(r"[0-9.e]+", word):
            continue
        if m.start() > 0 and e[m.start() - 1] == "$":
            continue                                     # a Grafana variable
        found.add(word)
    return found


def queries():
    out = []
    dash = json.loads((CHART / "files" / "dashboard.json").read_text(encoding="utf-8"))
    for p in dash["panels"]:
        for t in p.get("targets", []):
            out.append((f"dashboard panel '{p['title']}'", t["expr"]))
    rules = yaml.safe_load((CHART / "files" / "alerts.rules.yml").read_text(encoding="utf-8"))
    for g in rules["groups"]:
        for r in g["rules"]:
            out.append((f"alert {r.get('alert') or r.get('record')}", r["expr"]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exported")
    ap.add_argument("--partial", action="store_true")
    ap.add_argument("--extra-query", action="append", default=[])
    a = ap.parse_args()
    src = source_families()
    if len(src) < 20:
        print(f"chart-metrics: only {len(src)} metric families in the sources; the scan is broken", file=sys.stderr)
        return 2
    fams = src
    if a.exported:
        fams = exported_families(a.exported)
        if not any(n.startswith("attune_") for n in fams):
            print(f"chart-metrics: {a.exported} has no attune_ metric family", file=sys.stderr)
            return 2
        if a.partial:
            missed = sorted(n for n in fams if n.startswith("attune_") and n not in src)
            if missed:
                print("chart-metrics: the scrape has families the source scan misses: " + " ".join(missed), file=sys.stderr)
                return 1
            fams = {**src, **fams}
    known = series_names(fams) | EXTERNAL
    scraped = series_names(exported_families(a.exported)) if a.exported else set()
    qs = queries() + [("--extra-query", q) for q in a.extra_query]
    bad, used = [], set()
    for where, q in qs:
        names = metrics_in(q)
        if not names:
            bad.append(f"{where}: no metric found in {q!r}")
        for n in names:
            used.add(n)
            if n not in known:
                bad.append(f"{where}: {n} is not a metric the manager exports")
    for b in bad:
        print("chart-metrics: " + b, file=sys.stderr)
    if bad:
        return 1
    where = f"a /metrics scrape ({a.exported})" if a.exported else "the registered families in src/ and webhook/"
    if a.partial:
        where = (f"a /metrics scrape ({len(used & scraped)} of them) or, not printed yet, the registered families")
    print(f"chart-metrics: {len(qs)} queries, {len(used)} metric names, all in {where}: {' '.join(sorted(used))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
