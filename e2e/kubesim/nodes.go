package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// Taints the node lifecycle controller (or the TaintNodesByCondition
// admission plugin) puts on a node it does not yet believe is healthy.
var unhealthyTaints = map[string]bool{
	"node.kubernetes.io/not-ready":   true,
	"node.kubernetes.io/unreachable": true,
}

func (s *Sim) capacityMap() map[string]any {
	return map[string]any{
		"cpu":               s.cfg.NodeCPU.String(),
		"memory":            s.cfg.NodeMemory.String(),
		"pods":              fmt.Sprint(s.cfg.NodePods),
		"ephemeral-storage": "100Gi",
	}
}

func (s *Sim) nodeInfo(name string) map[string]any {
	id := fmt.Sprintf("%032x", hash32(name))
	return map[string]any{
		"machineID":               id,
		"systemUUID":              id,
		"bootID":                  id,
		"kernelVersion":           "6.1.0-sim",
		"osImage":                 "Debian GNU/Linux 13 (kubesim)",
		"containerRuntimeVersion": "containerd://2.0.0-sim",
		"kubeletVersion":          s.cfg.GitVersion,
		"operatingSystem":         "linux",
		"architecture":            "amd64",
	}
}

// createOwnNodes creates sim-node-0..N-1 if missing. declaredFeatures is
// written only here, once, because tests patch it afterwards.
func (s *Sim) createOwnNodes(ctx context.Context) error {
	for i := 0; i < s.cfg.Nodes; i++ {
		name := fmt.Sprintf("sim-node-%d", i)
		c, cancel := apiCtx(ctx)
		_, err := s.dyn.Resource(nodeGVR).Get(c, name, metav1.GetOptions{})
		cancel()
		if err == nil {
			logf("node %s: exists; adopting it as is", name)
			continue
		}
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("get node %s: %w", name, err)
		}
		node := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1",
			"kind":       "Node",
			"metadata": map[string]any{
				"name": name,
				"labels": map[string]any{
					simLabel:                 "true",
					"kubernetes.io/hostname": name,
					"kubernetes.io/os":       "linux",
					"kubernetes.io/arch":     "amd64",
				},
			},
			"spec": map[string]any{},
		}}
		c, cancel = apiCtx(ctx)
		_, err = s.dyn.Resource(nodeGVR).Create(c, node, metav1.CreateOptions{})
		cancel()
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create node %s: %w", name, err)
		}
		now := time.Now().UTC()
		status := map[string]any{
			"capacity":        s.capacityMap(),
			"allocatable":     s.capacityMap(),
			"conditions":      nodeConditions(nil, now, nil),
			"addresses":       nodeAddresses(name),
			"daemonEndpoints": map[string]any{"kubeletEndpoint": map[string]any{"Port": int64(10250)}},
			"nodeInfo":        s.nodeInfo(name),
		}
		if s.cfg.DeclaredFeatures != nil {
			status["declaredFeatures"] = s.cfg.DeclaredFeatures
		}
		// The node worker renews its Lease as soon as the informer sees it.
		if err := s.patchNodeStatus(ctx, name, status); err != nil {
			return err
		}
		logf("node %s: created (cpu=%s memory=%s pods=%d declaredFeatures=%v)", name,
			s.cfg.NodeCPU.String(), s.cfg.NodeMemory.String(), s.cfg.NodePods, s.cfg.DeclaredFeatures)
	}
	return nil
}

func nodeAddresses(name string) []any {
	return []any{
		map[string]any{"type": "InternalIP", "address": fakeNodeIP(name)},
		map[string]any{"type": "Hostname", "address": name},
	}
}

