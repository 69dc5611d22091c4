package main

// Fault injection for the safety monitor's e2e tests (harness, not Attune):
//   - an OOM kill when a container's simulated memory working set
//     (sim.attune.io/load) reaches its applied memory limit;
//   - restarts a test asks for: sim.attune.io/restart-count on the pod,
//     e.g. '{"app": 3}', raises that container's restartCount to at least 3;
//   - NotReady: sim.attune.io/ready: "false" on the pod;
//   - node pressure: sim.attune.io/pressure on the node, e.g.
//     "MemoryPressure,DiskPressure", reported by every heartbeat until removed;
//   - a kubelet with less room than its Node object shows:
//     sim.attune.io/kubelet-allocatable on the node, e.g. '{"cpu": "1"}', is
//     what the simulated kubelet admits resizes against (as a kubelet does
//     whose reserved resources grew before it updated the Node's status, or
//     that runs static pods the API does not list). A resize that fits the
//     Node's allocatable but not this is Deferred, or Infeasible when it is
//     larger than this on its own; removing the annotation retries it.
// Everything is driven by annotations, so a test sets it with kubectl and
// the 10 s node refresh never overwrites it.

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

const (
	restartCountAnnotation = "sim.attune.io/restart-count"
	readyAnnotation        = "sim.attune.io/ready"
	pressureAnnotation     = "sim.attune.io/pressure"
	kubeletAllocatableAnno = "sim.attune.io/kubelet-allocatable"
	// oomBackoff: a container still over its limit is killed again this
	// long after the last kill, like a crash-looping container.
	oomBackoff = 10 * time.Second
)

var pressureTypes = []string{"MemoryPressure", "DiskPressure", "PIDPressure"}

// ParseRestartCounts parses '{"app": 3}' (container name to the least restartCount).
func ParseRestartCounts(s string) (map[string]int64, error) {
	var m map[string]int64
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("%s: want a JSON object of container name to a restart count: %v", restartCountAnnotation, err)
	}
	for name, n := range m {
		if n < 0 {
			return nil, fmt.Errorf("%s[%q]: negative count %d", restartCountAnnotation, name, n)
		}
	}
	return m, nil
}

// ParseKubeletAllocatable parses '{"cpu": "1", "memory": "2Gi"}' (cpu and memory only).
func ParseKubeletAllocatable(s string) (ResList, error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("%s: want a JSON object of resource name to quantity: %v", kubeletAllocatableAnno, err)
	}
	out := parseResList(m)
	for name, raw := range m {
		if _, ok := out[name]; !ok {
			return nil, fmt.Errorf("%s[%q]: %v is not a cpu or memory quantity", kubeletAllocatableAnno, name, raw)
		}
	}
	return out, nil
}

// kubeletAllocatable narrows the Node's allocatable to the annotation's
// figures, per resource; a bad annotation is logged and ignored.
func kubeletAllocatable(name string, annotations map[string]string, a Amount) Amount {
	raw, ok := annotations[kubeletAllocatableAnno]
	if !ok {
		return a
	}
	l, err := ParseKubeletAllocatable(raw)
	if err != nil {
		logf("node %s: warning: %v; ignored", name, err)
		return a
	}
	k := requestAmount(Resources{Requests: l})
	if _, ok := l[resCPU]; ok && k.MilliCPU < a.MilliCPU {
		a.MilliCPU = k.MilliCPU
	}
	if _, ok := l[resMemory]; ok && k.Memory < a.Memory {
		a.Memory = k.Memory
	}
	return a
}

// ParsePressure parses "MemoryPressure,DiskPressure" ("" is none).
func ParsePressure(s string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		known := false
		for _, t := range pressureTypes {
			known = known || t == p
		}
		if !known {
			return nil, fmt.Errorf("%s: %q is not one of %s", pressureAnnotation, p, strings.Join(pressureTypes, ", "))
		}
		out[p] = true
	}
	return out, nil
}

// restartContainer records one termination with `reason` and starts the
// container again, as the kubelet does after a crash or an OOM kill.
func restartContainer(cs map[string]any, reason string, exitCode int64, ts string) {
	n, _ := cs["restartCount"].(int64)
	if f, ok := cs["restartCount"].(float64); ok {
		n = int64(f)
	}
	prev := ts
	if st, ok := cs["state"].(map[string]any); ok {
		if r, ok := st["running"].(map[string]any); ok {
			if s, ok := r["startedAt"].(string); ok {
				prev = s
			}
		}
	}
	cs["restartCount"] = n + 1
	cs["lastState"] = map[string]any{"terminated": map[string]any{
		"exitCode": exitCode, "reason": reason, "startedAt": prev, "finishedAt": ts}}
	cs["state"] = map[string]any{"running": map[string]any{"startedAt": ts}}
}

func restartCount(cs map[string]any) int64 {
	switch v := cs["restartCount"].(type) {
	case int64:
		return v
	case float64:
		return int64(v)
	}
	return 0
}

// ContainerFault is one container's input to applyContainerFaults.
type ContainerFault struct {
	Name        string
	MemUsage    int64
	MemLimit    int64 // 0: no limit
	WantRestart int64 // the least restartCount asked for (0: none)
	LastOOM     time.Time
}

