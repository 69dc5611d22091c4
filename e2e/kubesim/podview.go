package main

// Reading pods from unstructured JSON and writing their status back. Only
// unstructured maps are used so that one binary works against every minor's
// apiserver, whatever fields its k8s.io/api version has.

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const timeFormat = time.RFC3339

// specContainer is the part of a spec container the simulator uses.
type specContainer struct {
	Name       string
	Image      string
	Kind       ContainerKind
	Resources  Resources
	CPURestart bool
	MemRestart bool
}

func podSpecContainers(pod map[string]any) []specContainer {
	var out []specContainer
	add := func(field string, init bool) {
		list, _, _ := unstructured.NestedSlice(pod, "spec", field)
		for _, item := range list {
			m, ok := item.(map[string]any)
			if !ok {
				continue
			}
			c := specContainer{Kind: Regular}
			c.Name, _, _ = unstructured.NestedString(m, "name")
			c.Image, _, _ = unstructured.NestedString(m, "image")
			if init {
				c.Kind = Init
				if rp, _, _ := unstructured.NestedString(m, "restartPolicy"); rp == "Always" {
					c.Kind = Sidecar
				}
			}
			res, _, _ := unstructured.NestedMap(m, "resources")
			c.Resources = parseResources(res)
			pols, _, _ := unstructured.NestedSlice(m, "resizePolicy")
			for _, p := range pols {
				pm, _ := p.(map[string]any)
				name, _, _ := unstructured.NestedString(pm, "resourceName")
				rp, _, _ := unstructured.NestedString(pm, "restartPolicy")
				if rp == "RestartContainer" {
					switch name {
					case resCPU:
						c.CPURestart = true
					case resMemory:
						c.MemRestart = true
					}
				}
			}
			out = append(out, c)
		}
	}
	add("initContainers", true)
	add("containers", false)
	return out
}

// parseResources reads {requests:{...},limits:{...}}, keeping cpu and memory.
func parseResources(m map[string]any) Resources {
	return Resources{Requests: parseResList(m["requests"]), Limits: parseResList(m["limits"])}
}

func parseResList(v any) ResList {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	var out ResList
	for _, name := range []string{resCPU, resMemory} {
		raw, ok := m[name]
		if !ok {
			continue
		}
		q, err := resource.ParseQuantity(fmt.Sprint(raw))
		if err != nil {
			continue
		}
		if out == nil {
			out = ResList{}
		}
		out[name] = q
	}
	return out
}

func resListToMap(l ResList) map[string]any {
	m := map[string]any{}
	for k, v := range l {
		m[k] = v.String()
	}
	return m
}

// resourcesToMap renders Resources as a ResourceRequirements object.
func resourcesToMap(r Resources) map[string]any {
	m := map[string]any{}
	if len(r.Requests) > 0 {
		m["requests"] = resListToMap(r.Requests)
	}
	if len(r.Limits) > 0 {
		m["limits"] = resListToMap(r.Limits)
	}
	return m
}

// statusEntry finds the container status named name in status[field].
func statusEntry(status map[string]any, field, name string) map[string]any {
	list, _ := status[field].([]any)
	for _, item := range list {
		if m, ok := item.(map[string]any); ok && m["name"] == name {
			return m
		}
	}
	return nil
}

func statusField(k ContainerKind) string {
	if k == Regular {
		return "containerStatuses"
	}
	return "initContainerStatuses"
}

// statusResources reads what a container status says is applied and
// allocated. ok is false when the status carries no resources at all.
func statusResources(cs map[string]any) (actuated, allocated Resources, ok bool) {
	res, hasRes := cs["resources"].(map[string]any)
	if !hasRes {
		return Resources{}, Resources{}, false
	}
	actuated = parseResources(res)
	allocated = Resources{Requests: actuated.Requests.clone(), Limits: actuated.Limits.clone()}
	if _, has := cs["allocatedResources"]; has {
		allocated.Requests = parseResList(cs["allocatedResources"])
	}
	return actuated, allocated, true
}

// setResizeIndicators writes the per-minor resize report into status:
// status.resize on 1.32, PodResizePending / PodResizeInProgress conditions on
// 1.33+, with observedGeneration on 1.34+. An unchanged condition keeps its
// timestamps so an idle resync writes nothing.
func setResizeIndicators(b Behavior, status map[string]any, o Outcome, gen int64, now time.Time) {
	if b.ResizeField {
		switch {
		case o.Pending != "":
			status["resize"] = o.Pending
		case o.InProgress:
			status["resize"] = "InProgress"
		default:
			delete(status, "resize")
		}
	}
	if b.ResizeConditions {
		var pending, progress map[string]any
		if o.Pending != "" {
			pending = resizeCondition(b, "PodResizePending", o.Pending, o.PendingMessage, gen, now)
		}
		if o.InProgress {
			reason := ""
			if o.ErrorMessage != "" {
				reason = "Error"
			}
			progress = resizeCondition(b, "PodResizeInProgress", reason, o.ErrorMessage, gen, now)
		}
		setCondition(status, "PodResizePending", pending)
		setCondition(status, "PodResizeInProgress", progress)
	}
	if b.ObservedGeneration && gen > 0 {
		status["observedGeneration"] = gen
	}
}

func resizeCondition(b Behavior, typ, reason, msg string, gen int64, now time.Time) map[string]any {
	c := map[string]any{
		"type":               typ,
		"status":             "True",
		"lastProbeTime":      now.UTC().Format(timeFormat),
		"lastTransitionTime": now.UTC().Format(timeFormat),
	}
	if reason != "" {
		c["reason"] = reason
	}
	if msg != "" {
		c["message"] = msg
	}
	if b.ObservedGeneration && gen > 0 {
		c["observedGeneration"] = gen
	}
	return c
}

// setCondition replaces, adds (want != nil) or removes (want == nil) the
// condition of type typ. An existing condition with the same reason,
// message and observedGeneration is kept as is.
func setCondition(status map[string]any, typ string, want map[string]any) {
	list, _ := status["conditions"].([]any)
	out := make([]any, 0, len(list)+1)
	found := false
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok || m["type"] != typ {
			out = append(out, item)
			continue
		}
		found = true
		if want == nil {
			continue
		}
		if sameCondition(m, want) {
			out = append(out, m)
		} else {
			if m["reason"] == want["reason"] && m["status"] == want["status"] {
				want["lastTransitionTime"] = m["lastTransitionTime"]
			}
			out = append(out, want)
		}
	}
	if !found && want != nil {
		out = append(out, want)
	}
	if len(out) == 0 {
		delete(status, "conditions")
		return
	}
	status["conditions"] = out
}

func sameCondition(a, b map[string]any) bool {
	for _, k := range []string{"status", "reason", "message"} {
		if fmt.Sprint(a[k]) != fmt.Sprint(b[k]) {
			return false
		}
	}
	// JSON numbers may arrive as int64 or float64: compare printed.
	return fmt.Sprint(a["observedGeneration"]) == fmt.Sprint(b["observedGeneration"])
}
