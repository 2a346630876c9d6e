// Command client-go-contender is the client-go side of the side-by-side comparison (issue 8): one
// shared pod informer across all namespaces (no resync) with SUBSCRIBERS event handlers, against the
// replay server, printing the same RESULT lines as the JVM contenders.
//
//	client-go-contender SERVERS [SUBSCRIBERS [WARMUPS [ITERATIONS]]]
//
// Synced is polled every millisecond (cache.WaitForCacheSync polls every 100 ms, which would hide
// the real time). Heap is Go's HeapInuse after runtime.GC, with the synced informer minus before it.
//
// The environment picks the measure as for the JVM contenders (see Harness.java): BENCH_MODE
// (matrix, latency, threads, slow), BENCH_WARMUP_SERVER, FANOUT_N, FANOUT_SUBSCRIBERS, WATCH_MAX_N,
// SYNC_DEADLINE_S, LAT_RATE, LAT_COUNT, INFORMERS, SLOW_RATE,
// SLOW_SECONDS, SLOW_HANDLER_MS, SLOW_SAMPLE_SECONDS, SLOW_TOGETHER, ISO_RATE, ISO_SECONDS, ISO_CPU_MS,
// ISO_SLEEP_MS, ISO_FAST, ISO_GRACE_S (isolation). BENCH_MODE=realistic is a round of
// benchmarks/realistic-load.sh against a real cluster instead (see realistic.go), with no arguments;
// BENCH_MODE=relist is one of benchmarks/relist-peak.sh (see relistpeak.go).
//
// CLIENT_GO_ENCODING picks the wire format: json (default) or protobuf, which is what client-go's generated
// clients use for built-in kinds unless a ContentType is set. CONTENDER_LABEL names the RESULT lines (default
// client-go). Every round checks that the replay server answered its lists and watches in that encoding (served=
// in the RESULT line) and fails otherwise, so that a row never measures another encoding than its name says.
package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"os"
	"runtime"
	"runtime/metrics"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

type counters struct {
	counts      []atomic.Int64
	listed, all int64
	listedWG    sync.WaitGroup
	allWG       sync.WaitGroup
}

func newCounters(handlers int, listed, watched int64) *counters {
	c := &counters{counts: make([]atomic.Int64, handlers), listed: listed, all: listed + watched}
	c.listedWG.Add(handlers)
	c.allWG.Add(handlers)
	return c
}

func (c *counters) count(h int) {
	n := c.counts[h].Add(1)
	if n == c.listed {
		c.listedWG.Done()
	}
	if n == c.all {
		c.allWG.Done()
	}
}

func get(url string) string {
	resp, err := http.Get(url)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		panic(fmt.Sprintf("GET %s: %d %s", url, resp.StatusCode, body))
	}
	return string(body)
}

func heapInUse() int64 {
	for i := 0; i < 3; i++ {
		runtime.GC()
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}

// heapObjects is the bytes held by heap objects, live or not yet swept (runtime/metrics: no stop-the-world).
func heapObjects() int64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	return int64(sample[0].Value.Uint64())
}

// startPeakHeap samples heapObjects every 2 ms until the returned stop is called, which answers the highest
// reading: Go reports no heap size before each collection, as the JVM's GC notifications do.
func startPeakHeap() (stop func() int64) {
	return startPeak(heapObjects)
}

// startPeak samples read every 2 ms until the returned stop is called, which answers the highest reading.
func startPeak(read func() int64) (stop func() int64) {
	var peak atomic.Int64
	record := func() {
		if v := read(); v > peak.Load() {
			peak.Store(v)
		}
	}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		ticker := time.NewTicker(2 * time.Millisecond)
		defer ticker.Stop()
		for {
			record()
			select {
			case <-done:
				return
			case <-ticker.C:
			}
		}
	}()
	return func() int64 {
		close(done)
		<-finished
		record()
		return peak.Load()
	}
}

// cpuSeconds is the CPU time (user and system) this process has used so far.
func cpuSeconds() float64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return -1
	}
	return float64(u.Utime.Nano()+u.Stime.Nano()) / 1e9
}

