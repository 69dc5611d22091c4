package main

import (
	"reflect"
	"testing"
	"time"
)

func conditionsByType(status map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	list, _ := status["conditions"].([]any)
	for _, c := range list {
		m := c.(map[string]any)
		out[m["type"].(string)] = m
	}
	return out
}

func TestResizeIndicatorShapes(t *testing.T) {
	now := time.Unix(1000, 0)
	deferred := Outcome{Pending: PendingDeferred, PendingMessage: "no room"}
	progress := Outcome{InProgress: true}
	errored := Outcome{InProgress: true, ErrorMessage: "cannot decrease memory limits: x"}
	done := Outcome{}

	t.Run("1.32 uses status.resize", func(t *testing.T) {
		b := mustBehavior(t, 32)
		st := map[string]any{"resize": "Proposed"}
		for _, c := range []struct {
			o    Outcome
			want any
		}{{deferred, "Deferred"}, {Outcome{Pending: PendingInfeasible}, "Infeasible"}, {progress, "InProgress"}, {done, nil}} {
			setResizeIndicators(b, st, c.o, 7, now)
			if st["resize"] != c.want && !(c.want == nil && st["resize"] == nil) {
				t.Fatalf("resize = %v, want %v", st["resize"], c.want)
			}
			if _, has := st["conditions"]; has {
				t.Fatal("1.32 must not set resize conditions")
			}
			if _, has := st["observedGeneration"]; has {
				t.Fatal("1.32 has no observedGeneration")
			}
		}
		if _, has := st["resize"]; has {
			t.Fatal("a finished resize must clear status.resize")
		}
	})

	t.Run("1.33 conditions without observedGeneration", func(t *testing.T) {
		b := mustBehavior(t, 33)
		st := map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
		setResizeIndicators(b, st, deferred, 7, now)
		c := conditionsByType(st)
		p := c["PodResizePending"]
		if p == nil || p["status"] != "True" || p["reason"] != "Deferred" || p["message"] != "no room" {
			t.Fatalf("pending: %v", p)
		}
		if _, has := p["observedGeneration"]; has {
			t.Fatal("1.33 kubelet does not fill observedGeneration")
		}
		if _, has := st["resize"]; has {
			t.Fatal("1.33 must not set status.resize")
		}
		if c["Ready"] == nil {
			t.Fatal("other conditions must stay")
		}
		setResizeIndicators(b, st, progress, 7, now)
		c = conditionsByType(st)
		if c["PodResizePending"] != nil || c["PodResizeInProgress"] == nil {
			t.Fatalf("want only in-progress: %v", st["conditions"])
		}
		if _, has := c["PodResizeInProgress"]["reason"]; has {
			t.Fatal("in-progress has an empty reason")
		}
		setResizeIndicators(b, st, done, 7, now)
		c = conditionsByType(st)
		if len(c) != 1 || c["Ready"] == nil {
			t.Fatalf("done must remove both: %v", st["conditions"])
		}
	})

	t.Run("1.34 observedGeneration and Error", func(t *testing.T) {
		b := mustBehavior(t, 34)
		st := map[string]any{}
		setResizeIndicators(b, st, errored, 7, now)
		c := conditionsByType(st)["PodResizeInProgress"]
		if c["reason"] != "Error" || c["message"] != "cannot decrease memory limits: x" || c["observedGeneration"] != int64(7) {
			t.Fatalf("in-progress error: %v", c)
		}
		if st["observedGeneration"] != int64(7) {
			t.Fatalf("status.observedGeneration = %v", st["observedGeneration"])
		}
		// Both conditions at once: a pending resize on top of one being applied.
		setResizeIndicators(b, st, Outcome{Pending: PendingDeferred, InProgress: true}, 8, now)
		c2 := conditionsByType(st)
		if c2["PodResizePending"]["observedGeneration"] != int64(8) || c2["PodResizeInProgress"] == nil {
			t.Fatalf("both: %v", st["conditions"])
		}
	})

	t.Run("unchanged condition keeps its timestamps", func(t *testing.T) {
		b := mustBehavior(t, 36)
		st := map[string]any{}
		setResizeIndicators(b, st, deferred, 3, now)
		before := conditionsByType(st)["PodResizePending"]
		setResizeIndicators(b, st, deferred, 3, now.Add(time.Hour))
		after := conditionsByType(st)["PodResizePending"]
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("changed: %v -> %v", before, after)
		}
	})
}

func TestStatusResourcesParsing(t *testing.T) {
	cs := map[string]any{
		"name":               "app",
		"resources":          map[string]any{"requests": map[string]any{"cpu": "500m", "memory": "1Gi", "nvidia.com/gpu": "1"}, "limits": map[string]any{"cpu": "1"}},
		"allocatedResources": map[string]any{"cpu": "250m"},
	}
	act, alloc, ok := statusResources(cs)
	if !ok || !act.Equal(res("500m", "1Gi", "1", "")) || !alloc.Equal(res("250m", "", "1", "")) {
		t.Fatalf("act %v alloc %v ok %v", act, alloc, ok)
	}
	if _, _, ok := statusResources(map[string]any{"name": "x"}); ok {
		t.Fatal("no resources must report !ok")
	}
	// Round trip through the map form keeps Quantity equality.
	r := res("1500m", "128Mi", "2", "256Mi")
	if got := parseResources(resourcesToMap(r)); !got.Equal(r) {
		t.Fatalf("round trip: %v", got)
	}
}

func TestNodeConditionsHeartbeat(t *testing.T) {
	t0 := time.Unix(1000, 0)
	first := nodeConditions(nil, t0, nil)
	second := nodeConditions(first, t0.Add(10*time.Second), nil)
	for i, c := range second {
		m, p := c.(map[string]any), first[i].(map[string]any)
		if m["lastHeartbeatTime"] == p["lastHeartbeatTime"] {
			t.Fatalf("%v: heartbeat not refreshed", m["type"])
		}
		if m["lastTransitionTime"] != p["lastTransitionTime"] {
			t.Fatalf("%v: transition time moved without a status change", m["type"])
		}
	}
	ready := second[3].(map[string]any)
	if ready["type"] != "Ready" || ready["status"] != "True" {
		t.Fatalf("ready: %v", ready)
	}
}

func TestNeedsAdmission(t *testing.T) {
	cur, want := res("1", "1Gi", "", ""), res("2", "1Gi", "", "")
	b36, b34 := mustBehavior(t, 36), mustBehavior(t, 34)
	if NeedsAdmission(b36, running(cur, cur)) {
		t.Fatal("equal spec and allocation need nothing")
	}
	if !NeedsAdmission(b36, running(cur, want)) {
		t.Fatal("a changed container needs admission")
	}
	pl := PodState{PodSpec: want, PodAllocated: cur}
	if !NeedsAdmission(b36, pl) || NeedsAdmission(b34, pl) {
		t.Fatal("pod-level changes count from 1.35 only")
	}
	initOnly := PodState{Containers: []ContainerState{{Name: "i", Kind: Init, Spec: want, Allocated: cur}}}
	if NeedsAdmission(b36, initOnly) {
		t.Fatal("classic init containers are not resized")
	}
}
