#!/usr/bin/env bash
# Time to synced and peak used heap of one ConfigMap informer listing with LIST (the reflector's default)
# and with a streaming list (sendInitialEvents), in alternating rounds against the test environment's real
# kube-apiserver (StreamingListVsList), then client-go's informer in both modes over the same objects
# (benchmarks/client-go/streaminglist, one process per round and mode: client-go reads the mode from
# KUBE_FEATURE_WatchListClient at start), when Go is installed. Writes benchmarks/results/streaming_list_n$N.csv
# and prints the medians.
#
#   benchmarks/streaming-list.sh                   N=10000 ConfigMaps of 5,000 bytes, RUNS=5 rounds per mode
#   N=50000 RUNS=3 benchmarks/streaming-list.sh
#   ENCODINGS=PROTOBUF,JSON benchmarks/streaming-list.sh   each mode in both encodings our client reads
#
# Run it on an idle machine, as benchmarks/run.sh. SKIP_BUILD=1 uses the benchmarks jar as built.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-10000} BYTES=${BYTES:-5000} RUNS=${RUNS:-5}
JVM_FLAGS=${JVM_FLAGS:-"-Xms1g -Xmx6g -XX:+UseG1GC"}
out=benchmarks/results/streaming_list_n$N.csv

if [[ -z "${SKIP_BUILD:-}" ]]; then
  mvn -B -q -pl benchmarks -am package -DskipTests
fi
testenv/build.sh >/dev/null
env_dir="$(TESTENV_OWNER_PID=$$ testenv/testenv.sh start)"
trap 'testenv/testenv.sh stop "$env_dir"' EXIT

# shellcheck disable=SC2086 # JVM_FLAGS is a list of flags
java $JVM_FLAGS -Dn="$N" -Dbytes="$BYTES" -Druns="$RUNS" -Dencodings="${ENCODINGS:-PROTOBUF}" -Dkubeconfig="$env_dir/kubeconfig" -Dcontext=admin \
  -cp benchmarks/target/benchmarks.jar io.reactiveinformer.benchmarks.watch.StreamingListVsList \
  2> >(grep -v ' INFO \| DEBUG ' >&2) | tee "$out.tmp"
grep -v '^median' "$out.tmp" >"$out"
rm -f "$out.tmp"

if command -v go >/dev/null; then
  (cd benchmarks/client-go && go build -o target/streaminglist ./streaminglist)
  echo "contender,mode,objects,synced_ms" >"$out.client-go"
  for round in $(seq 1 "$RUNS"); do
    for mode in true false; do
      KUBE_FEATURE_WatchListClient=$mode benchmarks/client-go/target/streaminglist "$env_dir/kubeconfig" admin \
        streaming-list-bench 2>/dev/null | tee -a "$out.client-go"
    done
  done
  for mode in streaming list; do
    awk -F, -v m="$mode" '$2 == m { print $4 }' "$out.client-go" | sort -n \
      | awk -v m="$mode" '{ v[NR] = $1 } END { print "median client-go " m ": synced " v[int((NR + 1) / 2)] " ms over " NR " rounds" }'
  done
fi
echo "streaming-list: rounds in $out" >&2
