#!/usr/bin/env bash
# Where the time goes, for a measure of the side-by-side results: runs one contender process against the
# corpus run.sh replays, under Java Flight Recorder with a GC log, and prints what the recording shows
# (profile-summary.py): samples per thread, the hottest methods (on top of the stack, and anywhere in it),
# CPU load, GC pauses and JIT compilations.
#
#   benchmarks/profile.sh sync N              time to synced at N (WARMUPS rounds on N=1000 first, default 1)
#   benchmarks/profile.sh events N            the watch stream at full speed after a sync of N (N <= 10000)
#   benchmarks/profile.sh latency RATE [W]    the paced stream at RATE events/s after a sync of 1,000, with W
#                                             warm-up streams before the measured one (default 0, as run.sh)
#
# CONTENDER=ceiling profiles the bare decode instead of this library. Needs the jar and corpora of a run.sh
# run (SKIP_BUILD=1 keeps the jar as built). Output: benchmarks/target/profile/<what>-<contender>/
# (recording.jfr, gc.log, result.txt, summary.txt). Like run.sh: an idle machine, or the numbers mean little.
set -euo pipefail
cd "$(dirname "$0")"
BENCH=$PWD
what=${1:?sync N, events N or latency RATE [WARMUPS]} arg=${2:?}
CONTENDER=${CONTENDER:-reactive-informer}
JVM_FLAGS=${JVM_FLAGS:-"-Xms1g -Xmx6g -XX:+UseG1GC"}
SEED=${SEED:-42}
JAR=$BENCH/target/benchmarks.jar
PKG=io.reactiveinformer.benchmarks.sidebyside
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then (cd .. && mvn -B -q -pl benchmarks -am package -DskipTests); fi
case "$CONTENDER" in
  reactive-informer) main=$PKG.ReactiveInformerContender ;;
  ceiling) main=$PKG.CeilingContender ;;
  *) echo "CONTENDER: reactive-informer or ceiling" >&2; exit 2 ;;
esac

PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
# serve DIR N M: the same corpus and replay server as run.sh's; sets URL (not printed: in a command
# substitution's subshell the server's pid would never reach PIDS, and the server would outlive the script)
serve() {
  java -cp "$JAR" $PKG.Corpus "$1" "$2" "$3" "$SEED" > /dev/null
  java -Xmx4g -cp "$JAR" $PKG.ReplayServer "$1" > "$1/server.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 300); do grep -q listening "$1/server.log" 2>/dev/null && break; sleep 0.2; done
  URL=$(sed -n 's/^listening //p' "$1/server.log")
}

warmups=${WARMUPS:-1}
case "$what" in
  sync|events)
    export BENCH_MODE=matrix FANOUT_N=-1
    serve "$BENCH/target/replay/n$arg-m10000-s$SEED" "$arg" 10000; url=$URL
    serve "$BENCH/target/replay/n1000-m2000-s$SEED" 1000 2000; BENCH_WARMUP_SERVER=$URL
    export BENCH_WARMUP_SERVER
    if [[ $what == sync ]]; then export WATCH_MAX_N=0; else export WATCH_MAX_N=$arg; fi ;;
  latency)
    export BENCH_MODE=latency LAT_RATE=$arg LAT_COUNT=$(( arg * ${LAT_SECONDS:-10} < 20000 ? arg * ${LAT_SECONDS:-10} : 20000 ))
    warmups=${3:-0}
    serve "$BENCH/target/replay/n1000-m20000-s$SEED" 1000 20000; url=$URL ;;
  *) echo "sync N, events N or latency RATE [WARMUPS]" >&2; exit 2 ;;
esac

out=$BENCH/target/profile/$what-$arg${3:+-w$3}-$CONTENDER
rm -rf "$out" && mkdir -p "$out"
# shellcheck disable=SC2086 # JVM_FLAGS is a list of flags
java $JVM_FLAGS \
  -XX:FlightRecorderOptions:stackdepth=256 -XX:StartFlightRecording=filename="$out/recording.jfr",settings=profile \
  -Xlog:gc,safepoint:file="$out/gc.log":uptime \
  -cp "$JAR" "$main" "$url" 1 "$warmups" 1 2>"$out/stderr.log" | tee "$out/result.txt"
python3 "$BENCH/profile-summary.py" "$out" | tee "$out/summary.txt"