// nodeConditions: a healthy kubelet's conditions with fresh heartbeats,
// keeping transition times from the existing ones when the status is
// unchanged; the pressure a test asked for (sim.attune.io/pressure) is True.
func nodeConditions(existing []any, now time.Time, pressure map[string]bool) []any {
	ts := now.UTC().Format(timeFormat)
	prev := map[string]map[string]any{}
	for _, c := range existing {
		if m, ok := c.(map[string]any); ok {
			if t, ok := m["type"].(string); ok {
				prev[t] = m
			}
		}
	}
	var out []any
	for _, c := range [][4]string{
		{"MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"},
		{"DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
		{"PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"},
		{"Ready", "True", "KubeletReady", "kubelet is posting ready status"},
	} {
		if pressure[c[0]] {
			c = map[string][4]string{
				"MemoryPressure": {"MemoryPressure", "True", "KubeletHasInsufficientMemory", "kubelet has insufficient memory available (sim.attune.io/pressure)"},
				"DiskPressure":   {"DiskPressure", "True", "KubeletHasDiskPressure", "kubelet has disk pressure (sim.attune.io/pressure)"},
				"PIDPressure":    {"PIDPressure", "True", "KubeletHasInsufficientPID", "kubelet has insufficient PID available (sim.attune.io/pressure)"},
			}[c[0]]
		}
		trans := ts
		if p := prev[c[0]]; p != nil && p["status"] == c[1] {
			if t, ok := p["lastTransitionTime"].(string); ok {
				trans = t
			}
		}
		out = append(out, map[string]any{
			"type": c[0], "status": c[1], "reason": c[2], "message": c[3],
			"lastHeartbeatTime": ts, "lastTransitionTime": trans,
		})
	}
	return out
}

// patchNodeStatus merge-patches only the given status fields, so fields
// owned by tests (declaredFeatures) are left alone.
func (s *Sim) patchNodeStatus(ctx context.Context, name string, status map[string]any) error {
	body, err := json.Marshal(map[string]any{"status": status})
	if err != nil {
		return err
	}
	c, cancel := apiCtx(ctx)
	defer cancel()
	_, err = s.dyn.Resource(nodeGVR).Patch(c, name, types.MergePatchType, body, metav1.PatchOptions{}, "status")
	if err != nil {
		return fmt.Errorf("patch node %s status: %w", name, err)
	}
	return nil
}

func (s *Sim) runNodeWorker(ctx context.Context) {
	for {
		name, quit := s.nodeQ.Get()
		if quit {
			return
		}
		if err := s.syncNode(ctx, name); err != nil {
			logf("node %s: %v (will retry)", name, err)
			s.nodeQ.AddRateLimited(name)
		} else {
			s.nodeQ.Forget(name)
		}
		s.nodeQ.Done(name)
	}
}

// syncNode heartbeats a node when due, fills what an adopted node lacks,
// and removes not-ready taints.
func (s *Sim) syncNode(ctx context.Context, name string) error {
	obj, ok, err := s.nodes.GetIndexer().GetByKey(name)
	if err != nil {
		return err
	}
	if !ok {
		s.mu.Lock()
		delete(s.lastBeat, name)
		s.mu.Unlock()
		return nil
	}
	n := obj.(*unstructured.Unstructured)
	st, _, _ := unstructured.NestedMap(n.Object, "status")
	now := time.Now()

	s.mu.Lock()
	last, seen := s.lastBeat[name]
	s.mu.Unlock()

	patch := map[string]any{}
	// An adopted node: fill what a kubelet would report, keep what the test set.
	if _, has := st["capacity"]; !has {
		patch["capacity"] = s.capacityMap()
	}
	if _, has := st["allocatable"]; !has {
		if c, has := st["capacity"]; has {
			patch["allocatable"] = c
		} else {
			patch["allocatable"] = s.capacityMap()
		}
	}
	if v, _, _ := unstructured.NestedString(st, "nodeInfo", "kubeletVersion"); v == "" {
		patch["nodeInfo"] = s.nodeInfo(name)
	}
	if _, has := st["addresses"]; !has {
		patch["addresses"] = nodeAddresses(name)
	}
	conds, _ := st["conditions"].([]any)
	pressure := nodePressure(name, n.GetAnnotations())
	// Heartbeat slack: the 10 s ticker must not skip a beat by a millisecond.
	if !seen || now.Sub(last) >= heartbeat-2*time.Second || !nodeReady(conds) || pressureDiffers(conds, pressure) {
		patch["conditions"] = nodeConditions(conds, now, pressure)
	}
	if len(patch) > 0 {
		if err := s.patchNodeStatus(ctx, name, patch); err != nil {
			return err
		}
		if !seen {
			logf("node %s: heartbeating it and running its pods", name)
			for _, p := range s.podsOn(name) {
				s.podQ.Add(p)
			}
		}
	}
	if _, has := patch["conditions"]; has || !seen {
		if err := s.renewLease(ctx, n); err != nil {
			return err
		}
		s.mu.Lock()
		s.lastBeat[name] = now
		s.mu.Unlock()
	}
	return s.removeUnhealthyTaints(ctx, n)
}

func nodeReady(conds []any) bool {
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == "Ready" {
			return m["status"] == "True"
		}
	}
	return false
}

