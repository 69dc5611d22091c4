package main

// The pure part of the simulated kubelet: resource math and the resize
// decision, over plain structs so it can be table-tested without a cluster.

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

const (
	resCPU    = "cpu"
	resMemory = "memory"
)

// ResList holds only cpu and memory: the only resources a resize may change.
type ResList map[string]resource.Quantity

// Resources is a container's (or the pod's) requests and limits.
type Resources struct {
	Requests ResList
	Limits   ResList
}

func (l ResList) equal(o ResList) bool {
	if len(l) != len(o) {
		return false
	}
	for k, v := range l {
		w, ok := o[k]
		if !ok || v.Cmp(w) != 0 {
			return false
		}
	}
	return true
}

func (l ResList) clone() ResList {
	if l == nil {
		return nil
	}
	c := make(ResList, len(l))
	for k, v := range l {
		c[k] = v.DeepCopy()
	}
	return c
}

// Equal compares as Quantities, so "1" and "1000m" are the same.
func (r Resources) Equal(o Resources) bool {
	return r.Requests.equal(o.Requests) && r.Limits.equal(o.Limits)
}

func (r Resources) Clone() Resources {
	return Resources{Requests: r.Requests.clone(), Limits: r.Limits.clone()}
}

// IsZero: nothing set (e.g. BestEffort, or no pod-level resources).
func (r Resources) IsZero() bool { return len(r.Requests) == 0 && len(r.Limits) == 0 }

// withResource returns r with resource name taken from src (set or unset).
func (r Resources) withResource(name string, src Resources) Resources {
	out := r.Clone()
	set := func(dst *ResList, from ResList) {
		if q, ok := from[name]; ok {
			if *dst == nil {
				*dst = ResList{}
			}
			(*dst)[name] = q.DeepCopy()
		} else if *dst != nil {
			delete(*dst, name)
		}
	}
	set(&out.Requests, src.Requests)
	set(&out.Limits, src.Limits)
	return out
}

func (r Resources) changed(name string, o Resources) bool {
	q1, ok1 := r.Requests[name]
	q2, ok2 := o.Requests[name]
	if ok1 != ok2 || (ok1 && q1.Cmp(q2) != 0) {
		return true
	}
	q1, ok1 = r.Limits[name]
	q2, ok2 = o.Limits[name]
	return ok1 != ok2 || (ok1 && q1.Cmp(q2) != 0)
}

// Amount is a cpu/memory pair in kubelet units: millicores and bytes.
type Amount struct {
	MilliCPU int64
	Memory   int64
}

func (a Amount) Add(b Amount) Amount {
	return Amount{a.MilliCPU + b.MilliCPU, a.Memory + b.Memory}
}

func (a Amount) String() string { return fmt.Sprintf("cpu=%dm memory=%d", a.MilliCPU, a.Memory) }

func requestAmount(r Resources) Amount {
	var a Amount
	if q, ok := r.Requests[resCPU]; ok {
		a.MilliCPU = q.MilliValue()
	}
	if q, ok := r.Requests[resMemory]; ok {
		a.Memory = q.Value()
	}
	return a
}

type ContainerKind int

const (
	Regular ContainerKind = iota
	Sidecar               // init container with restartPolicy Always: runs beside the app
	Init                  // classic init container: finished before the app starts
)

// Resizable reports whether a resize may touch this kind of container.
func (k ContainerKind) Resizable() bool { return k == Regular || k == Sidecar }

// ContainerState is one container's three views of its resources, as the
// kubelet keeps them: desired (spec), admitted (allocated), applied (actuated).
type ContainerState struct {
	Name      string
	Kind      ContainerKind
	Spec      Resources
	Allocated Resources
	Actuated  Resources
	// Resize policies: true when a change of that resource restarts the container.
	CPURestart bool
	MemRestart bool
	// MemUsage is the simulated working set, for the memory-decrease check.
	MemUsage int64
}

// PodState is what the decision needs to know about one pod.
type PodState struct {
	Containers   []ContainerState
	PodSpec      Resources // pod-level spec.resources (zero when unset)
	PodAllocated Resources
	PodActuated  Resources
	// InProgressSince is when the current allocation started being applied;
	// zero when nothing is being applied.
	InProgressSince time.Time
}

