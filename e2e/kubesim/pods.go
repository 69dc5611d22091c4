package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
)

// ---- event plumbing ----

func podNode(obj any) (key, node string) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return "", ""
	}
	node, _, _ = unstructured.NestedString(u.Object, "spec", "nodeName")
	return u.GetNamespace() + "/" + u.GetName(), node
}

func (s *Sim) onPodEvent(obj any) {
	key, node := podNode(obj)
	if key == "" {
		return
	}
	s.podQ.Add(key)
	// Any change on a node may free room for a Deferred resize there.
	s.kickDeferred(node)
}

// kickDeferred re-queues the Deferred pods of a node.
func (s *Sim) kickDeferred(node string) {
	if node == "" {
		return
	}
	s.mu.Lock()
	var keys []string
	for k, m := range s.memo {
		if m.deferred && m.node == node {
			keys = append(keys, k)
		}
	}
	s.mu.Unlock()
	for _, k := range keys {
		s.podQ.Add(k)
	}
}

// resyncUnsettled re-queues the pods with an unfinished resize (Deferred
// retried, memory-decrease errors re-checked). It walks only the memo
// entries that are not settled, so its cost grows with change, not with
// the number of pods.
func (s *Sim) resyncUnsettled() {
	s.mu.Lock()
	var keys []string
	for k, m := range s.memo {
		if !m.settled {
			keys = append(keys, k)
		}
	}
	s.mu.Unlock()
	for _, k := range keys {
		s.podQ.Add(k)
	}
}

// resyncAll re-queues every pod on our nodes: a safety net for anything an
// event did not cover (a pod this simulator has no memo of yet included).
func (s *Sim) resyncAll() {
	for _, obj := range s.pods.GetIndexer().List() {
		key, node := podNode(obj)
		if s.isOurNode(node) {
			s.podQ.Add(key)
		}
	}
}

func (s *Sim) runPodWorker(ctx context.Context) {
	for {
		key, quit := s.podQ.Get()
		if quit {
			return
		}
		err := s.syncPod(ctx, key)
		switch {
		case err == nil:
			s.podQ.Forget(key)
		case apierrors.IsConflict(err) || apierrors.IsNotFound(err):
			// The cache is behind; the watch event will bring the new version.
			s.podQ.AddRateLimited(key)
		default:
			logf("pod %s: %v (will retry)", key, err)
			s.podQ.AddRateLimited(key)
		}
		s.podQ.Done(key)
	}
}

// ---- per-pod state ----

func (s *Sim) getMemo(key string, u *unstructured.Unstructured, node string) *podMemo {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.memo[key]
	if m == nil || m.uid != u.GetUID() {
		m = &podMemo{uid: u.GetUID(), node: node}
		s.memo[key] = m
	}
	return m
}

func (s *Sim) forgetPod(key string) {
	s.mu.Lock()
	delete(s.memo, key)
	s.mu.Unlock()
	ns, name, _ := strings.Cut(key, "/")
	s.metrics.RetainPod(ns, name, nil)
}

func (s *Sim) syncPod(ctx context.Context, key string) error {
	obj, exists, err := s.pods.GetIndexer().GetByKey(key)
	if err != nil {
		return err
	}
	if !exists {
		s.forgetPod(key)
		return nil
	}
	u := obj.(*unstructured.Unstructured)
	node, _, _ := unstructured.NestedString(u.Object, "spec", "nodeName")
	if !s.isOurNode(node) {
		s.forgetPod(key)
		return nil
	}
	m := s.getMemo(key, u, node)
	if m.written != nil && m.writtenFrom == u.GetResourceVersion() {
		u = m.written
	}

	if u.GetDeletionTimestamp() != nil {
		return s.finishPod(ctx, key, u)
	}
	phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
	if phase == "Succeeded" || phase == "Failed" {
		s.metrics.RetainPod(u.GetNamespace(), u.GetName(), nil)
		return nil
	}
	if !s.started(u) {
		if err := s.startPod(ctx, key, u, m, node); err != nil {
			return err
		}
	} else if err := s.resizePod(ctx, key, u, m, node); err != nil {
		return err
	}
	s.updateMetrics(key, m, node)
	return nil
}