func (s *Sim) podsOn(node string) []string {
	objs, _ := s.pods.GetIndexer().ByIndex(nodeIndex, node)
	var keys []string
	for _, o := range objs {
		u := o.(*unstructured.Unstructured)
		keys = append(keys, u.GetNamespace()+"/"+u.GetName())
	}
	return keys
}

// renewLease is the kubelet's node heartbeat that the node lifecycle
// controller watches.
func (s *Sim) renewLease(ctx context.Context, n *unstructured.Unstructured) error {
	name := n.GetName()
	renew := metav1.NowMicro().UTC().Format("2006-01-02T15:04:05.000000Z07:00")
	leases := s.dyn.Resource(leaseGVR).Namespace("kube-node-lease")
	body, _ := json.Marshal(map[string]any{"spec": map[string]any{
		"holderIdentity": name, "leaseDurationSeconds": 40, "renewTime": renew}})
	c, cancel := apiCtx(ctx)
	_, err := leases.Patch(c, name, types.MergePatchType, body, metav1.PatchOptions{})
	cancel()
	if err == nil {
		return nil
	}
	if !apierrors.IsNotFound(err) {
		return fmt.Errorf("renew lease: %w", err)
	}
	lease := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "coordination.k8s.io/v1",
		"kind":       "Lease",
		"metadata": map[string]any{
			"name":      name,
			"namespace": "kube-node-lease",
			// Owned by the Node, so deleting a test's node removes its lease.
			"ownerReferences": []any{map[string]any{
				"apiVersion": "v1", "kind": "Node", "name": name, "uid": string(n.GetUID()),
			}},
		},
		"spec": map[string]any{"holderIdentity": name, "leaseDurationSeconds": int64(40), "renewTime": renew},
	}}
	c, cancel = apiCtx(ctx)
	defer cancel()
	if _, err := leases.Create(c, lease, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create lease: %w", err)
	}
	return nil
}

func (s *Sim) removeUnhealthyTaints(ctx context.Context, n *unstructured.Unstructured) error {
	taints, _, _ := unstructured.NestedSlice(n.Object, "spec", "taints")
	var keep []any
	removed := false
	for _, t := range taints {
		if m, ok := t.(map[string]any); ok && unhealthyTaints[fmt.Sprint(m["key"])] {
			removed = true
			continue
		}
		keep = append(keep, t)
	}
	if !removed {
		return nil
	}
	obj := n.DeepCopy()
	if len(keep) == 0 {
		unstructured.RemoveNestedField(obj.Object, "spec", "taints")
	} else if err := unstructured.SetNestedSlice(obj.Object, keep, "spec", "taints"); err != nil {
		return err
	}
	c, cancel := apiCtx(ctx)
	defer cancel()
	_, err := s.dyn.Resource(nodeGVR).Update(c, obj, metav1.UpdateOptions{})
	if apierrors.IsConflict(err) {
		return nil // the update event re-queues the node
	}
	if err != nil {
		return fmt.Errorf("remove not-ready taint: %w", err)
	}
	logf("node %s: removed not-ready taint", n.GetName())
	return nil
}
