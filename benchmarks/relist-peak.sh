#!/usr/bin/env bash
# The heap a relist takes with the store full (RelistPeak): an informer syncs N pods from a replay server, then
# the server ends the watch with a 410 and answers the relist with the same list in which 0 %, 10 % or 100 % of
# the pods changed. Writes benchmarks/results/relist_peak_n$N.csv and prints the medians.
#
#   benchmarks/relist-peak.sh                 N=100000 pods, RUNS=3 rounds (after one warm-up round)
#   N=10000 RUNS=1 WARMUP=false benchmarks/relist-peak.sh   (WARMUP=false: no warm-up round)
#
# Run it on an idle machine, as benchmarks/run.sh. SKIP_BUILD=1 uses the benchmarks jar as built; JAR=... runs
# another build of it (e.g. one of an earlier commit, for a before/after).
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-100000} RUNS=${RUNS:-3} WARMUP=${WARMUP:-true} SEED=${SEED:-42} FRACTIONS=${FRACTIONS:-0,0.1,1}
JVM_FLAGS=${JVM_FLAGS:-"-Xms1g -Xmx6g -XX:+UseG1GC"}
JAR=${JAR:-benchmarks/target/benchmarks.jar}
PKG=io.reactiveinformer.benchmarks.sidebyside
out=benchmarks/results/relist_peak_n$N.csv
corpus=benchmarks/target/replay/n$N-m100-s$SEED

if [[ -z "${SKIP_BUILD:-}" ]]; then
  mvn -B -q -pl benchmarks -am package -DskipTests
fi
java -cp "$JAR" $PKG.Corpus "$corpus" "$N" 100 "$SEED" >/dev/null
log=$corpus/server.log
java -Xmx4g -cp "$JAR" $PKG.ReplayServer "$corpus" >"$log" 2>&1 &
server_pid=$!
trap 'kill $server_pid 2>/dev/null || true' EXIT
for _ in $(seq 300); do grep -q listening "$log" 2>/dev/null && break; sleep 0.2; done
url=$(sed -n 's/^listening //p' "$log")
[[ -n "$url" ]] || { echo "replay server did not start" >&2; cat "$log" >&2; exit 1; }

# shellcheck disable=SC2086 # JVM_FLAGS is a list of flags
java $JVM_FLAGS -Dserver="$url" -Druns="$RUNS" -Dwarmup="$WARMUP" -Dfractions="$FRACTIONS" \
  -cp "$JAR" io.reactiveinformer.benchmarks.watch.RelistPeak \
  2> >(grep -v ' INFO \| DEBUG ' >&2) | tee "$out.tmp"
grep -v '^median' "$out.tmp" >"$out"
rm -f "$out.tmp"
echo "relist-peak: rounds in $out" >&2