// EffectiveRequest is the pod's footprint on the node: per resource, the
// larger of Σ(regular + sidecar container requests) and the pod-level request.
func EffectiveRequest(cs []ContainerState, pick func(ContainerState) Resources, pod Resources) Amount {
	var sum Amount
	for _, c := range cs {
		if c.Kind.Resizable() {
			sum = sum.Add(requestAmount(pick(c)))
		}
	}
	p := requestAmount(pod)
	return Amount{max(sum.MilliCPU, p.MilliCPU), max(sum.Memory, p.Memory)}
}

func specOf(c ContainerState) Resources      { return c.Spec }
func allocatedOf(c ContainerState) Resources { return c.Allocated }

// SpecEffective / AllocatedEffective are the pod's desired and admitted footprints.
func (p PodState) SpecEffective() Amount { return EffectiveRequest(p.Containers, specOf, p.PodSpec) }
func (p PodState) AllocatedEffective() Amount {
	return EffectiveRequest(p.Containers, allocatedOf, p.PodAllocated)
}

// NodeRoom: the node's allocatable and what OTHER pods have been allocated.
type NodeRoom struct {
	Allocatable Amount
	Used        Amount
}

const (
	PendingDeferred   = "Deferred"
	PendingInfeasible = "Infeasible"
)

// Outcome is the decision for one pod: its new allocated and actuated
// resources and what to report.
type Outcome struct {
	Allocated       []Resources // indexed like PodState.Containers
	Actuated        []Resources
	PodAllocated    Resources
	PodActuated     Resources
	InProgressSince time.Time

	Pending        string // "", PendingDeferred or PendingInfeasible
	PendingMessage string
	InProgress     bool
	ErrorMessage   string // set with InProgress when a memory decrease was refused

	AllocationChanged bool     // a new resize was admitted this round
	Applied           bool     // something was actuated this round
	Restarted         []string // containers restarted by a RestartContainer policy
	// RequeueAfter > 0: look again then (end of the simulated in-progress delay).
	RequeueAfter time.Duration
}

// Settled: nothing pending, nothing in progress.
func (o Outcome) Settled() bool { return o.Pending == "" && !o.InProgress }

// NeedsAdmission: the desired resources differ from the admitted ones, so
// the node's room matters.
func NeedsAdmission(b Behavior, p PodState) bool {
	if b.PodLevelStatus && !p.PodSpec.Equal(p.PodAllocated) {
		return true
	}
	for _, c := range p.Containers {
		if c.Kind.Resizable() && !c.Spec.Equal(c.Allocated) {
			return true
		}
	}
	return false
}