// processCost is what this process has spent so far: CPU time (user and system, every thread) and bytes
// allocated on the heap, from runtime/metrics' /gc/heap/allocs:bytes (the count MemStats.TotalAlloc reports, read
// without ReadMemStats' stop-the-world). The JVM contenders' measure is the harness's ProcessCost.
type processCost struct {
	cpuSeconds float64
	allocated  uint64
}

func readProcessCost() processCost {
	sample := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(sample)
	return processCost{cpuSeconds(), sample[0].Value.Uint64()}
}

// per answers what the process spent since start per unit, as RESULT fields (the names ProcessCost gives them):
// <window>_cpu_us_per_<unit> and <window>_alloc_bytes_per_<unit>.
func (start processCost) per(window, unit string, units int64) string {
	now := readProcessCost()
	return fmt.Sprintf(" %s_cpu_us_per_%s=%.1f %s_alloc_bytes_per_%s=%d", window, unit,
		(now.cpuSeconds-start.cpuSeconds)*1e6/float64(units), window, unit, (now.allocated-start.allocated)/uint64(units))
}

func osThreads() int {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if strings.HasPrefix(s.Text(), "Threads:") {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(s.Text(), "Threads:")))
			return n
		}
	}
	return -1
}

func arg(i int, def int) int {
	if len(os.Args) > i {
		n, err := strconv.Atoi(os.Args[i])
		if err == nil {
			return n
		}
	}
	return def
}

func env(name, otherwise string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return otherwise
}

func envFloat(name string, otherwise float64) float64 {
	v, err := strconv.ParseFloat(env(name, ""), 64)
	if err != nil {
		return otherwise
	}
	return v
}

// target is one replay server and the corpus it serves.
type target struct {
	server                 string
	corpus                 map[string]string
	objects, notifications int64
}

func newTarget(server string) *target {
	t := &target{server: server, corpus: map[string]string{}}
	for _, line := range strings.Split(get(server+"/corpus"), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			t.corpus[k] = v
		}
	}
	t.objects, _ = strconv.ParseInt(t.corpus["n"], 10, 64)
	t.notifications, _ = strconv.ParseInt(t.corpus["notifications"], 10, 64)
	return t
}

// notificationsIn is how many of the first count events are notifications (not bookmarks).
func (t *target) notificationsIn(count int) int64 {
	n, _ := strconv.ParseInt(strings.TrimSpace(get(fmt.Sprintf("%s/notifications?count=%d", t.server, count))), 10, 64)
	return n
}

// goStream releases the waiting watch with its first count events (full speed when rate is 0).
func (t *target) goStream(rate float64, count int) {
	t.goTogether(rate, count, 1)
}

// goTogether is goStream once together contenders have asked (their streams start at once).
func (t *target) goTogether(rate float64, count, together int) {
	get(fmt.Sprintf("%s/go?rate=%g&count=%d&together=%d", t.server, rate, count, together))
}

// podOf is the newest object a handler is told of.
func podOf(obj any) *v1.Pod {
	switch o := obj.(type) {
	case *v1.Pod:
		return o
	case cache.DeletedFinalStateUnknown:
		if p, ok := o.Obj.(*v1.Pod); ok {
			return p
		}
	}
	return nil
}

func handlerOf(seen func(*v1.Pod)) cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { seen(podOf(o)) },
		UpdateFunc: func(_, o any) { seen(podOf(o)) },
		DeleteFunc: func(o any) { seen(podOf(o)) },
	}
}

func waitSynced(informers ...cache.SharedIndexInformer) {
	for _, i := range informers {
		for !i.HasSynced() {
			time.Sleep(time.Millisecond)
		}
	}
}

// round is one measured (or warm-up) round: a fresh informer against target with subscribers handlers;
// watch is false for a corpus above WATCH_MAX_N, which is listed only.
type round struct {
	t           *target
	subscribers int
	warmup      bool
	watch       bool
}

