// Command kubesim is the simulated kubelet for Attune's e2e clusters: it
// registers nodes against a real kube-apiserver, runs the pods the real
// scheduler binds to them, handles in-place resizes with each minor's
// semantics (docs/local-control-plane.md), and serves cAdvisor-style
// usage metrics driven by the sim.attune.io/load pod annotation.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/workqueue"
)

func main() {
	log.SetFlags(log.Ldate | log.Ltime | log.Lmicroseconds | log.LUTC)
	log.SetPrefix("kubesim: ")
	if err := run(); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "kubesim: error:", err)
		os.Exit(1)
	}
}

func run() error {
	fs := flag.NewFlagSet("kubesim", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the cluster (required)")
	minorFlag := fs.String("minor", "", "Kubernetes minor whose kubelet to imitate, e.g. 1.36 (default: the server's /version)")
	nodes := fs.Int("nodes", 3, "number of nodes sim-node-0..N-1 to create")
	nodeCPU := fs.String("node-cpu", "4", "cpu capacity of each created node")
	nodeMem := fs.String("node-memory", "16Gi", "memory capacity of each created node")
	nodePods := fs.Int64("node-pods", 110, "pod capacity of each created node")
	declared := fs.String("declared-features", "auto", "node status.declaredFeatures: auto, none, or a comma-separated list")
	metricsAddr := fs.String("metrics-addr", "", "serve /metrics (and /healthz) on this host:port; empty: off")
	resizeDelay := fs.Duration("resize-delay", 500*time.Millisecond, "how long an admitted resize stays in progress")
	resync := fs.Duration("resync", 2*time.Second, "how often pods with an unfinished resize are retried")
	fullResyncFlag := fs.Duration("full-resync", 30*time.Second, "how often every pod is re-checked as a safety net; 0: never")
	kubeQPS := fs.Float64("kube-qps", 50, "client-side QPS towards the apiserver (burst is twice this)")
	podWorkers := fs.Int("pod-workers", 1, "pods synced in parallel (more only for benchmarks: two resizes on one node are then admitted concurrently)")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *kubeconfig == "" {
		return errors.New("--kubeconfig is required")
	}
	if *nodes < 0 {
		return fmt.Errorf("--nodes must be >= 0, got %d", *nodes)
	}
	if *nodePods <= 0 {
		return fmt.Errorf("--node-pods must be > 0, got %d", *nodePods)
	}
	if *resizeDelay < 0 {
		return fmt.Errorf("--resize-delay must be >= 0, got %v", *resizeDelay)
	}
	if *resync <= 0 {
		return fmt.Errorf("--resync must be > 0, got %v", *resync)
	}
	if *fullResyncFlag < 0 {
		return fmt.Errorf("--full-resync must be >= 0, got %v", *fullResyncFlag)
	}
	if *podWorkers < 1 {
		return fmt.Errorf("--pod-workers must be >= 1, got %d", *podWorkers)
	}
	if *kubeQPS <= 0 {
		return fmt.Errorf("--kube-qps must be > 0, got %v", *kubeQPS)
	}
	cfg := Config{Nodes: *nodes, NodePods: *nodePods, ResizeDelay: *resizeDelay, Resync: *resync, FullResync: *fullResyncFlag, PodWorkers: *podWorkers}
	var err error
	if cfg.NodeCPU, err = positiveQuantity("--node-cpu", *nodeCPU); err != nil {
		return err
	}
	if cfg.NodeMemory, err = positiveQuantity("--node-memory", *nodeMem); err != nil {
		return err
	}

	// Validate a given --minor before touching the kubeconfig or server.
	var b Behavior
	if *minorFlag != "" {
		m, err := ParseMinor(*minorFlag)
		if err != nil {
			return err
		}
		if b, err = BehaviorFor(m); err != nil {
			return err
		}
	}

	rc, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		return fmt.Errorf("kubeconfig %s: %w", *kubeconfig, err)
	}
	rc.QPS, rc.Burst, rc.UserAgent = float32(*kubeQPS), int(2**kubeQPS), "kubesim"
	rc.Timeout = 30 * time.Second // per request, on top of the context timeouts

	disc, err := discovery.NewDiscoveryClientForConfig(rc)
	if err != nil {
		return err
	}
	ver, err := disc.ServerVersion()
	if err != nil {
		return fmt.Errorf("read /version: %w", err)
	}
	cfg.GitVersion = ver.GitVersion
	serverMinor, perr := ParseMinor(ver.Minor)
	if *minorFlag == "" {
		if perr != nil {
			return fmt.Errorf("server /version minor %q: %w (pass --minor)", ver.Minor, perr)
		}
		if b, err = BehaviorFor(serverMinor); err != nil {
			return fmt.Errorf("server is %s: %w", ver.GitVersion, err)
		}
	} else if perr == nil && serverMinor != b.Minor {
		log.Printf("warning: --minor 1.%d but the server is %s; imitating 1.%d", b.Minor, ver.GitVersion, b.Minor)
	}
	if cfg.DeclaredFeatures, err = DeclaredFeatures(b, *declared); err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(rc)
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	s := newSim(b, cfg, dyn)
	ready := make(chan struct{})
	if *metricsAddr != "" {
		if err := s.serveMetrics(ctx, *metricsAddr, ready); err != nil {
			return err
		}
	}
	log.Printf("imitating the 1.%d kubelet against %s (%s); resize delay %v", b.Minor, rc.Host, ver.GitVersion, cfg.ResizeDelay)
	if err := s.run(ctx, ready); err != nil && ctx.Err() == nil {
		return err
	}
	log.Printf("stopped")
	return nil
}