// finishPod completes a graceful deletion as a kubelet does once the
// containers have stopped.
func (s *Sim) finishPod(ctx context.Context, key string, u *unstructured.Unstructured) error {
	c, cancel := apiCtx(ctx)
	defer cancel()
	zero := int64(0)
	uid := u.GetUID()
	err := s.dyn.Resource(podGVR).Namespace(u.GetNamespace()).Delete(c, u.GetName(),
		metav1.DeleteOptions{GracePeriodSeconds: &zero, Preconditions: &metav1.Preconditions{UID: &uid}})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // already gone, or replaced by a new pod of the same name
	}
	if err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	logf("pod %s: terminated and deleted", key)
	s.forgetPod(key)
	return nil
}

// started: the pod is Running with a status for each container.
func (s *Sim) started(u *unstructured.Unstructured) bool {
	phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
	if phase != "Running" {
		return false
	}
	status, _, _ := unstructured.NestedMap(u.Object, "status")
	for _, c := range podSpecContainers(u.Object) {
		if statusEntry(status, statusField(c.Kind), c.Name) == nil {
			return false
		}
	}
	return true
}

func (s *Sim) nodeIP(node string) string {
	if obj, ok, _ := s.nodes.GetIndexer().GetByKey(node); ok {
		addrs, _, _ := unstructured.NestedSlice(obj.(*unstructured.Unstructured).Object, "status", "addresses")
		for _, a := range addrs {
			if am, ok := a.(map[string]any); ok && am["type"] == "InternalIP" {
				if ip, ok := am["address"].(string); ok {
					return ip
				}
			}
		}
	}
	return fakeNodeIP(node)
}

