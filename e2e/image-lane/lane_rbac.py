"""Filters the rendered manifests (stdin) down to what grants the manager its
identity, adjusted to the manager's flags (argv); prints a YAML stream."""
import os
import sys
import yaml

KEEP = {"Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"}
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
    resources (e.g. pods/resize) out of every rule that grants them."""
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


def main():
    args = sys.argv[1:]
    docs = [d for d in yaml.safe_load_all(sys.stdin) if d and d.get("kind") in KEEP]
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
    extra = []
    for ns in namespaces:
        for d in docs:
            if d["kind"] in ("Role", "RoleBinding") and d["metadata"].get("namespace") == HOME:
                c = yaml.safe_load(yaml.safe_dump(d))
                c["metadata"]["namespace"] = ns
                extra.append(c)
    yaml.safe_dump_all(docs + extra, sys.stdout, sort_keys=False)


if __name__ == "__main__":
    main()
