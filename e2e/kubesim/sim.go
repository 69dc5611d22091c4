package main

import (
	"context"
	"fmt"
	"hash/fnv"
	"log"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

var (
	podGVR   = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	nodeGVR  = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	leaseGVR = schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}
)

const (
	simLabel     = "attune.io/kubesim"
	apiTimeout   = 10 * time.Second
	heartbeat    = 10 * time.Second
	nodeIndex    = "node"
)

// Config is the validated command line.
type Config struct {
	Nodes            int
	NodeCPU          resource.Quantity
	NodeMemory       resource.Quantity
	NodePods         int64
	DeclaredFeatures []string // nil: leave the field unset
	ResizeDelay      time.Duration
	Resync           time.Duration // unfinished resizes retried this often
	FullResync       time.Duration // every pod re-checked this often; 0: never
	PodWorkers       int
	GitVersion       string
}

// podMemo is what the simulated kubelet remembers about a pod, like the
// real kubelet's allocation checkpoint. It wins over the (possibly stale)
// informer cache.
type podMemo struct {
	uid             types.UID
	node            string
	allocated       map[string]Resources // by container name
	podAllocated    Resources
	podActuated     Resources
	hasPodActuated  bool
	inProgressSince time.Time
	deferred        bool
	settled         bool // running, no resize pending or in progress
	// writtenFrom/written: the resourceVersion our last status write was
	// based on, and the object the server returned. While the cache still
	// shows writtenFrom, written is the truth.
	writtenFrom string
	written     *unstructured.Unstructured
	loadWarned  string
	lastOOM     map[string]time.Time // by container: when faults.go last OOM-killed it
}

// Sim is the simulated kubelet for every node labelled attune.io/kubesim=true.
type Sim struct {
	b       Behavior
	cfg     Config
	dyn     dynamic.Interface
	pods    cache.SharedIndexInformer
	nodes   cache.SharedIndexInformer
	podQ    workqueue.TypedRateLimitingInterface[string]
	nodeQ   workqueue.TypedRateLimitingInterface[string]
	metrics *Metrics

	mu       sync.Mutex
	memo     map[string]*podMemo // by namespace/name
	lastBeat map[string]time.Time
	// Fields this apiserver drops on write (a gate is off); not written
	// again, so an idle resync never rewrites status.
	dropped map[string]bool
}

func apiCtx(parent context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(parent, apiTimeout)
}

func hash32(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// fakePodIP is stable per pod UID, in 10.64.0.0/10 (clear of the service range).
func fakePodIP(uid types.UID) string {
	h := hash32(string(uid))
	return fmt.Sprintf("10.%d.%d.%d", 64+(h%64), (h>>8)&255, 1+(h>>16)%253)
}

func fakeNodeIP(name string) string {
	h := hash32(name)
	return fmt.Sprintf("172.%d.%d.%d", 16+(h%16), (h>>8)&255, 1+(h>>16)%253)
}

func (s *Sim) isOurNode(name string) bool {
	if name == "" {
		return false
	}
	_, ok, _ := s.nodes.GetIndexer().GetByKey(name)
	return ok
}

func (s *Sim) dropsField(f string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dropped[f]
}

func (s *Sim) markDropped(f string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.dropped[f] {
		s.dropped[f] = true
		log.Printf("note: the apiserver drops %s (its feature gate is off); not writing it again", f)
	}
}

func logf(format string, args ...any) { log.Printf(format, args...) }