// startPod reports a freshly bound pod as Running, with every container's
// resources as applied, which is what makes it resizable.
func (s *Sim) startPod(ctx context.Context, key string, u *unstructured.Unstructured, m *podMemo, node string) error {
	now := time.Now().UTC()
	ts := now.Format(timeFormat)
	old, _, _ := unstructured.NestedMap(u.Object, "status")
	status := runtime.DeepCopyJSON(old)
	if status == nil {
		status = map[string]any{}
	}
	hostIP, podIP := s.nodeIP(node), fakePodIP(u.GetUID())
	status["phase"] = "Running"
	status["hostIP"] = hostIP
	status["hostIPs"] = []any{map[string]any{"ip": hostIP}}
	status["podIP"] = podIP
	status["podIPs"] = []any{map[string]any{"ip": podIP}}
	if _, ok := status["startTime"]; !ok {
		status["startTime"] = ts
	}
	delete(status, "resize")

	var regular, inits []any
	allocated := map[string]Resources{}
	for _, c := range podSpecContainers(u.Object) {
		h := hash32(string(u.GetUID()) + "/" + c.Name)
		cs := map[string]any{
			"name":         c.Name,
			"image":        c.Image,
			"imageID":      fmt.Sprintf("sim.local/%s@sha256:%064x", c.Image, hash32(c.Image)),
			"containerID":  fmt.Sprintf("containerd://%064x", h),
			"restartCount": int64(0),
			"lastState":    map[string]any{},
			"resources":    resourcesToMap(c.Resources),
		}
		if len(c.Resources.Requests) > 0 && !s.dropsField("allocatedResources") {
			cs["allocatedResources"] = resListToMap(c.Resources.Requests)
		}
		if c.Kind == Init {
			cs["ready"], cs["started"] = true, false
			cs["state"] = map[string]any{"terminated": map[string]any{
				"exitCode": int64(0), "reason": "Completed", "startedAt": ts, "finishedAt": ts}}
		} else {
			cs["ready"], cs["started"] = true, true
			cs["state"] = map[string]any{"running": map[string]any{"startedAt": ts}}
		}
		if c.Kind == Regular {
			regular = append(regular, cs)
		} else {
			inits = append(inits, cs)
		}
		allocated[c.Name] = c.Resources.Clone()
	}
	status["containerStatuses"] = regular
	if len(inits) > 0 {
		status["initContainerStatuses"] = inits
	}
	podRes := podLevelSpec(u)
	if s.b.PodLevelStatus && !podRes.IsZero() && !s.dropsField("pod-level status.resources") {
		status["resources"] = resourcesToMap(podRes)
		if len(podRes.Requests) > 0 {
			status["allocatedResources"] = resListToMap(podRes.Requests)
		}
	}

	ready := map[string]any{"type": "Ready", "status": "True"}
	if gate := unreadyGate(u, old); gate != "" {
		ready = map[string]any{"type": "Ready", "status": "False", "reason": "ReadinessGatesNotReady",
			"message": fmt.Sprintf("corresponding condition of pod readiness gate %q does not exist.", gate)}
	}
	for _, c := range []map[string]any{
		{"type": "PodReadyToStartContainers", "status": "True"},
		{"type": "Initialized", "status": "True"},
		ready,
		{"type": "ContainersReady", "status": "True"},
		{"type": "PodScheduled", "status": "True"},
	} {
		c["lastProbeTime"] = nil
		c["lastTransitionTime"] = ts
		if s.b.ObservedGeneration && !s.dropsField("observedGeneration") && u.GetGeneration() > 0 {
			c["observedGeneration"] = u.GetGeneration()
		}
		setStartCondition(status, c)
	}
	if s.b.ObservedGeneration && !s.dropsField("observedGeneration") && u.GetGeneration() > 0 {
		status["observedGeneration"] = u.GetGeneration()
	}

	written, err := s.writeStatus(ctx, u, status)
	if err != nil {
		return err
	}
	s.mu.Lock()
	m.allocated = allocated
	m.podAllocated, m.podActuated, m.hasPodActuated = podRes.Clone(), podRes.Clone(), true
	m.inProgressSince, m.deferred, m.settled = time.Time{}, false, true
	m.writtenFrom, m.written = u.GetResourceVersion(), written
	s.mu.Unlock()
	logf("pod %s: running on %s (ip %s)", key, node, podIP)
	return nil
}

// setStartCondition sets a kubelet-owned condition, keeping the
// transition time of one that already had that status (e.g. PodScheduled).
func setStartCondition(status map[string]any, c map[string]any) {
	list, _ := status["conditions"].([]any)
	for i, item := range list {
		if m, ok := item.(map[string]any); ok && m["type"] == c["type"] {
			if m["status"] == c["status"] && m["lastTransitionTime"] != nil {
				c["lastTransitionTime"] = m["lastTransitionTime"]
			}
			list[i] = c
			status["conditions"] = list
			return
		}
	}
	status["conditions"] = append(list, c)
}

// unreadyGate returns the first readiness gate whose condition is not True.
func unreadyGate(u *unstructured.Unstructured, status map[string]any) string {
	gates, _, _ := unstructured.NestedSlice(u.Object, "spec", "readinessGates")
	for _, g := range gates {
		gm, _ := g.(map[string]any)
		typ, _ := gm["conditionType"].(string)
		ok := false
		list, _ := status["conditions"].([]any)
		for _, item := range list {
			if m, _ := item.(map[string]any); m != nil && m["type"] == typ && m["status"] == "True" {
				ok = true
			}
		}
		if !ok {
			return typ
		}
	}
	return ""
}

func podLevelSpec(u *unstructured.Unstructured) Resources {
	m, _, _ := unstructured.NestedMap(u.Object, "spec", "resources")
	return parseResources(m)
}