// plan is the process's rounds as Harness.java plans them: warm-ups, then each server of the
// comma-separated list (matrix mode; the others use the first), plus FANOUT_SUBSCRIBERS handlers at FANOUT_N.
func plan(mode string, subscribers, warmups, iterations int) []round {
	var targets []*target
	for _, s := range strings.Split(os.Args[1], ",") {
		targets = append(targets, newTarget(s))
	}
	if mode != "matrix" {
		targets = targets[:1]
	}
	warm := targets[0]
	if w := os.Getenv("BENCH_WARMUP_SERVER"); w != "" {
		warm = newTarget(w)
	}
	watchMax := int64(envFloat("WATCH_MAX_N", 1e15))
	fanOutN, fanOutSubscribers := int64(envFloat("FANOUT_N", -1)), int(envFloat("FANOUT_SUBSCRIBERS", 10))
	var rounds []round
	add := func(t *target, subs int, warmup bool) {
		rounds = append(rounds, round{t, subs, warmup, mode != "matrix" || t.objects <= watchMax})
	}
	for i := 0; i < warmups; i++ {
		add(warm, subscribers, true)
	}
	for _, t := range targets {
		for i := 0; i < iterations; i++ {
			add(t, subscribers, false)
		}
		if mode == "matrix" && t.objects == fanOutN && fanOutSubscribers != subscribers {
			for i := 0; i < iterations; i++ {
				add(t, fanOutSubscribers, false)
			}
		}
	}
	return rounds
}

func report(mode string, index int, r round, fields string) {
	fmt.Printf("RESULT contender=%s subscribers=%d mode=%s n=%d m=%s round=%d warmup=%t %s served=%s\n",
		env("CONTENDER_LABEL", "client-go"), r.subscribers, mode, r.t.objects, r.t.corpus["m"], index, r.warmup,
		fields, served.check())
}

// encodings maps CLIENT_GO_ENCODING to the media type the replay server must answer lists and watches with.
var encodings = map[string]string{"json": apiruntime.ContentTypeJSON, "protobuf": apiruntime.ContentTypeProtobuf}

// restConfig is the contender's client configuration for server: in JSON, ContentType is set, since client-go's
// generated clients ask for protobuf for built-in kinds when it is not (Accept: protobuf, then JSON); in protobuf,
// client-go's own defaults for built-in kinds, set explicitly.
func restConfig(server string) *rest.Config {
	config := &rest.Config{Host: server, WrapTransport: served.wrap}
	switch served.encoding {
	case "json":
		config.ContentType = apiruntime.ContentTypeJSON
	case "protobuf":
		config.ContentType = apiruntime.ContentTypeProtobuf
		config.AcceptContentTypes = apiruntime.ContentTypeProtobuf + "," + apiruntime.ContentTypeJSON
	}
	return config
}

// servedTypes records the media types the server answered pod lists and watches with.
type servedTypes struct {
	encoding string
	mu       sync.Mutex
	seen     map[string]bool
}

var served = &servedTypes{encoding: env("CLIENT_GO_ENCODING", "json"), seen: map[string]bool{}}

func (s *servedTypes) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(req)
		if err == nil && resp.StatusCode == http.StatusOK && strings.HasSuffix(req.URL.Path, "/pods") {
			mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
			s.mu.Lock()
			s.seen[mediaType] = true
			s.mu.Unlock()
		}
		return resp, err
	})
}

// check answers the encoding served since the last check, and ends the process if it is not the one asked for.
func (s *servedTypes) check() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	want, ok := encodings[s.encoding]
	if !ok {
		panic("CLIENT_GO_ENCODING is json or protobuf, not " + s.encoding)
	}
	for mediaType := range s.seen {
		if mediaType != want {
			panic(fmt.Sprintf("asked for %s (%s), served %s", s.encoding, want, mediaType))
		}
	}
	s.seen = map[string]bool{}
	return s.encoding
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

func main() {
	mode := env("BENCH_MODE", "matrix")
	if mode == "realistic" {
		realistic()
		return
	}
	if mode == "relist" {
		relistPeak(os.Args[1])
		return
	}
	for i, r := range plan(mode, arg(2, 1), arg(3, 1), arg(4, 1)) {
		var fields string
		switch mode {
		case "matrix":
			var synced bool
			if fields, synced = matrix(r); !synced {
				// as Harness.reportSyncTimeout: the rounds that follow are larger corpora still
				report(mode, i, r, fields)
				os.Exit(0)
			}
		case "latency":
			fields = latency(r.t)
		case "threads":
			fields = threads(r.t)
		case "slow":
			fields = slow(r.t)
		case "isolation":
			fields = isolation(r.t)
		default:
			panic("unknown BENCH_MODE " + mode)
		}
		report(mode, i, r, fields)
	}
}

