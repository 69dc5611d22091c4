package main

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

func TestOOMKillWhenUsageReachesTheLimitWithBackoff(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	cs := map[string]any{"name": "app", "restartCount": int64(0),
		"state": map[string]any{"running": map[string]any{"startedAt": "2026-12-01T09:00:00Z"}}}
	f := ContainerFault{Name: "app", MemUsage: 300 << 20, MemLimit: 256 << 20}
	killed, over := applyContainerFaults(cs, f, now)
	if !killed || !over {
		t.Fatalf("want an OOM kill over the limit, got killed=%v over=%v", killed, over)
	}
	if restartCount(cs) != 1 {
		t.Fatalf("restartCount = %d, want 1", restartCount(cs))
	}
	term := cs["lastState"].(map[string]any)["terminated"].(map[string]any)
	if term["reason"] != "OOMKilled" || term["exitCode"] != int64(137) || term["finishedAt"] != "2026-12-01T10:00:00Z" ||
		term["startedAt"] != "2026-12-01T09:00:00Z" {
		t.Fatalf("lastState.terminated = %v", term)
	}
	// Within the backoff: not killed again, still over.
	f.LastOOM = now
	if killed, over = applyContainerFaults(cs, f, now.Add(5*time.Second)); killed || !over {
		t.Fatalf("killed again within the backoff (killed=%v over=%v)", killed, over)
	}
	if killed, _ = applyContainerFaults(cs, f, now.Add(oomBackoff)); !killed || restartCount(cs) != 2 {
		t.Fatalf("not killed again after the backoff (restartCount %d)", restartCount(cs))
	}
	// Under the limit, or no limit at all: never.
	for _, g := range []ContainerFault{{MemUsage: 100 << 20, MemLimit: 256 << 20}, {MemUsage: 1 << 40}} {
		if killed, over := applyContainerFaults(cs, g, now.Add(time.Hour)); killed || over {
			t.Fatalf("%+v: killed=%v over=%v", g, killed, over)
		}
	}
}

func TestInjectedRestartsRaiseRestartCountOnce(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	cs := map[string]any{"name": "app", "restartCount": float64(1)}
	applyContainerFaults(cs, ContainerFault{WantRestart: 3}, now)
	if restartCount(cs) != 3 {
		t.Fatalf("restartCount = %d, want 3", restartCount(cs))
	}
	if r := cs["lastState"].(map[string]any)["terminated"].(map[string]any)["reason"]; r != "Error" {
		t.Fatalf("reason = %v", r)
	}
	applyContainerFaults(cs, ContainerFault{WantRestart: 3}, now.Add(time.Minute)) // idempotent
	if restartCount(cs) != 3 {
		t.Fatalf("restartCount = %d after a second sync, want 3", restartCount(cs))
	}
}

func TestReadinessFollowsTheAnnotation(t *testing.T) {
	status := map[string]any{
		"conditions": []any{map[string]any{"type": "Ready", "status": "True", "lastTransitionTime": "t0"}},
		"containerStatuses": []any{map[string]any{"name": "app", "ready": true,
			"state": map[string]any{"running": map[string]any{}}}},
		"initContainerStatuses": []any{map[string]any{"name": "init", "ready": true,
			"state": map[string]any{"terminated": map[string]any{"reason": "Completed"}}}},
	}
	if !applyReadiness(status, false, "t1") {
		t.Fatal("NotReady changed nothing")
	}
	conds := status["conditions"].([]any)
	if c := conds[0].(map[string]any); c["status"] != "False" || c["reason"] != "ContainersNotReady" || c["lastTransitionTime"] != "t1" {
		t.Fatalf("Ready = %v", c)
	}
	if status["containerStatuses"].([]any)[0].(map[string]any)["ready"] != false {
		t.Fatal("container still ready")
	}
	if status["initContainerStatuses"].([]any)[0].(map[string]any)["ready"] != true {
		t.Fatal("a completed init container was touched")
	}
	if applyReadiness(status, false, "t2") {
		t.Fatal("a second NotReady round changed something")
	}
	if !notReadyByAnnotation(status) {
		t.Fatal("the NotReady we set is not recognised as ours")
	}
	if !applyReadiness(status, true, "t3") {
		t.Fatal("back to ready changed nothing")
	}
	// A readiness gate's NotReady is not ours to undo.
	gated := map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "False",
		"reason": "ReadinessGatesNotReady", "message": "corresponding condition of pod readiness gate"}}}
	if notReadyByAnnotation(gated) {
		t.Fatal("a readiness gate's NotReady was taken for ours")
	}
}