// podState assembles the decision input for a pod, preferring what this
// simulator remembers over what the (maybe stale or gate-stripped) status says.
func (s *Sim) podState(u *unstructured.Unstructured, m *podMemo, withUsage bool) PodState {
	status, _, _ := unstructured.NestedMap(u.Object, "status")
	var spec LoadSpec
	if a := u.GetAnnotations()[loadAnnotation]; withUsage && a != "" {
		spec, _ = ParseLoadAnnotation(a)
	}
	p := PodState{PodSpec: podLevelSpec(u)}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range podSpecContainers(u.Object) {
		cs := ContainerState{Name: c.Name, Kind: c.Kind, Spec: c.Resources,
			CPURestart: c.CPURestart, MemRestart: c.MemRestart}
		act, alloc, ok := statusResources(statusEntry(status, statusField(c.Kind), c.Name))
		if !ok {
			// Not reported (e.g. started before this simulator ran): take spec.
			act, alloc = c.Resources.Clone(), c.Resources.Clone()
		}
		if m != nil && m.allocated != nil {
			if a, ok := m.allocated[c.Name]; ok {
				alloc = a
			}
		}
		cs.Actuated, cs.Allocated = act, alloc
		if withUsage {
			cs.MemUsage = spec.For(c.Name, act).Memory
		}
		p.Containers = append(p.Containers, cs)
	}
	p.PodActuated, p.PodAllocated = p.PodSpec.Clone(), p.PodSpec.Clone()
	if r, ok := status["resources"].(map[string]any); ok {
		p.PodActuated = parseResources(r)
		p.PodAllocated = p.PodActuated.Clone()
		if ar, ok := status["allocatedResources"]; ok {
			p.PodAllocated.Requests = parseResList(ar)
		}
	}
	if m != nil {
		if m.hasPodActuated {
			p.PodActuated, p.PodAllocated = m.podActuated.Clone(), m.podAllocated.Clone()
		}
		p.InProgressSince = m.inProgressSince
	}
	return p
}

// nodeRoom: node allocatable, and the allocated footprint of every other
// non-terminated pod on it.
func (s *Sim) nodeRoom(node, selfKey string) NodeRoom {
	var r NodeRoom
	if obj, ok, _ := s.nodes.GetIndexer().GetByKey(node); ok {
		nu := obj.(*unstructured.Unstructured).Object
		alloc, found, _ := unstructured.NestedMap(nu, "status", "allocatable")
		if !found {
			alloc, _, _ = unstructured.NestedMap(nu, "status", "capacity")
		}
		a := requestAmount(Resources{Requests: parseResList(alloc)})
		r.Allocatable = kubeletAllocatable(node, obj.(*unstructured.Unstructured).GetAnnotations(), a)
	}
	others, _ := s.pods.GetIndexer().ByIndex(nodeIndex, node)
	for _, obj := range others {
		o := obj.(*unstructured.Unstructured)
		key := o.GetNamespace() + "/" + o.GetName()
		if key == selfKey {
			continue
		}
		if phase, _, _ := unstructured.NestedString(o.Object, "status", "phase"); phase == "Succeeded" || phase == "Failed" {
			continue
		}
		s.mu.Lock()
		m := s.memo[key]
		if m != nil && m.uid != o.GetUID() {
			m = nil
		}
		s.mu.Unlock()
		r.Used = r.Used.Add(s.podState(o, m, false).AllocatedEffective())
	}
	return r
}