func podInformer(t *target, namespace string) (informers.SharedInformerFactory, cache.SharedIndexInformer) {
	clientset := kubernetes.NewForConfigOrDie(restConfig(t.server))
	factory := informers.NewSharedInformerFactoryWithOptions(clientset, 0, informers.WithNamespace(namespace))
	return factory, factory.Core().V1().Pods().Informer()
}

// matrix measures one round; synced is false (and fields say so) when it did not sync within SYNC_DEADLINE_S.
func matrix(r round) (fields string, synced bool) {
	t := r.t
	before := heapInUse()
	objectsBefore := heapObjects()
	stopPeak := startPeakHeap()
	factory, pods := podInformer(t, "")
	notifications := int64(0)
	if r.watch {
		notifications = t.notifications
	}
	c := newCounters(r.subscribers, t.objects, notifications)
	for s := 0; s < r.subscribers; s++ {
		h := s
		if _, err := pods.AddEventHandler(handlerOf(func(*v1.Pod) { c.count(h) })); err != nil {
			panic(err)
		}
	}
	stop := make(chan struct{})
	syncCost := readProcessCost()
	start := time.Now()
	factory.Start(stop)
	deadline := time.Duration(envFloat("SYNC_DEADLINE_S", 600)) * time.Second
	for !pods.HasSynced() {
		if time.Since(start) > deadline {
			return fmt.Sprintf("sync_timeout_s=%d", int(deadline.Seconds())), false
		}
		time.Sleep(time.Millisecond)
	}
	syncedIn := time.Since(start)
	if got := len(pods.GetStore().ListKeys()); int64(got) != t.objects {
		panic(fmt.Sprintf("cache holds %d of %d", got, t.objects))
	}
	c.listedWG.Wait()
	delivered := time.Since(start)
	syncPer := syncCost.per("sync", "object", t.objects)
	peak := stopPeak()
	withCache := heapInUse()
	threads := osThreads()
	goroutines := runtime.NumGoroutine()
	fields = fmt.Sprintf("synced_ms=%.3f listed_to_handlers_ms=%.3f", float64(syncedIn.Microseconds())/1000,
		float64(delivered.Microseconds())/1000) + syncPer
	if r.watch {
		watchCost := readProcessCost()
		watchStart := time.Now()
		t.goStream(0, math.MaxInt32)
		c.allWG.Wait()
		fields += fmt.Sprintf(" events_per_s=%d", int64(float64(t.notifications)/time.Since(watchStart).Seconds()))
		fields += watchCost.per("watch", "event", t.notifications)
	}
	cached := len(pods.GetStore().ListKeys())
	close(stop)
	factory.Shutdown()
	get(t.server + "/drop")
	return fields + fmt.Sprintf(" threads=%d goroutines=%d cached=%d heap_growth_per_object=%d heap_before_mb=%d sync_peak_heap_mb=%d",
		threads, goroutines, cached, (withCache-before)/t.objects, before>>20, (peak-objectsBefore)>>20), true
}