func TestPressureAnnotationAndConditions(t *testing.T) {
	p, err := ParsePressure("MemoryPressure, DiskPressure")
	if err != nil || !p["MemoryPressure"] || !p["DiskPressure"] || p["PIDPressure"] {
		t.Fatalf("ParsePressure = %v, %v", p, err)
	}
	if _, err := ParsePressure("CPUPressure"); err == nil {
		t.Fatal("an unknown condition was accepted")
	}
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	conds := nodeConditions(nil, now, p)
	got := map[string]string{}
	for _, c := range conds {
		m := c.(map[string]any)
		got[m["type"].(string)] = m["status"].(string)
	}
	if got["MemoryPressure"] != "True" || got["DiskPressure"] != "True" || got["PIDPressure"] != "False" || got["Ready"] != "True" {
		t.Fatalf("conditions = %v", got)
	}
	if pressureDiffers(conds, p) {
		t.Fatal("conditions that match the annotation differ")
	}
	if !pressureDiffers(conds, map[string]bool{}) {
		t.Fatal("clearing the annotation does not show as a difference")
	}
	// The heartbeat keeps pressure across refreshes (kubesim's 10 s refresh
	// must not overwrite what the test set).
	again := nodeConditions(conds, now.Add(10*time.Second), p)
	if again[0].(map[string]any)["status"] != "True" || again[0].(map[string]any)["lastTransitionTime"] != now.Format(timeFormat) {
		t.Fatalf("refresh lost the pressure or its transition time: %v", again[0])
	}
}

func TestRestartAnnotationParsing(t *testing.T) {
	if m, err := ParseRestartCounts(`{"app": 2, "side": 0}`); err != nil || m["app"] != 2 {
		t.Fatalf("%v %v", m, err)
	}
	for _, bad := range []string{`{"app": -1}`, `app=2`, `{"app": "two"}`} {
		if _, err := ParseRestartCounts(bad); err == nil {
			t.Fatalf("%s accepted", bad)
		}
	}
}

func TestKubeletAllocatableNarrowsTheNodesRoom(t *testing.T) {
	node := Amount{4000, 16 << 30}
	cases := []struct {
		name string
		ann  map[string]string
		want Amount
	}{
		{"no annotation: the Node's allocatable", nil, node},
		{"cpu only", map[string]string{kubeletAllocatableAnno: `{"cpu": "1500m"}`}, Amount{1500, 16 << 30}},
		{"both", map[string]string{kubeletAllocatableAnno: `{"cpu": "1", "memory": "1Gi"}`}, Amount{1000, 1 << 30}},
		{"never wider than the Node", map[string]string{kubeletAllocatableAnno: `{"cpu": "8"}`}, node},
		{"a bad annotation is ignored", map[string]string{kubeletAllocatableAnno: `{"gpu": "1"}`}, node},
		{"not JSON is ignored", map[string]string{kubeletAllocatableAnno: `1`}, node},
	}
	for _, c := range cases {
		if got := kubeletAllocatable("n", c.ann, node); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	// What the decision then says for a resize that fits the Node but not the kubelet.
	b, _ := BehaviorFor(36)
	p := PodState{Containers: []ContainerState{{Name: "app", Kind: Regular,
		Spec:      Resources{Requests: ResList{resCPU: resource.MustParse("800m")}},
		Allocated: Resources{Requests: ResList{resCPU: resource.MustParse("500m")}},
		Actuated:  Resources{Requests: ResList{resCPU: resource.MustParse("500m")}}}}}
	room := NodeRoom{Allocatable: kubeletAllocatable("n", map[string]string{kubeletAllocatableAnno: `{"cpu": "1"}`}, node), Used: Amount{500, 0}}
	if o := Decide(b, p, room, time.Now(), time.Second); o.Pending != PendingDeferred {
		t.Errorf("fits the Node, not the kubelet: got %q, want Deferred", o.Pending)
	}
	room.Allocatable = kubeletAllocatable("n", map[string]string{kubeletAllocatableAnno: `{"cpu": "700m"}`}, node)
	if o := Decide(b, p, room, time.Now(), time.Second); o.Pending != PendingInfeasible {
		t.Errorf("larger than the kubelet's room on its own: got %q, want Infeasible", o.Pending)
	}
}