// applyContainerFaults edits a running container's status entry: an OOM
// kill when usage reached the limit (at most once per oomBackoff), then
// restarts up to the requested count. It returns whether it OOM-killed and
// whether the container is still over its limit (so the caller re-checks).
func applyContainerFaults(cs map[string]any, f ContainerFault, now time.Time) (oomKilled, overLimit bool) {
	ts := now.UTC().Format(timeFormat)
	overLimit = f.MemLimit > 0 && f.MemUsage >= f.MemLimit
	if overLimit && (f.LastOOM.IsZero() || now.Sub(f.LastOOM) >= oomBackoff) {
		restartContainer(cs, "OOMKilled", 137, ts)
		oomKilled = true
	}
	for restartCount(cs) < f.WantRestart {
		restartContainer(cs, "Error", 1, ts)
	}
	return oomKilled, overLimit
}

// applyReadiness sets the Ready and ContainersReady conditions and every
// container's ready flag; true when anything changed.
func applyReadiness(status map[string]any, ready bool, ts string) bool {
	changed := false
	want := "True"
	if !ready {
		want = "False"
	}
	for _, typ := range []string{"Ready", "ContainersReady"} {
		c := map[string]any{"type": typ, "status": want, "lastProbeTime": nil, "lastTransitionTime": ts}
		if !ready {
			c["reason"], c["message"] = "ContainersNotReady", "containers not ready (sim.attune.io/ready=false)"
		}
		list, _ := status["conditions"].([]any)
		same := false
		for _, item := range list {
			if m, ok := item.(map[string]any); ok && m["type"] == typ && m["status"] == want {
				same = true
			}
		}
		if !same {
			setStartCondition(status, c)
			changed = true
		}
	}
	for _, field := range []string{"containerStatuses", "initContainerStatuses"} {
		list, _ := status[field].([]any)
		for _, item := range list {
			cs, ok := item.(map[string]any)
			if !ok {
				continue
			}
			if st, _ := cs["state"].(map[string]any); st != nil && st["terminated"] != nil {
				continue // a completed init container stays as it is
			}
			if r, _ := cs["ready"].(bool); r != ready {
				cs["ready"] = ready
				changed = true
			}
		}
	}
	return changed
}

// podFaults applies the pod's faults to the status a resize round is about
// to write. It returns how soon the pod must be looked at again (0: no need).
func (s *Sim) podFaults(key string, annotations map[string]string, p PodState, o Outcome, status map[string]any,
	m *podMemo, now time.Time) time.Duration {
	var wantRestarts map[string]int64
	if a := annotations[restartCountAnnotation]; a != "" {
		var err error
		if wantRestarts, err = ParseRestartCounts(a); err != nil {
			logf("pod %s: warning: %v; ignored", key, err)
		}
	}
	var requeue time.Duration
	for i, c := range p.Containers {
		if !c.Kind.Resizable() {
			continue
		}
		cs := statusEntry(status, statusField(c.Kind), c.Name)
		if cs == nil {
			continue
		}
		f := ContainerFault{Name: c.Name, MemUsage: c.MemUsage, WantRestart: wantRestarts[c.Name]}
		if q, ok := o.Actuated[i].Limits[resMemory]; ok {
			f.MemLimit = q.Value()
		}
		s.mu.Lock()
		f.LastOOM = m.lastOOM[c.Name]
		s.mu.Unlock()
		killed, over := applyContainerFaults(cs, f, now)
		if killed {
			s.mu.Lock()
			if m.lastOOM == nil {
				m.lastOOM = map[string]time.Time{}
			}
			m.lastOOM[c.Name] = now
			s.mu.Unlock()
			logf("pod %s: container %s OOMKilled (usage %d >= limit %d)", key, c.Name, f.MemUsage, f.MemLimit)
		}
		if over {
			requeue = oomBackoff
		}
	}
	// Readiness is touched only for the annotation: set NotReady while it
	// says "false", and undo only what it did (readiness gates keep theirs).
	if annotations[readyAnnotation] == "false" {
		applyReadiness(status, false, now.UTC().Format(timeFormat))
	} else if notReadyByAnnotation(status) {
		applyReadiness(status, true, now.UTC().Format(timeFormat))
	}
	return requeue
}

func notReadyByAnnotation(status map[string]any) bool {
	list, _ := status["conditions"].([]any)
	for _, item := range list {
		if m, ok := item.(map[string]any); ok && m["type"] == "Ready" && m["status"] == "False" {
			msg, _ := m["message"].(string)
			return strings.Contains(msg, readyAnnotation)
		}
	}
	return false
}

// nodePressure is the node's sim.attune.io/pressure, or none when unset or bad.
func nodePressure(name string, annotations map[string]string) map[string]bool {
	p, err := ParsePressure(annotations[pressureAnnotation])
	if err != nil {
		logf("node %s: warning: %v; ignored", name, err)
		return map[string]bool{}
	}
	return p
}

// pressureDiffers: the reported pressure conditions are not what the
// annotation asks for, so the conditions are written now, not at the next beat.
func pressureDiffers(conds []any, pressure map[string]bool) bool {
	for _, t := range pressureTypes {
		want := "False"
		if pressure[t] {
			want = "True"
		}
		found := false
		for _, c := range conds {
			if m, ok := c.(map[string]any); ok && m["type"] == t {
				found = true
				if m["status"] != want {
					return true
				}
			}
		}
		if !found {
			return true
		}
	}
	return false
}