// resizePod runs one resize round (see Decide) and writes the result.
func (s *Sim) resizePod(ctx context.Context, key string, u *unstructured.Unstructured, m *podMemo, node string) error {
	now := time.Now()
	p := s.podState(u, m, true)
	var room NodeRoom
	if NeedsAdmission(s.b, p) { // summing the node's pods is the costly part
		room = s.nodeRoom(node, key)
	}
	o := Decide(s.b, p, room, now, s.cfg.ResizeDelay)

	old, _, _ := unstructured.NestedMap(u.Object, "status")
	status := runtime.DeepCopyJSON(old)
	ts := now.UTC().Format(timeFormat)
	for i, c := range p.Containers {
		if !c.Kind.Resizable() {
			continue
		}
		cs := statusEntry(status, statusField(c.Kind), c.Name)
		if cs == nil {
			continue
		}
		cs["resources"] = resourcesToMap(o.Actuated[i])
		if len(o.Allocated[i].Requests) > 0 && !s.dropsField("allocatedResources") {
			cs["allocatedResources"] = resListToMap(o.Allocated[i].Requests)
		} else {
			delete(cs, "allocatedResources")
		}
		for _, r := range o.Restarted {
			if r == c.Name {
				// A RestartContainer policy: the runtime restarts it with the new size.
				n, _, _ := unstructured.NestedInt64(cs, "restartCount")
				cs["restartCount"] = n + 1
				prev, _, _ := unstructured.NestedString(cs, "state", "running", "startedAt")
				cs["lastState"] = map[string]any{"terminated": map[string]any{
					"exitCode": int64(0), "reason": "Completed", "startedAt": prev, "finishedAt": ts}}
				cs["state"] = map[string]any{"running": map[string]any{"startedAt": ts}}
			}
		}
	}
	if s.b.PodLevelStatus && !p.PodSpec.IsZero() && !s.dropsField("pod-level status.resources") {
		status["resources"] = resourcesToMap(o.PodActuated)
		if len(o.PodAllocated.Requests) > 0 {
			status["allocatedResources"] = resListToMap(o.PodAllocated.Requests)
		}
	}
	// Harness faults (faults.go): OOM kills, injected restarts, NotReady.
	faultRequeue := s.podFaults(key, u.GetAnnotations(), p, o, status, m, now)
	gen := u.GetGeneration()
	if s.dropsField("observedGeneration") {
		gen = 0
	}
	setResizeIndicators(s.b, status, o, gen, now)

	commit := func(written *unstructured.Unstructured) {
		s.mu.Lock()
		defer s.mu.Unlock()
		m.allocated = map[string]Resources{}
		for i, c := range p.Containers {
			m.allocated[c.Name] = o.Allocated[i]
		}
		m.podAllocated, m.podActuated, m.hasPodActuated = o.PodAllocated, o.PodActuated, true
		m.inProgressSince = o.InProgressSince
		m.deferred = o.Pending == PendingDeferred
		m.settled = o.Settled()
		if written != nil {
			m.writtenFrom, m.written = u.GetResourceVersion(), written
		}
	}
	if equality.Semantic.DeepEqual(old, status) {
		commit(nil)
	} else {
		written, err := s.writeStatus(ctx, u, status)
		if err != nil {
			return err
		}
		commit(written)
		s.logResize(key, p, o)
	}
	if o.RequeueAfter > 0 {
		s.podQ.AddAfter(key, o.RequeueAfter)
	}
	if faultRequeue > 0 {
		s.podQ.AddAfter(key, faultRequeue)
	}
	if o.AllocationChanged || o.Applied {
		s.kickDeferred(node)
	}
	return nil
}

func (s *Sim) logResize(key string, p PodState, o Outcome) {
	var parts []string
	if o.AllocationChanged {
		parts = append(parts, "resize admitted")
	}
	if o.Pending != "" {
		parts = append(parts, fmt.Sprintf("resize %s: %s", o.Pending, o.PendingMessage))
	}
	if o.ErrorMessage != "" {
		parts = append(parts, "resize in progress with error: "+o.ErrorMessage)
	} else if o.InProgress {
		parts = append(parts, "resize in progress")
	}
	if o.Applied {
		var sizes []string
		for i, c := range p.Containers {
			if !o.Actuated[i].Equal(c.Actuated) {
				sizes = append(sizes, c.Name+" "+fmtResources(o.Actuated[i]))
			}
		}
		if !o.PodActuated.Equal(p.PodActuated) {
			sizes = append(sizes, "pod "+fmtResources(o.PodActuated))
		}
		parts = append(parts, "resize applied: "+strings.Join(sizes, "; "))
	}
	if len(o.Restarted) > 0 {
		parts = append(parts, "restarted "+strings.Join(o.Restarted, ","))
	}
	if len(parts) == 0 {
		parts = append(parts, "resize state cleared")
	}
	logf("pod %s: %s", key, strings.Join(parts, "; "))
}