func latency(t *target) string {
	rate := envFloat("LAT_RATE", 5000)
	count := int(envFloat("LAT_COUNT", 30000))
	expected := t.notificationsIn(count)
	factory, pods := podInformer(t, "")
	c := newCounters(1, t.objects, expected)
	versions := make([]string, 0, expected)
	times := make([]int64, 0, expected)
	var listed atomic.Bool
	if _, err := pods.AddEventHandler(handlerOf(func(p *v1.Pod) {
		if listed.Load() && p != nil {
			times = append(times, time.Now().UnixMicro())
			versions = append(versions, p.ResourceVersion)
		}
		c.count(0)
	})); err != nil {
		panic(err)
	}
	stop := make(chan struct{})
	factory.Start(stop)
	waitSynced(pods)
	c.listedWG.Wait()
	listed.Store(true)
	t.goStream(rate, count)
	c.allWG.Wait()
	written := map[string]int64{}
	first := int64(math.MaxInt64)
	for _, line := range strings.Split(get(t.server+"/writes"), "\n") {
		if rv, at, ok := strings.Cut(line, " "); ok {
			w, _ := strconv.ParseInt(at, 10, 64)
			written[rv] = w
			first = min(first, w)
		}
	}
	var lat []int64
	unmatched := 0
	for i, rv := range versions {
		w, ok := written[rv]
		if !ok {
			unmatched++
		} else if w >= first+1_000_000 {
			lat = append(lat, times[i]-w)
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	close(stop)
	factory.Shutdown()
	maxLat := int64(-1000)
	if len(lat) > 0 {
		maxLat = lat[len(lat)-1]
	}
	return fmt.Sprintf("lat_p50_ms=%.3f lat_p99_ms=%.3f lat_p999_ms=%.3f lat_max_ms=%.3f lat_samples=%d lat_unmatched=%d lat_rate=%g",
		float64(percentile(lat, 0.50))/1e3, float64(percentile(lat, 0.99))/1e3, float64(percentile(lat, 0.999))/1e3,
		float64(maxLat)/1e3, len(lat), unmatched, rate)
}

// percentile is the nearest-rank percentile of sorted values; -1000 (-1 ms) without values, as the JVM side.
func percentile(sorted []int64, p float64) int64 {
	if len(sorted) == 0 {
		return -1000
	}
	rank := int(math.Ceil(p * float64(len(sorted))))
	return sorted[max(0, min(len(sorted), rank)-1)]
}

func threads(t *target) string {
	n := int(envFloat("INFORMERS", 100))
	// no client-side rate limit (QPS < 0), like the JVM clients: at the default 5 QPS, 100 lists and 100
	// watches take 40 s to be sent; the limiter paces requests and starts no thread or goroutine
	config := restConfig(t.server)
	config.QPS = -1
	clientset := kubernetes.NewForConfigOrDie(config)
	stop := make(chan struct{})
	var factories []informers.SharedInformerFactory
	var all []cache.SharedIndexInformer
	for i := 0; i < n; i++ {
		factory := informers.NewSharedInformerFactoryWithOptions(clientset, 0, informers.WithNamespace(fmt.Sprintf("bench-%d", i)))
		pods := factory.Core().V1().Pods().Informer()
		if _, err := pods.AddEventHandler(handlerOf(func(*v1.Pod) {})); err != nil {
			panic(err)
		}
		factories = append(factories, factory)
		all = append(all, pods)
	}
	for _, f := range factories {
		f.Start(stop)
	}
	waitSynced(all...)
	time.Sleep(2 * time.Second)
	threads, goroutines := osThreads(), runtime.NumGoroutine()
	close(stop)
	for _, f := range factories {
		f.Shutdown()
	}
	return fmt.Sprintf("informers=%d threads_informers=%d goroutines_informers=%d", n, threads, goroutines)
}

func mb(bytes int64) string {
	return fmt.Sprintf("%.1f", float64(bytes)/1048576)
}

func slow(t *target) string {
	rate := envFloat("SLOW_RATE", 200)
	seconds := int(envFloat("SLOW_SECONDS", 300))
	handlerMs := int(envFloat("SLOW_HANDLER_MS", 500))
	sample := int(envFloat("SLOW_SAMPLE_SECONDS", 30))
	factory, pods := podInformer(t, "")
	c := newCounters(1, t.objects, 0)
	var isSlow atomic.Bool
	var handled atomic.Int64
	if _, err := pods.AddEventHandler(handlerOf(func(*v1.Pod) {
		if isSlow.Load() {
			time.Sleep(time.Duration(handlerMs) * time.Millisecond)
		}
		handled.Add(1)
		c.count(0)
	})); err != nil {
		panic(err)
	}
	stop := make(chan struct{})
	factory.Start(stop)
	waitSynced(pods)
	c.listedWG.Wait()
	start := heapInUse()
	before := handled.Load()
	isSlow.Store(true)
	t.goTogether(rate, int(math.Ceil(rate*float64(seconds)*100/99)), int(envFloat("SLOW_TOGETHER", 1)))
	began := time.Now()
	cpuAtStart := cpuSeconds()
	samples := "0:" + mb(start)
	end := start
	for next := sample; ; next += sample {
		at := min(next, seconds)
		time.Sleep(time.Until(began.Add(time.Duration(at) * time.Second)))
		end = heapInUse()
		samples += fmt.Sprintf(",%d:%s", at, mb(end))
		if at >= seconds {
			break
		}
	}
	sent := min(int64(rate*float64(seconds)), t.notificationsIn(int(math.Ceil(rate*float64(seconds)*100/99))))
	result := fmt.Sprintf("slow_heap_start_mb=%s slow_heap_end_mb=%s slow_heap_growth_mb=%s slow_seconds=%d slow_rate=%g "+
		"slow_handler_ms=%d slow_notifications_sent=%d slow_handled=%d slow_heap_samples_mb=%s slow_cpu_s=%.1f policy=unbounded",
		mb(start), mb(end), mb(end-start), seconds, rate, handlerMs, sent, handled.Load()-before, samples, cpuSeconds()-cpuAtStart)
	close(stop)
	return result
}

// isoHandler is one handler of the isolation measure (IsolationRun.java): its receive stamps and its work.
type isoHandler struct {
	mu       sync.Mutex
	versions []int64
	times    []int64
	handled  int64
	newest   atomic.Int64
	work     func()
}

// handle is the handler's body for a notification of the object at resourceVersion: before the stream
// it returns at once; during it, it stamps the notification and does its work.
func (h *isoHandler) handle(measuring *atomic.Bool, resourceVersion string) {
	if !measuring.Load() {
		return
	}
	at := time.Now().UnixMicro()
	v, _ := strconv.ParseInt(resourceVersion, 10, 64)
	h.mu.Lock()
	if len(h.versions) < cap(h.versions) {
		h.versions = append(h.versions, v)
		h.times = append(h.times, at)
	}
	h.mu.Unlock()
	if v > h.newest.Load() {
		h.newest.Store(v)
	}
	h.work()
	h.mu.Lock()
	h.handled++
	h.mu.Unlock()
}

func (h *isoHandler) snapshot() (versions, times []int64, handled int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]int64(nil), h.versions...), append([]int64(nil), h.times...), h.handled
}

