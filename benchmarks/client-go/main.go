// Command client-go-contender is the client-go side of the side-by-side comparison (issue 8): one
// shared pod informer across all namespaces (no resync) with SUBSCRIBERS event handlers, against the
// replay server, printing the same RESULT lines as the JVM contenders.
//
//	client-go-contender SERVER [SUBSCRIBERS [WARMUPS [ITERATIONS]]]
//
// Synced is polled every millisecond (cache.WaitForCacheSync polls every 100 ms, which would hide
// the real time). Heap is Go's HeapInuse after runtime.GC, with the informer minus without it.
package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

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

func main() {
	server := os.Args[1]
	subscribers, warmups, iterations := arg(2, 1), arg(3, 1), arg(4, 1)
	corpus := map[string]string{}
	for _, line := range strings.Split(get(server+"/corpus"), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			corpus[k] = v
		}
	}
	objects, _ := strconv.ParseInt(corpus["n"], 10, 64)
	notifications, _ := strconv.ParseInt(corpus["notifications"], 10, 64)

	for round := 0; round < warmups+iterations; round++ {
		clientset := kubernetes.NewForConfigOrDie(&rest.Config{Host: server})
		factory := informers.NewSharedInformerFactory(clientset, 0)
		pods := factory.Core().V1().Pods().Informer()
		c := newCounters(subscribers, objects, notifications)
		for s := 0; s < subscribers; s++ {
			h := s
			if _, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
				AddFunc:    func(any) { c.count(h) },
				UpdateFunc: func(any, any) { c.count(h) },
				DeleteFunc: func(any) { c.count(h) },
			}); err != nil {
				panic(err)
			}
		}
		stop := make(chan struct{})
		start := time.Now()
		factory.Start(stop)
		for !pods.HasSynced() {
			time.Sleep(time.Millisecond)
		}
		synced := time.Since(start)
		if got := len(pods.GetStore().ListKeys()); int64(got) != objects {
			panic(fmt.Sprintf("cache holds %d of %d", got, objects))
		}
		c.listedWG.Wait()
		delivered := time.Since(start)
		withCache := heapInUse()
		threads := osThreads()
		goroutines := runtime.NumGoroutine()
		watchStart := time.Now()
		get(server + "/go?rate=0")
		c.allWG.Wait()
		watched := time.Since(watchStart)
		cached := len(pods.GetStore().ListKeys())
		close(stop)
		factory.Shutdown()
		pods, factory, clientset = nil, nil, nil
		released := heapInUse()
		fmt.Printf("RESULT contender=client-go subscribers=%d n=%d m=%s round=%d warmup=%t synced_ms=%.3f "+
			"listed_to_handlers_ms=%.3f events_per_s=%d threads=%d goroutines=%d cached=%d heap_bytes_per_object=%d\n",
			subscribers, objects, corpus["m"], round, round < warmups, float64(synced.Microseconds())/1000,
			float64(delivered.Microseconds())/1000, int64(float64(notifications)/watched.Seconds()), threads,
			goroutines, cached, (withCache-released)/objects)
	}
}
