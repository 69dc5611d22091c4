package main

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

func res(reqCPU, reqMem, limCPU, limMem string) Resources {
	l := func(cpu, mem string) ResList {
		out := ResList{}
		if cpu != "" {
			out[resCPU] = resource.MustParse(cpu)
		}
		if mem != "" {
			out[resMemory] = resource.MustParse(mem)
		}
		if len(out) == 0 {
			return nil
		}
		return out
	}
	return Resources{Requests: l(reqCPU, reqMem), Limits: l(limCPU, limMem)}
}

func mustBehavior(t *testing.T, minor int) Behavior {
	t.Helper()
	b, err := BehaviorFor(minor)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestEffectiveRequest(t *testing.T) {
	cs := []ContainerState{
		{Name: "app", Kind: Regular, Spec: res("500m", "256Mi", "", "")},
		{Name: "side", Kind: Sidecar, Spec: res("250m", "64Mi", "", "")},
		{Name: "init", Kind: Init, Spec: res("3", "8Gi", "", "")}, // done before the app: not counted
	}
	tests := []struct {
		name string
		pod  Resources
		want Amount
	}{
		{"containers only", Resources{}, Amount{750, 320 << 20}},
		{"pod level larger cpu", res("2", "", "", ""), Amount{2000, 320 << 20}},
		{"pod level larger both", res("1", "1Gi", "", ""), Amount{1000, 1 << 30}},
		{"pod level smaller", res("100m", "1Mi", "", ""), Amount{750, 320 << 20}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EffectiveRequest(cs, specOf, tt.pod); got != tt.want {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// running: a pod whose spec, allocation and applied resources all equal cur,
// with its spec then changed to want.
func running(cur, want Resources) PodState {
	return PodState{Containers: []ContainerState{{
		Name: "app", Kind: Regular, Spec: want, Allocated: cur.Clone(), Actuated: cur.Clone(),
	}}}
}

func TestDecideAdmission(t *testing.T) {
	node := Amount{4000, 16 << 30}
	now := time.Unix(1000, 0)
	small, big := res("500m", "1Gi", "500m", "1Gi"), res("2", "2Gi", "2", "2Gi")
	tests := []struct {
		name        string
		pod         PodState
		used        Amount
		wantPending string
		wantMsg     string
		wantAlloc   Resources
		wantInProg  bool
	}{
		{"fits", running(small, big), Amount{1000, 1 << 30}, "", "", big, true},
		{"fits exactly", running(small, big), Amount{2000, 14 << 30}, "", "", big, true},
		{"deferred cpu", running(small, big), Amount{3000, 0}, PendingDeferred,
			"Node didn't have enough resource: cpu, requested: 2000, used: 3000, capacity: 4000", small, false},
		{"deferred memory", running(small, big), Amount{0, 15 << 30}, PendingDeferred,
			"Node didn't have enough resource: memory", small, false},
		{"infeasible cpu even on an empty node", running(small, res("5", "1Gi", "5", "1Gi")), Amount{}, PendingInfeasible,
			"Node didn't have enough capacity: cpu, requested: 5000, capacity: 4000", small, false},
		{"infeasible memory", running(small, res("500m", "17Gi", "500m", "17Gi")), Amount{}, PendingInfeasible,
			"Node didn't have enough capacity: memory", small, false},
		{"limits only: no room needed", running(small, res("500m", "1Gi", "1", "1Gi")), Amount{3500, 15 << 30}, "", "",
			res("500m", "1Gi", "1", "1Gi"), true},
		{"nothing to do", running(small, small), Amount{4000, 16 << 30}, "", "", small, false},
	}
	for _, minor := range []int{32, 33, 34, 36} {
		b := mustBehavior(t, minor)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				o := Decide(b, tt.pod, NodeRoom{node, tt.used}, now, time.Second)
				if o.Pending != tt.wantPending || !strings.HasPrefix(o.PendingMessage, tt.wantMsg) {
					t.Fatalf("1.%d: pending %q %q, want %q %q", minor, o.Pending, o.PendingMessage, tt.wantPending, tt.wantMsg)
				}
				if !o.Allocated[0].Equal(tt.wantAlloc) {
					t.Fatalf("1.%d: allocated %v, want %v", minor, o.Allocated[0], tt.wantAlloc)
				}
				if o.InProgress != tt.wantInProg {
					t.Fatalf("1.%d: inProgress %v, want %v", minor, o.InProgress, tt.wantInProg)
				}
				if o.Applied {
					t.Fatalf("1.%d: applied before the delay", minor)
				}
			})
		}
	}
}

func TestDecideAppliesAfterDelay(t *testing.T) {
	b := mustBehavior(t, 36)
	small, big := res("500m", "1Gi", "500m", "1Gi"), res("1", "2Gi", "1", "2Gi")
	t0 := time.Unix(1000, 0)
	room := NodeRoom{Allocatable: Amount{4000, 16 << 30}}

	o := Decide(b, running(small, big), room, t0, 500*time.Millisecond)
	if !o.AllocationChanged || !o.InProgress || o.RequeueAfter != 500*time.Millisecond {
		t.Fatalf("round 1: %+v", o)
	}
	// The next round, before the delay: still in progress, nothing applied.
	p := running(small, big)
	p.Containers[0].Allocated = o.Allocated[0]
	p.InProgressSince = o.InProgressSince
	o2 := Decide(b, p, room, t0.Add(200*time.Millisecond), 500*time.Millisecond)
	if !o2.InProgress || o2.Applied || o2.RequeueAfter != 300*time.Millisecond {
		t.Fatalf("round 2: %+v", o2)
	}
	o3 := Decide(b, p, room, t0.Add(600*time.Millisecond), 500*time.Millisecond)
	if !o3.Settled() || !o3.Applied || !o3.Actuated[0].Equal(big) || !o3.InProgressSince.IsZero() {
		t.Fatalf("round 3: %+v", o3)
	}
}

func TestDecideMemoryDecrease(t *testing.T) {
	cur, want := res("500m", "1Gi", "1", "1Gi"), res("250m", "512Mi", "500m", "512Mi")
	room := NodeRoom{Allocatable: Amount{4000, 16 << 30}}
	now := time.Unix(1000, 0)
	tests := []struct {
		name      string
		minor     int
		usage     int64
		restart   bool
		wantError bool
	}{
		{"1.34 usage above new limit", 34, 700 << 20, false, true},
		{"1.34 usage equal to new limit", 34, 512 << 20, false, true},
		{"1.34 usage below new limit", 34, 100 << 20, false, false},
		{"1.36 usage above new limit", 36, 700 << 20, false, true},
		{"1.34 RestartContainer skips the check", 34, 700 << 20, true, false},
		{"1.32 has no check", 32, 700 << 20, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustBehavior(t, tt.minor)
			p := running(cur, want)
			p.Containers[0].Allocated = want.Clone() // already admitted
			p.Containers[0].MemUsage = tt.usage
			p.Containers[0].MemRestart = tt.restart
			p.InProgressSince = now.Add(-time.Minute)
			o := Decide(b, p, room, now, 0)
			if tt.wantError {
				if !o.InProgress || !strings.Contains(o.ErrorMessage, `container "app" memory limit (536870912) below current usage`) {
					t.Fatalf("want in-progress error, got %+v", o)
				}
				// The cpu part is applied, the memory part is not.
				wantAct := res("250m", "1Gi", "500m", "1Gi")
				if !o.Actuated[0].Equal(wantAct) {
					t.Fatalf("actuated %v, want %v", o.Actuated[0], wantAct)
				}
				if o.InProgressSince.IsZero() {
					t.Fatal("an errored resize must stay in progress")
				}
				return
			}
			if !o.Settled() || !o.Actuated[0].Equal(want) {
				t.Fatalf("want applied, got %+v", o)
			}
			if tt.restart && (len(o.Restarted) != 1 || o.Restarted[0] != "app") {
				t.Fatalf("want a restart of app, got %v", o.Restarted)
			}
		})
	}
}

func TestDecidePodLevel(t *testing.T) {
	room := NodeRoom{Allocatable: Amount{4000, 16 << 30}, Used: Amount{1000, 0}}
	now := time.Unix(1000, 0)
	cur, want := res("1", "1Gi", "2", "2Gi"), res("2", "1Gi", "2", "2Gi")
	mk := func() PodState {
		return PodState{
			Containers: []ContainerState{{Name: "app", Kind: Regular,
				Spec: res("500m", "", "", ""), Allocated: res("500m", "", "", ""), Actuated: res("500m", "", "", "")}},
			PodSpec: want, PodAllocated: cur, PodActuated: cur,
		}
	}
	// 1.35+: the envelope is resized like a container.
	o := Decide(mustBehavior(t, 36), mk(), room, now, 0)
	if !o.Settled() || !o.PodActuated.Equal(want) || !o.PodAllocated.Equal(want) {
		t.Fatalf("1.36: %+v", o)
	}
	// Pod-level growth that does not fit is deferred.
	tight := room
	tight.Used = Amount{2500, 0}
	if o := Decide(mustBehavior(t, 36), mk(), tight, now, 0); o.Pending != PendingDeferred {
		t.Fatalf("1.36 tight: %+v", o)
	}
	// Before 1.35 there is no pod-level resize: nothing to do.
	if o := Decide(mustBehavior(t, 34), mk(), room, now, 0); !o.Settled() || o.Applied || o.AllocationChanged {
		t.Fatalf("1.34: %+v", o)
	}
}

func TestDecideSidecarCountsAndResizes(t *testing.T) {
	room := NodeRoom{Allocatable: Amount{1000, 16 << 30}}
	p := PodState{Containers: []ContainerState{
		{Name: "app", Kind: Regular, Spec: res("500m", "", "", ""), Allocated: res("500m", "", "", ""), Actuated: res("500m", "", "", "")},
		{Name: "side", Kind: Sidecar, Spec: res("600m", "", "", ""), Allocated: res("100m", "", "", ""), Actuated: res("100m", "", "", "")},
	}}
	o := Decide(mustBehavior(t, 36), p, room, time.Unix(0, 0), 0)
	if o.Pending != PendingInfeasible {
		t.Fatalf("500m+600m on a 1-cpu node should be infeasible: %+v", o)
	}
}

func TestBehaviorAndFlags(t *testing.T) {
	if _, err := BehaviorFor(31); err == nil {
		t.Fatal("1.31 should be rejected")
	}
	if _, err := BehaviorFor(38); err == nil {
		t.Fatal("1.38 should be rejected")
	}
	for in, want := range map[string]int{"1.36": 36, "36": 36, "36+": 36, "v1.32.13": 32} {
		if got, err := ParseMinor(in); err != nil || got != want {
			t.Fatalf("ParseMinor(%q) = %d, %v", in, got, err)
		}
	}
	if _, err := ParseMinor("one"); err == nil {
		t.Fatal("ParseMinor(one) should fail")
	}
	cases := []struct {
		minor int
		flag  string
		want  []string
		isNil bool
	}{
		{32, "auto", nil, true},
		{35, "auto", nil, true},
		{36, "auto", []string{"InPlacePodLevelResourcesVerticalScaling"}, false},
		{37, "auto", []string{"InPlacePodLevelResourcesVerticalScaling"}, false},
		{36, "none", []string{}, false},
		{36, "A, B", []string{"A", "B"}, false},
	}
	for _, c := range cases {
		got, err := DeclaredFeatures(mustBehavior(t, c.minor), c.flag)
		if err != nil || (got == nil) != c.isNil || strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Fatalf("1.%d %q: got %#v, %v", c.minor, c.flag, got, err)
		}
	}
	if _, err := DeclaredFeatures(mustBehavior(t, 36), "A,,B"); err == nil {
		t.Fatal("an empty name should be rejected")
	}
}
