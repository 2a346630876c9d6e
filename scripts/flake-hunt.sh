#!/usr/bin/env bash
# Runs the test suite many times in a row and counts, per test class, how often it passed: a class that
# does not pass every time is flaky, and a flaky test is a defect to fix at its cause.
#
#   scripts/flake-hunt.sh [-n RUNS] [-p MODULES] [-c DIR] [-- MAVEN_ARGS...]
#
#   -n RUNS     how many runs (default 20); every second run has a CPU hog beside it (stress-ng on every
#               core), which shifts thread interleavings the way a busy CI machine does
#   -p MODULES  only these modules (and what they need): passed to mvn as -pl MODULES -am
#   -k          keep going without a real kube-apiserver (the e2e module then starts its own per JVM);
#               by default one environment is started for all runs, as .ci/run does
#   -c DIR      continue the hunt in DIR (an earlier hunt's output, stopped before its last run, for
#               instance when a session ended): its results are kept and the runs go on from the next
#               number, so the counts stay those of one hunt; check out the same commit first
#
# Each run is `mvn -B verify` (plus MAVEN_ARGS). Output: flake-hunt/<timestamp>/ with every run's Maven
# log, the reports of failed classes, results.csv (run,hog,class,tests,failures,errors,skipped,seconds)
# and summary.txt, which is also printed.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=20 modules="" own_env=1 out=""
while getopts "n:p:kc:" opt; do
  case "$opt" in
    n) runs="$OPTARG" ;;
    p) modules="$OPTARG" ;;
    k) own_env=0 ;;
    c) out="$OPTARG" ;;
    *) sed -n '2,20p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))

if ! command -v stress-ng >/dev/null; then
  echo "flake-hunt: installing stress-ng" >&2
  if ! apt-get install -y stress-ng >/dev/null 2>&1; then
    apt-get update >/dev/null && apt-get install -y stress-ng >/dev/null
  fi
fi

first=1
if [[ -n "$out" ]]; then
  # A run that was cut off left no line in runs.txt and maybe some rows in results.csv: drop those rows
  # and run it again.
  first=$(( $(grep -c '^run ' "$out/runs.txt" 2>/dev/null || true) + 1 ))
  awk -F, -v first="$first" 'NR == 1 || $1 < first' "$out/results.csv" >"$out/results.csv.tmp"
  mv "$out/results.csv.tmp" "$out/results.csv"
  echo "flake-hunt: continuing $out from run $first" >&2
else
  out="flake-hunt/$(date -u +%Y%m%dT%H%M%SZ)"
  mkdir -p "$out"
  echo "run,hog,class,tests,failures,errors,skipped,seconds" >"$out/results.csv"
fi
results="$out/results.csv"

hog_pid=""
env_dir=""
cleanup() {
  [[ -n "$hog_pid" ]] && kill "$hog_pid" 2>/dev/null || true
  [[ -n "$env_dir" ]] && testenv/testenv.sh stop "$env_dir" || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if (( own_env )); then
  testenv/build.sh >/dev/null
  env_dir="$(TESTENV_OWNER_PID=$$ testenv/testenv.sh start)"
  export REACTIVE_INFORMER_KUBECONFIG="$env_dir/kubeconfig"
fi

mvn_args=(-B verify)
[[ -n "$modules" ]] && mvn_args+=(-pl "$modules" -am)
mvn_args+=("$@")

attr() { sed -n "s/.*[[:space:]]$1=\"\([^\"]*\)\".*/\1/p" <<<"$2" | head -n 1; }

for (( run = first; run <= runs; run++ )); do
  hog=$(( run % 2 == 0 ))
  find . -path ./flake-hunt -prune -o -type d -name surefire-reports -path '*/target/*' -print0 \
    | xargs -0 rm -rf
  if (( hog )); then
    stress-ng --cpu "$(nproc)" --timeout 0 >/dev/null 2>&1 &
    hog_pid=$!
  fi
  t0=$SECONDS
  status=passed
  mvn "${mvn_args[@]}" >"$out/run-$run.log" 2>&1 || status=FAILED
  if [[ -n "$hog_pid" ]]; then kill "$hog_pid" 2>/dev/null || true; wait "$hog_pid" 2>/dev/null || true; hog_pid=""; fi
  echo "run $run/$runs ($([[ $hog == 1 ]] && echo "with CPU hog" || echo "idle")): $status in $(( SECONDS - t0 ))s" \
    | tee -a "$out/runs.txt" >&2
  while IFS= read -r -d '' report; do
    head="$(grep -m1 -o '<testsuite [^>]*>' "$report")"
    class="$(attr name "$head")"
    failures="$(attr failures "$head")" errors="$(attr errors "$head")"
    echo "$run,$hog,$class,$(attr tests "$head"),$failures,$errors,$(attr skipped "$head"),$(attr time "$head")" >>"$results"
    if [[ "$failures" != 0 || "$errors" != 0 ]]; then
      mkdir -p "$out/failed-run-$run"
      cp "$(dirname "$report")/$class".txt "$(dirname "$report")/$class"-output.txt "$out/failed-run-$run/" 2>/dev/null || true
      cp "$report" "$out/failed-run-$run/"
    fi
  done < <(find . -path ./flake-hunt -prune -o -path '*/target/surefire-reports/TEST-*.xml' -print0)
done

took=$(sed -n 's/.* in \([0-9]*\)s$/\1/p' "$out/runs.txt" | awk '{ s += $1 } END { print s + 0 }')
awk -F, -v runs="$(grep -c '^run ' "$out/runs.txt")" -v took="$took" 'NR > 1 {
    key = $3; seen[key]++; if ($5 == 0 && $6 == 0) ok[key]++
    if ($2 == 1) { hseen[key]++; if ($5 == 0 && $6 == 0) hok[key]++ }
  }
  END {
    printf "%d runs taking %d s in all; per test class: passed/ran (with the CPU hog: passed/ran)\n", runs, took
    for (k in seen) {
      line = sprintf("%-90s %3d/%-3d (%d/%d)%s", k, ok[k], seen[k], hok[k], hseen[k], ok[k] < seen[k] ? "  FLAKY" : "")
      print line | "sort"
    }
    close("sort")
  }' "$results" >"$out/summary.txt"
cat "$out/runs.txt" >>"$out/summary.txt"
cat "$out/summary.txt"
echo "flake-hunt: details in $out" >&2
grep -q 'FLAKY\|: FAILED in' "$out/summary.txt" && exit 1 || exit 0
