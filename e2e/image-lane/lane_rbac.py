"""Filters the rendered manifests (stdin) down to what grants the manager its
identity, adjusted to the manager's flags (argv); prints a YAML stream.
    lane_rbac.py [MANAGER ARGS...]                  the objects to apply
    lane_rbac.py --create-only [MANAGER ARGS...]    the objects to create once
    lane_rbac.py --removed FULL [MANAGER ARGS...]   the objects to delete: in
        FULL (the render without ATTUNE_LANE_COMPONENTS), not in stdin's"""
import os
import sys
import yaml

KEEP = {"Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"}
# Shipped by the manifests for the manager to fill, never to be reset: created
# when missing (lane-rbac.sh --create-only), never applied over.
CREATE_ONLY = {("Secret", "attune-webhook-tls")}
HOME = "attune-system"


def flag_values(args, name):
    out = []
    for i, a in enumerate(args):
        if a == "--" + name and i + 1 < len(args):
            out.append(args[i + 1])
        elif a.startswith("--" + name + "="):
            out.append(a.split("=", 1)[1])
    return out


def drop_resources(docs, dropped):
    """ATTUNE_LANE_RBAC_DROP=res[,res]: the negative controls take these
    resources (e.g. pods/resize) out of every rule of every role that grants
    them: the rules are spread over several roles (attune-manager and a role
    per optional feature). A role left with no rule keeps `rules: []`, so that
    applying it takes back what an earlier start granted."""
    for d in docs:
        rules = []
        for rule in d.get("rules", []):
            kept = [r for r in rule.get("resources", []) if r not in dropped]
            if rule.get("resources") and not kept:
                continue
            if "resources" in rule:
                rule["resources"] = kept
            rules.append(rule)
        if "rules" in d:
            d["rules"] = rules


def webhook_secrets(rendered, args):
    """The webhook's Secret, named and placed as the manager's flags say."""
    if "--webhook" not in args and "--webhook=true" not in args:
        return []
    out = []
    names = flag_values(args, "webhook-secret-name") or ["attune-webhook-tls"]
    namespaces = flag_values(args, "webhook-namespace") or [HOME]
    for d in rendered:
        if (d.get("kind"), d["metadata"]["name"]) in CREATE_ONLY:
            for name in names:
                c = yaml.safe_load(yaml.safe_dump(d))
                c["metadata"]["name"] = name
                c["metadata"]["namespace"] = namespaces[-1]
                out.append(c)
    return out


def lane_objects(rendered, args):
    """The objects to apply: the identity and RBAC of the rendered manifests,
    adjusted to the manager's flags and the lane's environment."""
    docs = [d for d in rendered if d.get("kind") in KEEP]
    dropped = {r for r in os.environ.get("ATTUNE_LANE_RBAC_DROP", "").split(",") if r}
    if dropped:
        drop_resources(docs, dropped)
    secrets = flag_values(args, "webhook-secret-name")
    configs = flag_values(args, "webhook-configuration-name")
    namespaces = sorted(set(flag_values(args, "leader-election-namespace") + flag_values(args, "webhook-namespace")) - {HOME})
    for d in docs:
        name = d["metadata"]["name"]
        for rule in d.get("rules", []):
            # The webhook's rules name their objects by resourceNames: the
            # manifests' default names and the ones these flags choose.
            if name == "attune-manager-webhook-certificates" and secrets:
                rule["resourceNames"] = sorted(set(rule.get("resourceNames", [])) | set(secrets))
            if name == "attune-manager-webhook-configuration" and configs:
                rule["resourceNames"] = sorted(set(rule.get("resourceNames", [])) | set(configs))
    # Secret reads are granted per namespace (the secret-reads component's
    # Role pair, which kustomize placed in HOME): in each namespace of
    # --watch-namespaces, or of ATTUNE_LANE_SECRET_NAMESPACES (a test names its
    # own), never cluster-wide.
    secret_namespaces = [n for v in flag_values(args, "watch-namespaces") for n in v.split(",") if n]
    secret_namespaces += [n for n in os.environ.get("ATTUNE_LANE_SECRET_NAMESPACES", "").split(",") if n]
    secret_pair = [d for d in docs if d["metadata"]["name"] == "attune-manager-secret-reads"]
    docs = [d for d in docs if d["metadata"]["name"] != "attune-manager-secret-reads"]
    extra = []
    for ns in sorted(set(secret_namespaces)):
        for d in secret_pair:
            c = yaml.safe_load(yaml.safe_dump(d))
            c["metadata"]["namespace"] = ns
            extra.append(c)
    for ns in namespaces:
        for d in docs:
            if d["kind"] in ("Role", "RoleBinding") and d["metadata"].get("namespace") == HOME:
                c = yaml.safe_load(yaml.safe_dump(d))
                c["metadata"]["namespace"] = ns
                extra.append(c)
    return docs + extra


def key(d):
    return (d["kind"], d["metadata"].get("namespace", ""), d["metadata"]["name"])


def removed(full, current, args):
    """--removed FULL: the RBAC objects the lane applies from FULL (the
    manifests without ATTUNE_LANE_COMPONENTS) that the current render (stdin)
    no longer has, e.g. a feature's ClusterRole and binding taken out by a
    without-<feature> component; lane-rbac.sh deletes them, so a grant an
    earlier start applied does not outlive the render. Never the Namespace or
    the ServiceAccount."""
    have = {key(d) for d in lane_objects(current, args)}
    out = []
    for d in lane_objects(full, args):
        if d["kind"] in ("Namespace", "ServiceAccount") or key(d) in have:
            continue
        md = {"name": d["metadata"]["name"]}
        if d["metadata"].get("namespace"):
            md["namespace"] = d["metadata"]["namespace"]
        out.append({"apiVersion": d["apiVersion"], "kind": d["kind"], "metadata": md})
    return out


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] in ("--create-only", "--removed") else ""
    if mode == "--removed":
        with open(sys.argv[2], encoding="utf-8") as f:
            full = [d for d in yaml.safe_load_all(f) if d]
        args = sys.argv[3:]
    else:
        args = sys.argv[2:] if mode else sys.argv[1:]
    rendered = [d for d in yaml.safe_load_all(sys.stdin) if d]
    if mode == "--create-only":
        yaml.safe_dump_all(webhook_secrets(rendered, args), sys.stdout, sort_keys=False)
    elif mode == "--removed":
        yaml.safe_dump_all(removed(full, rendered, args), sys.stdout, sort_keys=False)
    else:
        yaml.safe_dump_all(lane_objects(rendered, args), sys.stdout, sort_keys=False)


if __name__ == "__main__":
    main()
