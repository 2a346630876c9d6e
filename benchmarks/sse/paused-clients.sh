#!/usr/bin/env bash
# Issue 30's paused SSE clients, at the current code: the example dashboard (embedded simulated server,
# one change per second) serves N clients of /events that then stop reading, paused with SIGSTOP and
# connections open. Every INTERVAL seconds for DURATION seconds it prints how many subscribers the pods
# informer has (/actuator/informers), the JVM's used heap and the bytes the server has queued (Send-Q of
# the app's sockets) and the clients have not read (Recv-Q of theirs).
#
#   benchmarks/sse/paused-clients.sh [N=1000] [DURATION=150] [INTERVAL=10]
set -euo pipefail
cd "$(dirname "$0")/../.."
n="${1:-1000}" duration="${2:-150}" interval="${3:-10}"
port="${DASHBOARD_PORT:-18080}"
out="$(mktemp -d)"

# the README's command for the dashboard
# in its own process group, so that everything Maven started goes with it
setsid mvn -B -q -pl examples/webflux-dashboard -am -DskipTests compile exec:java -Dexec.args="--server.port=$port" \
  >"$out/app.log" 2>&1 &
app=$!
clients=""
cleanup() {
  if [ -n "$clients" ]; then kill -CONT "$clients"; kill "$clients"; fi
  kill -- "-$app"
} 2>/dev/null
trap 'cleanup || true' EXIT
for _ in $(seq 1 600); do
  curl -sf "http://127.0.0.1:$port/actuator/health/readiness" >/dev/null && break
  kill -0 "$app" 2>/dev/null || { tail -20 "$out/app.log"; exit 1; }
  sleep 0.5
done

subscribers() {
  curl -sf "http://127.0.0.1:$port/actuator/informers" | python3 -c '
import json, sys
d = json.load(sys.stdin)
informers = d["informers"] if isinstance(d, dict) and "informers" in d else d
print(sum(len(i.get("subscribers", [])) for i in (informers.values() if isinstance(informers, dict) else informers)))'
}
heap_mb() {
  curl -sf "http://127.0.0.1:$port/actuator/metrics/jvm.memory.used?tag=area:heap" \
    | python3 -c 'import json,sys; print(round(json.load(sys.stdin)["measurements"][0]["value"]/1e6))'
}
queued_kb() {  # $1: sport (the server's sockets) or dport (the clients'); $2: the column, 1 Recv-Q or 2 Send-Q
  ss -tnH state established "( $1 = :$port )" | awk -v col="$2" '{s += $col} END {print int(s/1024)}'
}

echo "before: subscribers $(subscribers), heap $(heap_mb) MB"
coproc CLIENTS { python3 benchmarks/sse/paused_clients.py 127.0.0.1 "$port" /events "$n"; }
clients=$CLIENTS_PID
read -r line <&"${CLIENTS[0]}"
echo "$line"
kill -STOP "$clients"
echo "paused the client process (pid $clients)"
echo "t_s subscribers heap_mb server_sendq_kb client_recvq_kb"
for t in $(seq 0 "$interval" "$duration"); do
  echo "$t $(subscribers) $(heap_mb) $(queued_kb sport 2) $(queued_kb dport 1)"
  [ "$t" -lt "$duration" ] && sleep "$interval"
done
kill -CONT "$clients"; kill "$clients"; wait "$clients" 2>/dev/null || true
for _ in $(seq 1 20); do [ "$(subscribers)" -le 1 ] && break; sleep 0.5; done
echo "after the clients exited: subscribers $(subscribers), heap $(heap_mb) MB"