func positiveQuantity(flagName, v string) (resource.Quantity, error) {
	q, err := resource.ParseQuantity(v)
	if err != nil {
		return q, fmt.Errorf("%s %q: not a quantity", flagName, v)
	}
	if q.Sign() <= 0 {
		return q, fmt.Errorf("%s %q: must be > 0", flagName, v)
	}
	return q, nil
}

func newSim(b Behavior, cfg Config, dyn dynamic.Interface) *Sim {
	s := &Sim{
		b: b, cfg: cfg, dyn: dyn,
		metrics:  NewMetrics(),
		memo:     map[string]*podMemo{},
		lastBeat: map[string]time.Time{},
		dropped:  map[string]bool{},
		podQ: workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[string](
			50*time.Millisecond, 5*time.Second)),
		nodeQ: workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[string](
			200*time.Millisecond, 10*time.Second)),
	}
	s.nodes = newInformer(dyn, nodeGVR, metav1.ListOptions{LabelSelector: simLabel + "=true"}, nil)
	// Only bound pods; the scheduler does the binding.
	s.pods = newInformer(dyn, podGVR, metav1.ListOptions{FieldSelector: "spec.nodeName!="}, cache.Indexers{
		nodeIndex: func(obj any) ([]string, error) {
			_, node := podNode(obj)
			return []string{node}, nil
		},
	})
	return s
}

// newInformer watches one resource through the dynamic client with a
// selector. List and watch ride out a restarting apiserver themselves
// (retryWhileDown), because the reflector's own backoff grows to 30 s and
// would leave pods unattended long after the server is back.
func newInformer(dyn dynamic.Interface, gvr schema.GroupVersionResource, sel metav1.ListOptions, idx cache.Indexers) cache.SharedIndexInformer {
	res := dyn.Resource(gvr)
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.LabelSelector, o.FieldSelector = sel.LabelSelector, sel.FieldSelector
			return retryWhileDown(ctx, func() (runtime.Object, error) {
				c, cancel := context.WithTimeout(ctx, time.Minute)
				defer cancel()
				return res.List(c, o)
			})
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.LabelSelector, o.FieldSelector = sel.LabelSelector, sel.FieldSelector
			return retryWhileDown(ctx, func() (watch.Interface, error) { return res.Watch(ctx, o) })
		},
	}
	if idx == nil {
		idx = cache.Indexers{}
	}
	return cache.NewSharedIndexInformer(lw, &unstructured.Unstructured{}, 0, idx)
}