// Decide runs one kubelet resize round for a running pod, as the kubelet does:
// admit the desired resources if the node has room (allocation), then apply
// the allocation after the in-progress delay (actuation).
func Decide(b Behavior, p PodState, n NodeRoom, now time.Time, delay time.Duration) Outcome {
	o := Outcome{
		PodAllocated:    p.PodAllocated.Clone(),
		PodActuated:     p.PodActuated.Clone(),
		InProgressSince: p.InProgressSince,
	}
	if !b.PodLevelStatus {
		// No pod-level resize before 1.35: the envelope is whatever spec says.
		o.PodAllocated, o.PodActuated = p.PodSpec.Clone(), p.PodSpec.Clone()
	}
	for _, c := range p.Containers {
		o.Allocated = append(o.Allocated, c.Allocated.Clone())
		o.Actuated = append(o.Actuated, c.Actuated.Clone())
	}

	// Allocation: desired differs from admitted.
	if NeedsAdmission(b, p) {
		want := p.SpecEffective()
		a, u := n.Allocatable, n.Used
		switch {
		case want.Memory > a.Memory:
			o.Pending = PendingInfeasible
			o.PendingMessage = fmt.Sprintf("Node didn't have enough capacity: memory, requested: %d, capacity: %d", want.Memory, a.Memory)
		case want.MilliCPU > a.MilliCPU:
			o.Pending = PendingInfeasible
			o.PendingMessage = fmt.Sprintf("Node didn't have enough capacity: cpu, requested: %d, capacity: %d", want.MilliCPU, a.MilliCPU)
		case u.MilliCPU+want.MilliCPU > a.MilliCPU:
			o.Pending = PendingDeferred
			o.PendingMessage = fmt.Sprintf("Node didn't have enough resource: cpu, requested: %d, used: %d, capacity: %d", want.MilliCPU, u.MilliCPU, a.MilliCPU)
		case u.Memory+want.Memory > a.Memory:
			o.Pending = PendingDeferred
			o.PendingMessage = fmt.Sprintf("Node didn't have enough resource: memory, requested: %d, used: %d, capacity: %d", want.Memory, u.Memory, a.Memory)
		default:
			for i, c := range p.Containers {
				if c.Kind.Resizable() {
					o.Allocated[i] = c.Spec.Clone()
				}
			}
			if b.PodLevelStatus {
				o.PodAllocated = p.PodSpec.Clone()
			}
			o.AllocationChanged = true
			o.InProgressSince = now
		}
	}

	// Actuation: admitted differs from applied.
	actDiffers := b.PodLevelStatus && !o.PodAllocated.Equal(o.PodActuated)
	for i, c := range p.Containers {
		if c.Kind.Resizable() && !o.Allocated[i].Equal(o.Actuated[i]) {
			actDiffers = true
		}
	}
	if !actDiffers {
		o.InProgressSince = time.Time{}
		return o
	}
	if o.InProgressSince.IsZero() {
		o.InProgressSince = now // e.g. after a simulator restart
	}
	if waited := now.Sub(o.InProgressSince); waited < delay {
		o.InProgress = true
		o.RequeueAfter = delay - waited
		return o
	}

	var errs []string
	var podUsage int64
	for i, c := range p.Containers {
		if c.Kind != Init {
			podUsage += c.MemUsage
		}
		if !c.Kind.Resizable() || o.Allocated[i].Equal(o.Actuated[i]) {
			continue
		}
		next := o.Allocated[i].Clone()
		memChanged := next.changed(resMemory, o.Actuated[i])
		if b.MemoryDecreaseCheck && !c.MemRestart && memChanged {
			if lim, dec := limitDecrease(o.Actuated[i], next); dec && c.MemUsage >= lim {
				errs = append(errs, fmt.Sprintf("attempting to set container %q memory limit (%d) below current usage (%d)", c.Name, lim, c.MemUsage))
				next = next.withResource(resMemory, o.Actuated[i])
				memChanged = false
			}
		}
		if (c.CPURestart && next.changed(resCPU, o.Actuated[i])) || (c.MemRestart && memChanged) {
			o.Restarted = append(o.Restarted, c.Name)
		}
		if !next.Equal(o.Actuated[i]) {
			o.Applied = true
		}
		o.Actuated[i] = next
	}
	if b.PodLevelStatus && !o.PodAllocated.Equal(o.PodActuated) {
		next := o.PodAllocated.Clone()
		if b.MemoryDecreaseCheck && next.changed(resMemory, o.PodActuated) {
			if lim, dec := limitDecrease(o.PodActuated, next); dec && podUsage >= lim {
				errs = append(errs, fmt.Sprintf("attempting to set pod memory limit (%d) below current usage (%d)", lim, podUsage))
				next = next.withResource(resMemory, o.PodActuated)
			}
		}
		if !next.Equal(o.PodActuated) {
			o.Applied = true
		}
		o.PodActuated = next
	}
	if len(errs) > 0 {
		// Stays in progress; the periodic resync re-checks usage.
		o.InProgress = true
		o.ErrorMessage = "cannot decrease memory limits: " + strings.Join(errs, ", ")
		return o
	}
	o.InProgressSince = time.Time{}
	return o
}

// limitDecrease returns the new memory limit and whether it is lower than
// the applied one (an unset limit counts as unlimited).
func limitDecrease(old, next Resources) (int64, bool) {
	nq, ok := next.Limits[resMemory]
	if !ok {
		return 0, false
	}
	oq, had := old.Limits[resMemory]
	return nq.Value(), !had || nq.Cmp(oq) < 0
}