func fmtResources(r Resources) string {
	f := func(l ResList) string {
		var out []string
		for _, k := range []string{resCPU, resMemory} {
			if q, ok := l[k]; ok {
				out = append(out, k+"="+q.String())
			}
		}
		return strings.Join(out, ",")
	}
	return "requests{" + f(r.Requests) + "} limits{" + f(r.Limits) + "}"
}

// writeStatus replaces the pod status (optimistic concurrency through the
// resourceVersion) and learns which fields this apiserver drops.
func (s *Sim) writeStatus(ctx context.Context, u *unstructured.Unstructured, status map[string]any) (*unstructured.Unstructured, error) {
	obj := u.DeepCopy()
	obj.Object["status"] = status
	c, cancel := apiCtx(ctx)
	defer cancel()
	out, err := s.dyn.Resource(podGVR).Namespace(u.GetNamespace()).UpdateStatus(c, obj, metav1.UpdateOptions{})
	if err != nil {
		return nil, err
	}
	got, _, _ := unstructured.NestedMap(out.Object, "status")
	if _, sent := status["resources"]; sent {
		if _, kept := got["resources"]; !kept {
			s.markDropped("pod-level status.resources")
		}
	}
	if _, sent := status["observedGeneration"]; sent {
		if _, kept := got["observedGeneration"]; !kept {
			s.markDropped("observedGeneration")
		}
	}
	for _, field := range []string{"containerStatuses", "initContainerStatuses"} {
		sentList, _ := status[field].([]any)
		for _, item := range sentList {
			cs, _ := item.(map[string]any)
			if _, sent := cs["allocatedResources"]; !sent {
				continue
			}
			name, _ := cs["name"].(string)
			if g := statusEntry(got, field, name); g != nil {
				if _, kept := g["allocatedResources"]; !kept {
					s.markDropped("allocatedResources")
				}
			}
		}
	}
	return out, nil
}

// updateMetrics refreshes the pod's usage series from its load annotation.
func (s *Sim) updateMetrics(key string, m *podMemo, node string) {
	obj, ok, _ := s.pods.GetIndexer().GetByKey(key)
	if !ok {
		return
	}
	u := obj.(*unstructured.Unstructured)
	s.mu.Lock()
	if m.written != nil && m.writtenFrom == u.GetResourceVersion() {
		u = m.written
	}
	s.mu.Unlock()
	if !s.started(u) {
		return
	}
	var spec LoadSpec
	if a := u.GetAnnotations()[loadAnnotation]; a != "" {
		var err error
		if spec, err = ParseLoadAnnotation(a); err != nil {
			s.mu.Lock()
			if m.loadWarned != a {
				m.loadWarned = a
				logf("pod %s: warning: %v; using default load", key, err)
			}
			s.mu.Unlock()
			spec = nil
		}
	}
	status, _, _ := unstructured.NestedMap(u.Object, "status")
	now := time.Now()
	keep := map[string]bool{}
	for _, c := range podSpecContainers(u.Object) {
		if c.Kind == Init {
			continue
		}
		cs := statusEntry(status, statusField(c.Kind), c.Name)
		act, _, ok := statusResources(cs)
		if !ok {
			act = c.Resources
		}
		startedAt, _, _ := unstructured.NestedString(cs, "state", "running", "startedAt")
		st, _ := time.Parse(timeFormat, startedAt)
		s.metrics.Set(u.GetNamespace(), u.GetName(), c.Name, node, st, spec.For(c.Name, act), now)
		keep[c.Name] = true
	}
	s.metrics.RetainPod(u.GetNamespace(), u.GetName(), keep)
}
