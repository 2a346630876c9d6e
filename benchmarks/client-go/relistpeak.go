package main

// BENCH_MODE=relist is client-go's side of benchmarks/relist-peak.sh (RelistPeak): the heap a relist takes with
// the store full. A pod informer syncs the replay server's N pods; its retained heap (HeapInuse after GC, above
// the baseline before it existed) is read; then the server ends its watch with a 410 (/expire?changed=F) and
// answers the relist with the same list in which the fraction F of the pods changed. Measured from the 410 until
// the informer's last synced resourceVersion is the relist's and its handler saw an update per changed pod: the
// peak of the heap's objects (live or not yet swept, sampled every 2 ms: the peak before a collection) and the
// peak of the live heap the collector marked (the peak after a collection). Settings: RUNS (3), WARMUP (true),
// FRACTIONS (0,0.1,1). Prints the CSV lines of RelistPeak, then the medians.
//
//	BENCH_MODE=relist client-go-contender SERVER

import (
	"context"
	"fmt"
	"math"
	"runtime/metrics"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

func relistPeak(server string) {
	t := newTarget(server)
	runs := int(envFloat("RUNS", 3))
	first := 0
	if env("WARMUP", "true") != "true" {
		first = 1
	}
	var fractions []float64
	for _, f := range strings.Split(env("FRACTIONS", "0,0.1,1"), ",") {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			panic(err)
		}
		fractions = append(fractions, v)
	}
	measured := map[float64][][5]float64{}
	fmt.Println("changed,round,warmup,objects,retained_mb,peak_mb,peak_ratio,peak_after_gc_mb,peak_after_gc_ratio,relist_ms")
	for round := first; round <= runs; round++ {
		for _, changed := range fractions {
			r := relistRound(t, changed)
			fmt.Printf("%.2f,%d,%t,%.0f,%.1f,%.1f,%.2f,%.1f,%.2f,%.0f\n", changed, round, round == 0, r[0], r[1], r[2],
				r[2]/r[1], r[3], r[3]/r[1], r[4])
			if round > 0 {
				measured[changed] = append(measured[changed], r)
			}
		}
	}
	for _, changed := range fractions {
		rounds := measured[changed]
		retained := median(rounds, 1)
		fmt.Printf("median client-go, %.0f%% changed: retained %.1f MB, relist peak %.1f MB (%.2fx), peak after GC "+
			"%.1f MB (%.2fx), relist %.0f ms over %d rounds of %d pods\n", changed*100, retained, median(rounds, 2),
			median(rounds, 2)/retained, median(rounds, 3), median(rounds, 3)/retained, median(rounds, 4), len(rounds),
			t.objects)
	}
}

// relistRound is one informer from start to a relist applied: objects, retained MB, peak MB, peak after GC MB,
// relist ms.
func relistRound(t *target, changed float64) [5]float64 {
	baseline := heapInUse()
	// in JSON (CLIENT_GO_ENCODING's default), as every contender of relist-peak.sh: the replay server's relist is
	// JSON only
	config := restConfig(t.server)
	config.QPS = -1
	clientset := kubernetes.NewForConfigOrDie(config)
	factory := informers.NewSharedInformerFactory(clientset, 0)
	informer := factory.Core().V1().Pods().Informer()
	var updates atomic.Int64
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, _ interface{}) { updates.Add(1) },
	}); err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx.Done())
	awaitCondition("synced", func() bool { return informer.HasSynced() && int64(len(informer.GetStore().ListKeys())) == t.objects })
	retained := heapInUse() - baseline

	expected := int64(math.Floor(float64(t.objects) * changed))
	relisted := t.corpus["finalResourceVersion"]
	stopPeak := startPeakHeap()
	stopLive := startPeak(liveHeap)
	start := time.Now()
	if strings.TrimSpace(get(fmt.Sprintf("%s/expire?changed=%g", t.server, changed))) != "1" {
		panic("no watch was waiting to expire")
	}
	awaitCondition("relisted at "+relisted, func() bool {
		return informer.LastSyncResourceVersion() == relisted && updates.Load() >= expected
	})
	elapsed := time.Since(start)
	peak, peakLive := stopPeak()-baseline, stopLive()-baseline
	objects := len(informer.GetStore().ListKeys())
	cancel()
	factory.Shutdown()
	get(t.server + "/drop")
	return [5]float64{float64(objects), float64(retained) / (1 << 20), float64(peak) / (1 << 20),
		float64(peakLive) / (1 << 20), float64(elapsed.Milliseconds())}
}

// liveHeap is the heap the last collection marked live (runtime/metrics: no stop-the-world).
func liveHeap() int64 {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	return int64(sample[0].Value.Uint64())
}

// awaitCondition polls every millisecond for up to 10 minutes.
func awaitCondition(what string, condition func() bool) {
	deadline := time.Now().Add(10 * time.Minute)
	for !condition() {
		if time.Now().After(deadline) {
			panic("not " + what + " within 10 minutes")
		}
		time.Sleep(time.Millisecond)
	}
}

func median(rounds [][5]float64, column int) float64 {
	values := make([]float64, len(rounds))
	for i, r := range rounds {
		values[i] = r[column]
	}
	sort.Float64s(values)
	return values[len(values)/2]
}