// retryWhileDown retries call every 500 ms for up to a minute while the
// apiserver is unreachable; any other outcome is returned at once.
func retryWhileDown[T any](ctx context.Context, call func() (T, error)) (T, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		v, err := call()
		if err == nil || !serverDown(err) || time.Now().After(deadline) {
			return v, err
		}
		select {
		case <-ctx.Done():
			return v, err
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func serverDown(err error) bool {
	return utilnet.IsConnectionRefused(err) || utilnet.IsConnectionReset(err) ||
		utilnet.IsProbableEOF(err) || apierrors.IsServiceUnavailable(err)
}

func (s *Sim) run(ctx context.Context, ready chan struct{}) error {
	s.pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    s.onPodEvent,
		UpdateFunc: func(_, n any) { s.onPodEvent(n) },
		DeleteFunc: s.onPodEvent,
	})
	nodeEvent := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if u, ok := obj.(*unstructured.Unstructured); ok {
			s.nodeQ.Add(u.GetName())
			for _, p := range s.podsOn(u.GetName()) {
				s.podQ.Add(p) // allocatable may have changed, or the node went away
			}
		}
	}
	s.nodes.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: nodeEvent,
		UpdateFunc: func(o, n any) {
			nu := n.(*unstructured.Unstructured)
			s.nodeQ.Add(nu.GetName())
			a, _, _ := unstructured.NestedMap(o.(*unstructured.Unstructured).Object, "status", "allocatable")
			b, _, _ := unstructured.NestedMap(nu.Object, "status", "allocatable")
			if !equality.Semantic.DeepEqual(a, b) {
				// Room changed: Deferred resizes may now fit, or become Infeasible.
				for _, p := range s.podsOn(nu.GetName()) {
					s.podQ.Add(p)
				}
			}
		},
		DeleteFunc: nodeEvent,
	})
	go s.pods.RunWithContext(ctx)
	go s.nodes.RunWithContext(ctx)
	syncCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	ok := cache.WaitForCacheSync(syncCtx.Done(), s.pods.HasSynced, s.nodes.HasSynced)
	cancel()
	if !ok {
		return errors.New("pod/node caches did not sync within 2m")
	}
	if err := s.createOwnNodes(ctx); err != nil {
		return err
	}
	defer s.podQ.ShutDown()
	defer s.nodeQ.ShutDown()
	for i := 0; i < s.cfg.PodWorkers; i++ {
		go s.runPodWorker(ctx)
	}
	go s.runNodeWorker(ctx)

	close(ready)
	log.Printf("ready: %d node(s) created, watching nodes labelled %s=true", s.cfg.Nodes, simLabel)

	resync := time.NewTicker(s.cfg.Resync)
	defer resync.Stop()
	// A nil channel never fires: --full-resync 0 turns the safety net off.
	var fullC <-chan time.Time
	if s.cfg.FullResync > 0 {
		full := time.NewTicker(s.cfg.FullResync)
		defer full.Stop()
		fullC = full.C
	}
	beat := time.NewTicker(heartbeat)
	defer beat.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-resync.C:
			s.resyncUnsettled()
		case <-fullC:
			s.resyncAll()
		case <-beat.C:
			for _, name := range s.nodes.GetIndexer().ListKeys() {
				s.nodeQ.Add(name)
			}
		}
	}
}

func (s *Sim) serveMetrics(ctx context.Context, addr string, ready <-chan struct{}) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--metrics-addr %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_ = s.metrics.Write(w, time.Now())
	})
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-ready:
			fmt.Fprintln(w, "ok")
		default:
			http.Error(w, "starting", http.StatusServiceUnavailable)
		}
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, WriteTimeout: 30 * time.Second}
	go func() {
		<-ctx.Done()
		c, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(c)
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Printf("metrics server: %v", err)
		}
	}()
	log.Printf("metrics on http://%s/metrics", ln.Addr())
	return nil
}