// threadCPU is the CPU time of the calling OS thread.
func threadCPU() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &u); err != nil {
		panic(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// burnCPU spends d of CPU time in a busy loop; the goroutine keeps its OS thread meanwhile, so that the
// thread's CPU time is the goroutine's.
func burnCPU(d time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	end := threadCPU() + d
	for threadCPU() < end {
	}
}

// isoWrites is the replay server's record of the stream (/writes?keys=1), in write order.
type isoWrites struct {
	versions, times []int64
	keys            []string
	keyOf           map[int64]string
}

func parseWrites(text string) *isoWrites {
	w := &isoWrites{keyOf: map[int64]string{}}
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		v, _ := strconv.ParseInt(f[0], 10, 64)
		at, _ := strconv.ParseInt(f[1], 10, 64)
		w.versions = append(w.versions, v)
		w.times = append(w.times, at)
		w.keys = append(w.keys, f[2])
		w.keyOf[v] = f[2]
	}
	return w
}

// lags is, for every change written from from to end, the time until the handler's first entry with
// that object at that version or later (receive stamps in arrival order); end minus the write for a
// change it had not seen, counted in unseen. As IsolationRun.Writes.lags.
func (w *isoWrites) lags(seenVersions, seenTimes []int64, from, end int64) (lags []int64, unseen int) {
	byKey := map[string][]int{}
	for i, v := range seenVersions {
		if k, ok := w.keyOf[v]; ok {
			byKey[k] = append(byKey[k], i)
		}
	}
	next := map[string]int{}
	for i, v := range w.versions {
		arrivals := byKey[w.keys[i]]
		at := next[w.keys[i]]
		for at < len(arrivals) && seenVersions[arrivals[at]] < v {
			at++
		}
		next[w.keys[i]] = at
		if w.times[i] < from || w.times[i] > end {
			continue
		}
		if at < len(arrivals) {
			lags = append(lags, seenTimes[arrivals[at]]-w.times[i])
		} else {
			lags = append(lags, end-w.times[i])
			unseen++
		}
	}
	return lags, unseen
}

func sorted(values []int64) []int64 {
	s := append([]int64(nil), values...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s
}

// isolation: ISO_FAST fast handlers beside one that burns ISO_CPU_MS of CPU and one that sleeps
// ISO_SLEEP_MS per notification, each on its own processorListener goroutine, as client-go runs them.
func isolation(t *target) string {
	rate := envFloat("ISO_RATE", 500)
	seconds := envFloat("ISO_SECONDS", 20)
	grace := envFloat("ISO_GRACE_S", 10)
	cpuMs := envFloat("ISO_CPU_MS", 10)
	sleepMs := envFloat("ISO_SLEEP_MS", 20)
	fast := int(envFloat("ISO_FAST", 8))
	events := int(math.Ceil(rate * seconds * 100 / 99))
	changes := t.notificationsIn(events)
	last, _ := strconv.ParseInt(strings.TrimSpace(get(fmt.Sprintf("%s/last?count=%d", t.server, events))), 10, 64)
	var measuring atomic.Bool
	handlers := make([]*isoHandler, fast+2)
	for i := range handlers {
		work := func() {}
		switch i {
		case fast:
			work = func() { burnCPU(time.Duration(cpuMs * float64(time.Millisecond))) }
		case fast + 1:
			work = func() { time.Sleep(time.Duration(sleepMs * float64(time.Millisecond))) }
		}
		handlers[i] = &isoHandler{versions: make([]int64, 0, changes), times: make([]int64, 0, changes), work: work}
	}
	factory, pods := podInformer(t, "")
	c := newCounters(len(handlers), t.objects, 0)
	for i, h := range handlers {
		if _, err := pods.AddEventHandler(handlerOf(func(p *v1.Pod) {
			h.handle(&measuring, p.ResourceVersion)
			c.count(i)
		})); err != nil {
			panic(err)
		}
	}
	stop := make(chan struct{})
	factory.Start(stop)
	waitSynced(pods)
	c.listedWG.Wait()
	measuring.Store(true)
	began := time.Now()
	t.goStream(rate*100/99, events)
	deadline := began.Add(time.Duration((seconds + grace) * float64(time.Second)))
	for time.Now().Before(deadline) {
		done := true
		for _, h := range handlers[:fast] {
			done = done && h.newest.Load() >= last
		}
		if done {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	end := time.Now().UnixMicro()
	measured := time.Since(began).Seconds()
	measuring.Store(false)
	type seen struct {
		versions, times []int64
		handled         int64
	}
	all := make([]seen, len(handlers))
	for i, h := range handlers {
		all[i].versions, all[i].times, all[i].handled = h.snapshot()
	}
	w := parseWrites(get(t.server + "/writes?keys=1"))
	from := int64(0)
	if len(w.times) > 0 {
		from = w.times[0] + 1_000_000
	}
	var fastLags []int64
	fastUnseen := 0
	for _, s := range all[:fast] {
		l, u := w.lags(s.versions, s.times, from, end)
		fastLags = append(fastLags, l...)
		fastUnseen += u
	}
	fastLags = sorted(fastLags)
	cpuLags, cpuUnseen := w.lags(all[fast].versions, all[fast].times, from, end)
	sleepLags, sleepUnseen := w.lags(all[fast+1].versions, all[fast+1].times, from, end)
	maxLat := int64(-1000)
	if len(fastLags) > 0 {
		maxLat = fastLags[len(fastLags)-1]
	}
	unwritten := 0
	for _, at := range w.times {
		if at > end {
			unwritten++
		}
	}
	close(stop)
	factory.Shutdown()
	return fmt.Sprintf("iso_rate=%g iso_seconds=%g iso_cpu_ms=%g iso_sleep_ms=%g iso_fast_handlers=%d iso_changes=%d iso_unwritten=%d "+
		"iso_fast_p50_ms=%.3f iso_fast_p99_ms=%.3f iso_fast_max_ms=%.3f iso_fast_samples=%d iso_fast_unseen=%d "+
		"iso_cpu_p50_ms=%.3f iso_cpu_handled=%d iso_cpu_unseen=%d iso_sleep_p50_ms=%.3f iso_sleep_handled=%d "+
		"iso_sleep_unseen=%d iso_measured_s=%.1f",
		rate, seconds, cpuMs, sleepMs, fast, len(w.versions), unwritten,
		float64(percentile(fastLags, 0.50))/1e3, float64(percentile(fastLags, 0.99))/1e3, float64(maxLat)/1e3,
		len(fastLags), fastUnseen,
		float64(percentile(sorted(cpuLags), 0.50))/1e3, all[fast].handled, cpuUnseen,
		float64(percentile(sorted(sleepLags), 0.50))/1e3, all[fast+1].handled, sleepUnseen, measured)
}
