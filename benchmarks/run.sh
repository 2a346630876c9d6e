#!/usr/bin/env bash
# Side-by-side comparison (issue 8): replays the same pre-generated pod LIST + WATCH bytes from loopback
# servers (processes of their own) to each contender (each its own process), interleaved run by run, and
# writes benchmarks/results/: raw.csv (every round, warm-ups flagged), raw.log, machine.txt, README.md
# and charts.
#
#   benchmarks/run.sh            full comparison (N = 1k 10k 50k 100k, 3 runs; about 20 min on 2 idle cores)
#   benchmarks/run.sh --smoke    N = 1k 10k, 1 run, short streams: checks the harness, not a result
#
# Phases, in the order they start: slow handler (heap growth over SLOW_SECONDS, all contenders at once,
# in the background at a rate that costs a few % of one core: its CPU time is reported), threads with
# INFORMERS informers (a count, not a timing: it runs beside the slow phase), matrix (time to synced,
# events/s up to WATCH_MAX_N, CPU and allocation per watch event and per listed object, heap per object,
# threads, and FANOUT_SUBSCRIBERS handlers at FANOUT_N; one process per contender and run measures every N
# up to WATCH_MAX_N, one more per larger N), latency
# (server write to handler at each of LAT_RATES events/s, once the slow phase has ended), isolation (lag of 8 fast
# handlers beside a CPU-bound and a blocking one at ISO_RATE changes/s, ISO_RUNS runs), workqueue (items/s and
# bytes allocated per item of the work queue and the official client's, JMH WorkQueueThroughputBenchmark with
# its gc profiler, 1 and 4 workers). client-go runs twice, in JSON and in protobuf (client-go-protobuf), the
# protobuf corpus being the JSON one encoded by Go (client-go/corpus2pb). See benchmarks/README.md.
#
# Environment overrides: SIZES, RUNS, EVENTS (watch events per matrix corpus), WATCH_MAX_N, FANOUT_N,
# FANOUT_SUBSCRIBERS, SYNC_DEADLINE_S (a matrix round not synced by then is reported as timed out),
# WARMUP_N/WARMUP_EVENTS (the warm-up corpus), SEED, SKIP_BUILD=1, JVM_FLAGS (the same for every JVM
# contender), SIDE_N (objects of the latency/slow/threads corpus), LAT_RATES (one latency stream per rate,
# LAT_COUNT events or LAT_SECONDS of them, whichever is fewer), LAT_COUNT, LAT_SECONDS, PIN_CORES (the matrix
# also runs this library pinned to that many cores with taskset; 0: not), INFORMERS,
# SLOW_RATE, SLOW_SECONDS, SLOW_HANDLER_MS, SLOW_SAMPLE_SECONDS, ISO_RATE, ISO_SECONDS, ISO_CPU_MS,
# ISO_SLEEP_MS, ISO_FAST, ISO_GRACE_S, ISO_RUNS, STORM_N, STORM_RATE, STORM_SECONDS, STORM_BASELINE_S, STORM_JOINS,
# STORM_RUNS, ZGC (1: the latency phase runs every JVM contender once more with generational ZGC, as a
# `<name>-zgc` row; 0: not), ZGC_JAVA (a JDK 21+ for those rows; default: the first found), ZGC_FLAGS, PHASES (any of "slow threads matrix latency isolation workqueue storm"; storm only when named),
# OUT (the results directory), KEEP_RESULTS=1 (re-run only PHASES into OUT: the other phases' rounds
# in raw.log and the machine record stay, the tables and charts are redrawn from both).
# The whole script is one function, read in full before it runs: editing this file during a run
# cannot change what the run does.
main() {
set -euo pipefail
cd "$(dirname "$0")"
BENCH=$PWD
ROOT=$(cd .. && pwd)

SIZES=${SIZES:-"1000 10000 50000 100000"}
RUNS=${RUNS:-3}
EVENTS=${EVENTS:-10000}
WATCH_MAX_N=${WATCH_MAX_N:-10000}
FANOUT_N=${FANOUT_N:-1000}
FANOUT_SUBSCRIBERS=${FANOUT_SUBSCRIBERS:-10}
SYNC_DEADLINE_S=${SYNC_DEADLINE_S:-45}
WARMUP_N=${WARMUP_N:-1000}
WARMUP_EVENTS=${WARMUP_EVENTS:-2000}
SEED=${SEED:-42}
SIDE_N=${SIDE_N:-1000}
LAT_RATES=${LAT_RATES:-"1000 5000"}
LAT_COUNT=${LAT_COUNT:-20000}
LAT_SECONDS=${LAT_SECONDS:-10}
PIN_CORES=${PIN_CORES:-1}
INFORMERS=${INFORMERS:-100}
SLOW_RATE=${SLOW_RATE:-20}
SLOW_SECONDS=${SLOW_SECONDS:-300}
SLOW_HANDLER_MS=${SLOW_HANDLER_MS:-5000}
SLOW_SAMPLE_SECONDS=${SLOW_SAMPLE_SECONDS:-30}
ISO_RATE=${ISO_RATE:-500}
ISO_SECONDS=${ISO_SECONDS:-20}
ISO_CPU_MS=${ISO_CPU_MS:-10}
ISO_SLEEP_MS=${ISO_SLEEP_MS:-20}
ISO_FAST=${ISO_FAST:-8}
ISO_GRACE_S=${ISO_GRACE_S:-10}
ISO_RUNS=${ISO_RUNS:-1}
STORM_N=${STORM_N:-100000}
STORM_RATE=${STORM_RATE:-200}
STORM_SECONDS=${STORM_SECONDS:-30}
STORM_BASELINE_S=${STORM_BASELINE_S:-3}
STORM_JOINS=${STORM_JOINS:-200}
STORM_RUNS=${STORM_RUNS:-1}
PHASES=${PHASES:-"slow threads matrix latency isolation workqueue"}
MODE=full
if [[ "${1:-}" == "--smoke" ]]; then
  SIZES=${SMOKE_SIZES:-"1000 10000"}; RUNS=1; EVENTS=${SMOKE_EVENTS:-5000}; MODE=smoke
  LAT_COUNT=${SMOKE_LAT_COUNT:-10000}; SLOW_SECONDS=${SMOKE_SLOW_SECONDS:-60}; SLOW_SAMPLE_SECONDS=10
  ISO_SECONDS=${SMOKE_ISO_SECONDS:-10}; ISO_RUNS=1
fi
JVM_FLAGS=${JVM_FLAGS:-"-Xms1g -Xmx6g -XX:+UseG1GC"}
ZGC=${ZGC:-1}
# the ZGC rows are the latency phase's
if [[ " $PHASES " != *" latency "* ]]; then ZGC=0; fi
java_feature() { "$1" -version 2>&1 | sed -nE '1s/.*version "([0-9]+).*/\1/p'; }
if [[ -z "${ZGC_JAVA:-}" ]]; then
  for candidate in java /usr/lib/jvm/*/bin/java; do
    if [[ $(java_feature "$candidate" 2>/dev/null || echo 0) -ge 21 ]]; then ZGC_JAVA=$candidate; break; fi
  done
fi
ZGC_JAVA=${ZGC_JAVA:-}
if [[ $ZGC == 1 && -z "$ZGC_JAVA" ]]; then echo "no JDK 21+ found for the ZGC rows: ZGC_JAVA=... or ZGC=0" >&2; exit 1; fi
if [[ -z "${ZGC_FLAGS:-}" && -n "$ZGC_JAVA" ]]; then
  # from JDK 24 ZGC is generational only and -XX:+ZGenerational is obsolete (a warning on every start)
  ZGC_FLAGS="-Xms1g -Xmx6g -XX:+UseZGC"
  if (( $(java_feature "$ZGC_JAVA") < 24 )); then ZGC_FLAGS+=" -XX:+ZGenerational"; fi
fi
OUT=${OUT:-$BENCH/results}
JAR=$BENCH/target/benchmarks.jar
PKG=io.reactiveinformer.benchmarks.sidebyside

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  # peers (fabric8, official client) build in their own module so their jars never reach ours
  (cd "$ROOT" && mvn -B -q -Ppeers -pl benchmarks,benchmarks/peers -am package -DskipTests)
  (cd "$BENCH/client-go" && go build -o target/client-go-contender . && go build -o target/corpus2pb ./corpus2pb)
  # charts: matplotlib from PyPI in a venv of its own
  if [[ ! -x "$BENCH/target/venv/bin/python" ]] || ! "$BENCH/target/venv/bin/python" -c 'import matplotlib' 2>/dev/null; then
    python3 -m venv "$BENCH/target/venv" && "$BENCH/target/venv/bin/pip" install -q matplotlib || echo "no matplotlib: tables only"
  fi
fi
PY=python3
if [[ -x "$BENCH/target/venv/bin/python" ]]; then PY=$BENCH/target/venv/bin/python; fi
mkdir -p "$OUT"
KEPT_LOG= KEPT_MACHINE=
if [[ "${KEEP_RESULTS:-0}" == 1 && -f "$OUT/raw.log" ]]; then
  # a re-run of some phases: the other phases' rounds (their mode= is a phase word) and the record of
  # the machine they ran on stay
  KEPT_LOG=$(grep '^RESULT ' "$OUT/raw.log" | grep -Ev " mode=($(echo $PHASES | tr ' ' '|')) " || true)
  KEPT_MACHINE=$(cat "$OUT/machine.txt" 2>/dev/null || true)
fi
if [[ -n "$KEPT_LOG" ]]; then echo "$KEPT_LOG" > "$OUT/raw.log"; else : > "$OUT/raw.log"; fi

BEGAN=$(date +%s)
{
  if [[ -n "$KEPT_MACHINE" ]]; then echo "$KEPT_MACHINE"; echo; echo "re-run of phases: $PHASES"; fi
  echo "mode: $MODE"
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: $(git -C "$ROOT" rev-parse --short HEAD)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') x $(nproc)"
  echo "memory: $(free -g | awk '/Mem:/{print $2}') GiB"
  echo "os: $(uname -sr)"
  echo "java: $(java -version 2>&1 | head -1)"
  echo "go: $(go version | cut -d' ' -f3)"
  echo "contenders: reactive-informer $(git -C "$ROOT" rev-parse --short HEAD), fabric8 kubernetes-client 7.9.0, client-java 27.0.0, client-go v0.36.6 (JSON, and protobuf as client-go-protobuf)"
  echo "jvm flags: $JVM_FLAGS"
  if [[ $ZGC == 1 ]]; then echo "zgc rows (latency): $("$ZGC_JAVA" -version 2>&1 | sed -n 2p) ($ZGC_JAVA), flags: $ZGC_FLAGS"; fi
  echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "matrix: sizes $SIZES; $EVENTS watch events at N <= $WATCH_MAX_N; $FANOUT_SUBSCRIBERS handlers at N=$FANOUT_N; sync deadline $SYNC_DEADLINE_S s; runs $RUNS; warm-up rounds on N=$WARMUP_N, $WARMUP_EVENTS events (6 before the small sizes, 1 before a large N); seed $SEED"
  echo "latency: at each of $LAT_RATES events/s, $LAT_COUNT events or $LAT_SECONDS s of them (whichever is fewer) after a sync of N=$SIDE_N, one warm-up stream like it first, first second discarded; runs $RUNS"
  if (( PIN_CORES > 0 )); then echo "pinned: the matrix also runs reactive-informer with taskset on $PIN_CORES of $(nproc) cores"; fi
  echo "threads: $INFORMERS informers (one per namespace, empty lists); runs $RUNS"
  echo "slow handler: $SLOW_HANDLER_MS ms per notification, $SLOW_RATE events/s for $SLOW_SECONDS s after a sync of N=$SIDE_N, heap sampled every $SLOW_SAMPLE_SECONDS s; one run, contenders concurrently, beside the threads and matrix phases"
  echo "isolation: $ISO_FAST fast handlers beside one burning $ISO_CPU_MS ms of CPU and one sleeping $ISO_SLEEP_MS ms per notification, $ISO_RATE changes/s for $ISO_SECONDS s after a sync of N=$SIDE_N (up to $ISO_GRACE_S s more for the fast handlers to catch up), first second discarded; runs $ISO_RUNS"
  echo "storm: $STORM_JOINS handlers added one after another to a running informer synced at N=$STORM_N, beside one fast handler, $STORM_RATE changes/s for $STORM_SECONDS s, the first $STORM_BASELINE_S s without joins (the baseline); runs $STORM_RUNS"
  echo "workqueue: JMH WorkQueueThroughputBenchmark, one fork, 3 warm-up and 5 measured iterations of 1 s, -prof gc"
  echo "phases: $PHASES"
} > "$OUT/machine.txt"

# each JVM contender's class path and main class, after the java command and its flags
CEILING_MAIN="-cp $JAR $PKG.CeilingContender"
OURS_MAIN="-cp $JAR $PKG.ReactiveInformerContender"
F8_MAIN="-cp $BENCH/peers/target/peers.jar $PKG.Fabric8Contender"
# the official client drops metadata.managedFields unless asked to keep them: keep them, so that every
# contender caches the same objects
OJ_MAIN="-Dkubernetes.client.includeManagedFields=true -cp $BENCH/peers/target/peers.jar $PKG.OfficialJavaContender"
OURS="java $JVM_FLAGS $OURS_MAIN"
F8="java $JVM_FLAGS $F8_MAIN"
OJ="java $JVM_FLAGS $OJ_MAIN"
# list + watch like the other contenders (the WatchListClient streaming list is not replayed); in JSON, and in
# protobuf as client-go's generated clients use it for built-in kinds (each process checks that the server
# answered in the encoding it asked for: served= in its RESULT lines)
CG="env KUBE_FEATURE_WatchListClient=false CLIENT_GO_ENCODING=json $BENCH/client-go/target/client-go-contender"
CG_PB="env KUBE_FEATURE_WatchListClient=false CLIENT_GO_ENCODING=protobuf CONTENDER_LABEL=client-go-protobuf $BENCH/client-go/target/client-go-contender"
HAVE_PEERS=0; [[ -f "$BENCH/peers/target/peers.jar" ]] && HAVE_PEERS=1
HAVE_GO=0; [[ -x "$BENCH/client-go/target/client-go-contender" && -x "$BENCH/client-go/target/corpus2pb" ]] && HAVE_GO=1

# name|command|handlers: every contender with an informer (the ceiling has none). The replay servers answer
# protobuf to whoever asks for it first, as kube-apiserver does, so a row's name says its encoding: this library's
# rows ask for JSON (OUR_ENCODING's default in ReactiveInformerContender) or protobuf (issue 33); summarize.py
# pairs each protobuf row with its JSON row.
informer_contenders() {
  echo "reactive-informer|$OURS|$1"
  echo "reactive-informer-protobuf|env OUR_ENCODING=PROTOBUF CONTENDER_LABEL=reactive-informer-protobuf $OURS|$1"
  if [[ $HAVE_PEERS == 1 ]]; then echo "fabric8|$F8|$1"; echo "official-java|$OJ|$1"; fi
  if [[ $HAVE_GO == 1 ]]; then echo "client-go|$CG|$1"; echo "client-go-protobuf|$CG_PB|$1"; fi
}

# the latency phase's extra rows (issue 35): every JVM contender with generational ZGC, named <name>-zgc
zgc_contenders() {
  [[ $ZGC == 1 ]] || return 0
  local j="$ZGC_JAVA $ZGC_FLAGS"
  echo "ceiling-zgc|env CONTENDER_LABEL=ceiling-zgc $j $CEILING_MAIN|1"
  echo "reactive-informer-zgc|env CONTENDER_LABEL=reactive-informer-zgc $j $OURS_MAIN|1"
  if [[ $HAVE_PEERS == 1 ]]; then
    echo "fabric8-zgc|env CONTENDER_LABEL=fabric8-zgc $j $F8_MAIN|1"
    echo "official-java-zgc|env CONTENDER_LABEL=official-java-zgc $j $OJ_MAIN|1"
  fi
}

# the matrix: the ceiling and every contender with one handler (FANOUT_N adds the fan-out rounds)
matrix_contenders() {
  # no fan-out rounds for the ceiling: it has no handlers
  echo "ceiling|env FANOUT_N=-1 java $JVM_FLAGS $CEILING_MAIN|1"
  informer_contenders 1
  # how sync time scales with cores: the peers bind a list on one thread, this library on the delivery pool
  if (( PIN_CORES > 0 )); then
    echo "reactive-informer-${PIN_CORES}cpu|env FANOUT_N=-1 CONTENDER_LABEL=reactive-informer-${PIN_CORES}cpu taskset -c 0-$((PIN_CORES - 1)) $OURS|1"
  fi
}

# corpus DIR N M: generates the corpus (or keeps an identical one) and, for client-go-protobuf, its protobuf
# form encoded by Go (k8s.io/apimachinery's serializer, read back equal to the JSON; kept like the JSON)
corpus() {
  java -cp "$JAR" $PKG.Corpus "$1" "$2" "$3" "$SEED" > /dev/null
  if [[ $HAVE_GO == 1 ]]; then "$BENCH/client-go/target/corpus2pb" "$1" > /dev/null; fi
}

SERVER_PIDS=()
# start_server DIR N M: generates the corpus (or keeps an identical one), starts a replay server for it
# and sets URL
start_server() {
  corpus "$1" "$2" "$3"
  local log=$1/server.log
  java -Xmx4g -cp "$JAR" $PKG.ReplayServer "$1" > "$log" 2>&1 &
  SERVER_PIDS+=($!)
  for _ in $(seq 300); do grep -q listening "$log" 2>/dev/null && break; sleep 0.2; done
  URL=$(sed -n 's/^listening //p' "$log")
  [[ -n "$URL" ]] || { echo "replay server for $1 did not start" >&2; cat "$log" >&2; exit 1; }
}
stop_servers() {
  for pid in "${SERVER_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  SERVER_PIDS=()
}
SLOW_PIDS=()
stop_all() {
  for pid in "${SLOW_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  stop_servers
}
trap stop_all EXIT

# contender NAME HANDLERS WARMUPS LABEL COMMAND...: runs one contender process against $URL and logs its RESULT lines
contender() {
  local name=$1 subs=$2 warmups=$3 label=$4; shift 4
  echo ">> $label $name x$subs (load $(cut -d' ' -f1 /proc/loadavg), at $(date +%T))" | tee -a "$OUT/raw.log"
  if ! timeout "${CONTENDER_TIMEOUT:-900}" "$@" "$URL" "$subs" "$warmups" 1 2>>"$OUT/raw.log" \
      | sed "s/^RESULT /RESULT run=$RUN load=$(cut -d' ' -f1 /proc/loadavg) /" | tee -a "$OUT/raw.log"; then
    echo "!! $name x$subs failed ($label)" | tee -a "$OUT/raw.log"
  fi
}

# interleaved NAME|COMMAND|HANDLERS entries: each run starts one contender later, so none always runs first
interleaved() {
  local label=$1 warmups=$2; shift 2
  local list=("$@") count=$#
  for i in $(seq 0 $((count - 1))); do
    IFS='|' read -r name cmd subs <<< "${list[$(((i + RUN - 1) % count))]}"
    contender "$name" "$subs" "$warmups" "$label run=$RUN" $cmd
  done
}

phase_time() { echo "phase $1: $(( $(date +%s) - $2 )) s" >> "$OUT/machine.txt"; }

# one corpus of SIDE_N objects serves the latency, slow-handler, threads and isolation phases: long enough
# for every stream
SIDE_EVENTS=$LAT_COUNT
for need in $(( SLOW_RATE * SLOW_SECONDS * 100 / 99 + 200 )) $(( ISO_RATE * ISO_SECONDS * 100 / 99 + 200 )); do
  (( need > SIDE_EVENTS )) && SIDE_EVENTS=$need
done
if [[ " $PHASES " == *" latency "* || " $PHASES " == *" slow "* || " $PHASES " == *" threads "* \
      || " $PHASES " == *" isolation "* ]]; then
  start_server "$BENCH/target/replay/n$SIDE_N-m$SIDE_EVENTS-s$SEED" "$SIDE_N" "$SIDE_EVENTS"
  SIDE_URL=$URL
fi
export INFORMERS SLOW_RATE SLOW_SECONDS SLOW_HANDLER_MS SLOW_SAMPLE_SECONDS
export ISO_RATE ISO_SECONDS ISO_CPU_MS ISO_SLEEP_MS ISO_FAST ISO_GRACE_S

if [[ " $PHASES " == *" slow "* ]]; then
  t_slow=$(date +%s)
  # every slow-handler contender at once, in the background: the phase measures memory at a rate every
  # contender sustains, not speed; at SLOW_RATE events/s it costs each process a few % of one core
  # (slow_cpu_s in the results), which is what it takes from the phases that run beside it
  RUN=1
  URL=$SIDE_URL
  mapfile -t LIST < <(informer_contenders 1; echo "reactive-informer-unbounded|env OUR_POLICY=unbounded $OURS|1")
  # their streams start together once every one of them is synced (the server's /go?together=)
  for entry in "${LIST[@]}"; do
    IFS='|' read -r name cmd subs <<< "$entry"
    BENCH_MODE=slow SLOW_TOGETHER=${#LIST[@]} CONTENDER_TIMEOUT=$((SLOW_SECONDS + 300)) \
      contender "$name" 1 0 "slow" $cmd > "$BENCH/target/slow-$name.log" &
    SLOW_PIDS+=($!)
  done
fi

CORPORA_PID=
if [[ " $PHASES " == *" matrix "* ]]; then
  # the matrix corpora are generated (or found) while the threads phase runs: that phase counts threads,
  # it does not time anything
  (for n in $WARMUP_N $SIZES; do
     events=$EVENTS; [[ $n == "$WARMUP_N" ]] && events=$WARMUP_EVENTS
     corpus "$BENCH/target/replay/n$n-m$events-s$SEED" "$n" "$events"
   done) &
  CORPORA_PID=$!
fi

if [[ " $PHASES " == *" threads "* ]]; then
  t0=$(date +%s)
  # beside the slow phase: a thread count does not depend on CPU time
  URL=$SIDE_URL
  mapfile -t LIST < <(informer_contenders 1)
  export BENCH_MODE=threads
  for RUN in $(seq "$RUNS"); do interleaved threads 0 "${LIST[@]}"; done
  phase_time threads "$t0"
fi

if [[ " $PHASES " == *" matrix "* ]]; then
  t0=$(date +%s)
  wait "$CORPORA_PID"
  if [[ ${#SLOW_PIDS[@]} -gt 0 ]]; then
    # the matrix starts once the slow contenders have synced and their paced streams run
    for _ in $(seq 600); do
      [[ $(grep -c '^GO ' "$BENCH/target/replay/n$SIDE_N-m$SIDE_EVENTS-s$SEED/server.log" 2>/dev/null || true) -ge 1 ]] && break
      sleep 0.5
    done
  fi
  # warm-up rounds run on a small corpus of their own: JIT and class loading warm up just the same,
  # and the measured rounds at large N do not pay for a second LIST of hundreds of MB
  start_server "$BENCH/target/replay/n$WARMUP_N-m$WARMUP_EVENTS-s$SEED" "$WARMUP_N" "$WARMUP_EVENTS"
  export BENCH_WARMUP_SERVER=$URL BENCH_MODE=matrix WATCH_MAX_N FANOUT_N FANOUT_SUBSCRIBERS SYNC_DEADLINE_S
  # one process per contender and run measures the watched sizes in turn (smallest first), then one
  # process per larger N: a client that keeps closed informers reachable (fabric8 does, ~25 KB per
  # object) would otherwise carry every smaller round's cache into the large ones
  SMALL=(); LARGE=()
  for n in $SIZES; do
    start_server "$BENCH/target/replay/n$n-m$EVENTS-s$SEED" "$n" "$EVENTS"
    if (( n <= WATCH_MAX_N )); then SMALL+=("$URL"); else LARGE+=("$URL"); fi
  done
  TARGETS=()
  if [[ ${#SMALL[@]} -gt 0 ]]; then TARGETS+=("$(IFS=,; echo "${SMALL[*]}")"); fi
  TARGETS+=("${LARGE[@]}")
  mapfile -t LIST < <(matrix_contenders)
  for RUN in $(seq "$RUNS"); do
    # six warm-up rounds before the small sizes, one before a large N: the watch stream at N = 1k is the
    # first measured, and after two warm-up rounds this library's longer path (cache, per-subscriber
    # buffer) still ran partly interpreted: 5,602 events/s after two, 7,511 after six (the decode alone:
    # 6,483 and 7,267; benchmarks/profile.sh events 1000, 2026-11-27)
    warmups=6
    for URL in "${TARGETS[@]}"; do interleaved matrix $warmups "${LIST[@]}"; warmups=1; done
  done
  unset BENCH_WARMUP_SERVER
  phase_time matrix "$t0"
fi

if [[ ${#SLOW_PIDS[@]} -gt 0 ]]; then
  for pid in "${SLOW_PIDS[@]}"; do wait "$pid" || true; done
  SLOW_PIDS=()
  cat "$BENCH"/target/slow-*.log
  phase_time "slow handler" "$t_slow"
fi

if [[ " $PHASES " == *" latency "* ]]; then
  t0=$(date +%s)
  URL=$SIDE_URL
  mapfile -t LIST < <(echo "ceiling|java $JVM_FLAGS $CEILING_MAIN|1"; informer_contenders 1; zgc_contenders)
  # one warm-up stream per process, like the measured one: without it the stream measured JIT compilation
  # and the GCs of start-up more than the pipeline (this library at 1,000/s: p99 29.8 ms cold, 1.5 ms after
  # one warm-up stream; benchmarks/profile.sh latency 1000 0|1, 2026-11-27)
  export BENCH_MODE=latency
  LAT_MAX_COUNT=$LAT_COUNT
  for LAT_RATE in $LAT_RATES; do
    LAT_COUNT=$(( LAT_RATE * LAT_SECONDS < LAT_MAX_COUNT ? LAT_RATE * LAT_SECONDS : LAT_MAX_COUNT ))
    export LAT_RATE LAT_COUNT
    for RUN in $(seq "$RUNS"); do interleaved latency 1 "${LIST[@]}"; done
  done
  phase_time latency "$t0"
fi

if [[ " $PHASES " == *" isolation "* ]]; then
  # after the slow phase, like latency: it measures lag, which CPU taken by other processes would inflate
  t0=$(date +%s)
  URL=$SIDE_URL
  mapfile -t LIST < <(informer_contenders 1)
  # no warm-up round: the first second of the paced stream is discarded instead
  export BENCH_MODE=isolation
  for RUN in $(seq "$ISO_RUNS"); do interleaved isolation 0 "${LIST[@]}"; done
  phase_time isolation "$t0"
fi

if [[ " $PHASES " == *" storm "* ]]; then
  # issue 30: handlers added to a running informer of STORM_N objects (StormRun.java). The Go contender has
  # no storm mode yet: the JVM contenders only (client-go in either encoding left out).
  t0=$(date +%s)
  stop_servers
  STORM_EVENTS=$(( STORM_RATE * STORM_SECONDS * 100 / 99 + 200 ))
  start_server "$BENCH/target/replay/n$STORM_N-m$STORM_EVENTS-s$SEED" "$STORM_N" "$STORM_EVENTS"
  mapfile -t LIST < <(informer_contenders 1 | grep -v '^client-go')
  export BENCH_MODE=storm STORM_RATE STORM_SECONDS STORM_BASELINE_S STORM_JOINS
  for RUN in $(seq "$STORM_RUNS"); do interleaved storm 0 "${LIST[@]}"; done
  phase_time storm "$t0"
fi
stop_servers

if [[ " $PHASES " == *" workqueue "* ]]; then
  # last, on the idle machine: JMH's own forked JVM, warm-up and measured iterations; summarize.py reads
  # its CSV (score, error and the gc profiler's bytes per operation)
  t0=$(date +%s)
  rm -f "$OUT/workqueue_jmh.csv"
  java -jar "$JAR" WorkQueueThroughputBenchmark -prof gc -rf csv -rff "$OUT/workqueue_jmh.csv" \
    > "$OUT/workqueue_jmh.txt" 2>&1 || echo "!! workqueue JMH failed: $OUT/workqueue_jmh.txt" | tee -a "$OUT/raw.log"
  phase_time workqueue "$t0"
fi

echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/machine.txt"
echo "total: $(( $(date +%s) - BEGAN )) s" >> "$OUT/machine.txt"
"$PY" "$BENCH/summarize.py" "$OUT"
echo "results in $OUT"
}

# exit on the same line: bash reads a script as it runs it, and an edit during the run would otherwise be
# read after main returns
main "$@"; exit
