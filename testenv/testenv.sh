#!/usr/bin/env bash
# A real etcd + kube-apiserver on 127.0.0.1 for the end-to-end tests.
#
#   testenv.sh start [DIR]            build the binaries if missing, generate certs and a token, start etcd and
#                                     kube-apiserver, wait for /readyz; prints DIR (state, logs,
#                                     DIR/kubeconfig, DIR/testenv.properties) as the last stdout line
#   testenv.sh stop DIR               stop both and delete etcd's data (idempotent); logs stay
#   testenv.sh stop-apiserver DIR | start-apiserver DIR | restart-apiserver DIR
#   testenv.sh stop-etcd DIR      | start-etcd DIR      | restart-etcd DIR
#   testenv.sh kill-apiserver DIR | kill-etcd DIR      SIGKILL (a crash); start-* brings it back
#   testenv.sh compact DIR            expire every resourceVersion handed out so far (see below)
#   testenv.sh snapshot-etcd DIR NAME | restore-etcd DIR NAME
#                                     copy etcd's data aside / put etcd back on that copy (see below)
#
# TESTENV_FEATURE_GATES: kube-apiserver's --feature-gates (default ShardedListAndWatch=true; empty for none).
#
# Ports are picked at random below the kernel's ephemeral range so that a restarted process gets its
# port back. With TESTENV_OWNER_PID set, `start` also leaves a watchdog that stops the environment
# when that process exits (the JUnit extension passes its JVM's pid, so a killed test run leaks nothing).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"

APISERVER_READY_TIMEOUT="${TESTENV_APISERVER_READY_TIMEOUT:-120}"
# kube-apiserver's feature gates: server-side sharded list and watch (KEP-5866, alpha in 1.36, off by default
# there) is on unless TESTENV_FEATURE_GATES says otherwise; set it empty for a server with every gate at its
# default, as an older or stock server answers.
FEATURE_GATES="${TESTENV_FEATURE_GATES-ShardedListAndWatch=true}"
ETCD_READY_TIMEOUT="${TESTENV_ETCD_READY_TIMEOUT:-30}"
STOP_TIMEOUT=20

die() { echo "testenv: $*" >&2; exit 1; }

prop() { # prop DIR KEY
  local value
  value="$(sed -n "s/^$2=//p" "$1/testenv.properties")"
  [[ -n "$value" ]] || die "$1/testenv.properties has no $2"
  echo "$value"
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

pick_ports() { # pick_ports N: N distinct free ports in [10000, 32000)
  local picked=() port attempts=0
  while (( ${#picked[@]} < $1 )); do
    (( attempts++ < 200 )) || die "no free port found"
    port=$(( 10000 + (RANDOM * 32768 + RANDOM) % 22000 ))
    [[ " ${picked[*]} " == *" $port "* ]] && continue
    port_in_use "$port" && continue
    picked+=("$port")
  done
  echo "${picked[@]}"
}

log_tail() { # log_tail FILE
  echo "---- last 40 lines of $1 ----" >&2
  tail -n 40 "$1" >&2 || true
  echo "----" >&2
}

# A process that has exited but is not reaped yet (a zombie) counts as gone: kill -0 still succeeds on it.
running() { # running PID: true while any thread of the process is alive
  local state threads
  state="$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" || return 1
  [[ -n "$state" ]] || return 1
  [[ "$state" != Z ]] && return 0
  # A killed multi-threaded process (kube-apiserver, etcd) shows its main thread as a zombie while its
  # other threads are still exiting, and they still hold its sockets: a restart then fails with "address
  # already in use". Gone means no thread left but the zombie main thread.
  threads="$(ls "/proc/$1/task" 2>/dev/null | wc -l)"
  (( threads > 1 ))
}

alive() { [[ -f "$1" ]] && running "$(cat "$1")"; }

wait_gone() { # wait_gone PID SECONDS: 0 once the process is gone, 1 if it is still there after SECONDS
  local deadline=$(( SECONDS + $2 ))
  while running "$1"; do
    (( SECONDS < deadline )) || return 1
    sleep 0.1
  done
}

stop_process() { # stop_process DIR NAME: SIGTERM, then (once, with one message) SIGKILL after STOP_TIMEOUT
  local pidfile="$1/$2.pid" pid
  alive "$pidfile" || { rm -f "$pidfile"; return 0; }
  pid="$(cat "$pidfile")"
  kill -TERM "$pid" 2>/dev/null || true
  if ! wait_gone "$pid" "$STOP_TIMEOUT"; then
    echo "testenv: $2 (pid $pid) still running ${STOP_TIMEOUT}s after SIGTERM, killing it" >&2
    kill -KILL "$pid" 2>/dev/null || true
    wait_gone "$pid" 10 || die "$2 (pid $pid) survived SIGKILL"
  fi
  rm -f "$pidfile"
}

kill_process() { # kill_process DIR NAME: SIGKILL, as a crash or an OOM kill would end it
  local pidfile="$1/$2.pid" pid
  alive "$pidfile" || { rm -f "$pidfile"; return 0; }
  pid="$(cat "$pidfile")"
  kill -KILL "$pid" 2>/dev/null || true
  wait_gone "$pid" 10 || die "$2 (pid $pid) survived SIGKILL"
  rm -f "$pidfile"
}

wait_ready() { # wait_ready DIR NAME TIMEOUT CURL_ARGS...
  local dir="$1" name="$2" timeout="$3"; shift 3
  local deadline=$(( SECONDS + timeout ))
  until curl -fsS --max-time 2 -o /dev/null "$@" 2>/dev/null; do
    if ! alive "$dir/$name.pid"; then
      log_tail "$dir/$name.log"
      die "$name exited during startup (log: $dir/$name.log)"
    fi
    if (( SECONDS >= deadline )); then
      log_tail "$dir/$name.log"
      die "$name not ready after ${timeout}s (log: $dir/$name.log)"
    fi
    sleep 0.2
  done
}

start_etcd() { # start_etcd DIR
  local dir="$1"
  alive "$dir/etcd.pid" && return 0
  local client peer
  client="$(prop "$dir" etcdPort)"; peer="$(prop "$dir" etcdPeerPort)"
  # setsid + redirects: the daemon must not hold the caller's stdout (a JVM reading it would never see EOF).
  setsid "$(prop "$dir" binDir)/etcd" \
    --name=testenv \
    --data-dir="$dir/etcd-data" \
    --listen-client-urls="http://127.0.0.1:$client" \
    --advertise-client-urls="http://127.0.0.1:$client" \
    --listen-peer-urls="http://127.0.0.1:$peer" \
    --initial-advertise-peer-urls="http://127.0.0.1:$peer" \
    --initial-cluster="testenv=http://127.0.0.1:$peer" \
    --unsafe-no-fsync \
    --log-level=warn \
    >>"$dir/etcd.log" 2>&1 </dev/null &
  echo $! >"$dir/etcd.pid"
  wait_ready "$dir" etcd "$ETCD_READY_TIMEOUT" "http://127.0.0.1:$client/readyz"
}

start_apiserver() { # start_apiserver DIR
  local dir="$1"
  alive "$dir/kube-apiserver.pid" && return 0
  local port pki="$dir/pki"
  port="$(prop "$dir" apiserverPort)"
  # ServiceAccount admission is off because nothing creates the `default` service account without a
  # controller manager: with it on, every pod create would fail. Everything else is the stock set.
  # The watch grace period bounds a SIGTERM: without it the server waits for open watches (which live
  # 30+ minutes) until its 60 s shutdown timeout; with it, watches are ended after 2 s and it exits
  # in about 3 s, as a real apiserver's rolling restart does.
  setsid "$(prop "$dir" binDir)/kube-apiserver" \
    --bind-address=127.0.0.1 \
    --advertise-address=127.0.0.1 \
    --secure-port="$port" \
    --etcd-servers="http://127.0.0.1:$(prop "$dir" etcdPort)" \
    --cert-dir="$dir/apiserver" \
    --tls-cert-file="$pki/apiserver.crt" \
    --tls-private-key-file="$pki/apiserver.key" \
    --client-ca-file="$pki/ca.crt" \
    --token-auth-file="$pki/tokens.csv" \
    --authorization-mode=RBAC \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-account-key-file="$pki/sa.pub" \
    --service-account-signing-key-file="$pki/sa.key" \
    --service-cluster-ip-range=10.0.0.0/24 \
    --disable-admission-plugins=ServiceAccount \
    --allow-privileged=true \
    --profiling=false \
    --shutdown-watch-termination-grace-period=2s \
    ${FEATURE_GATES:+--feature-gates="$FEATURE_GATES"} \
    >>"$dir/kube-apiserver.log" 2>&1 </dev/null &
  echo $! >"$dir/kube-apiserver.pid"
  wait_ready "$dir" kube-apiserver "$APISERVER_READY_TIMEOUT" \
    --cacert "$pki/ca.crt" --cert "$pki/admin.crt" --key "$pki/admin.key" "https://127.0.0.1:$port/readyz"
}

cert() { # cert PKI NAME SUBJECT EXTENSIONS: EC P-256 key and a CA-signed certificate
  local pki="$1" name="$2"
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$pki/$name.key" 2>/dev/null
  openssl req -new -key "$pki/$name.key" -subj "$3" -out "$pki/$name.csr" 2>/dev/null
  printf '%s\n' "$4" >"$pki/$name.ext"
  openssl x509 -req -in "$pki/$name.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
    -days 365 -sha256 -extfile "$pki/$name.ext" -out "$pki/$name.crt" 2>/dev/null
  rm -f "$pki/$name.csr" "$pki/$name.ext"
}

generate_pki() { # generate_pki DIR
  local pki="$1/pki"
  mkdir -p "$pki"
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$pki/ca.key" 2>/dev/null
  openssl req -x509 -new -key "$pki/ca.key" -subj "/CN=reactive-informer-testenv-ca" -days 365 -sha256 \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out "$pki/ca.crt" 2>/dev/null
  cert "$pki" apiserver "/CN=kube-apiserver" "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc"
  local client="basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth"
  # system:masters is bound to cluster-admin by the bootstrap RBAC policy.
  cert "$pki" admin "/O=system:masters/CN=testenv-admin" "$client"
  # Authenticated (so system:authenticated) but bound to nothing beyond discovery: the 403 identity.
  cert "$pki" restricted "/O=reactive-informer:restricted/CN=testenv-restricted" "$client"
  # A bearer-token identity (static token file), also in system:masters: for token, token-file and exec
  # plugin tests. A fresh random token per environment.
  openssl rand -hex 32 >"$pki/token"
  printf '%s,testenv-token,testenv-token,"system:masters"\n' "$(cat "$pki/token")" >"$pki/tokens.csv"
  chmod 600 "$pki/token" "$pki/tokens.csv"
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$pki/sa.key" 2>/dev/null
  openssl pkey -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
}

write_kubeconfig() { # write_kubeconfig DIR
  local dir="$1" pki="$1/pki"
  b64() { base64 -w0 "$1"; }
  cat >"$dir/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: testenv
  cluster:
    server: $(prop "$dir" server)
    certificate-authority-data: $(b64 "$pki/ca.crt")
users:
- name: admin
  user:
    client-certificate-data: $(b64 "$pki/admin.crt")
    client-key-data: $(b64 "$pki/admin.key")
- name: restricted
  user:
    client-certificate-data: $(b64 "$pki/restricted.crt")
    client-key-data: $(b64 "$pki/restricted.key")
- name: token
  user:
    token: $(cat "$pki/token")
contexts:
- name: admin
  context:
    cluster: testenv
    user: admin
- name: restricted
  context:
    cluster: testenv
    user: restricted
- name: token
  context:
    cluster: testenv
    user: token
current-context: admin
EOF
}

etcd_revision() { # etcd_revision DIR: etcd's current revision, via its JSON gateway
  curl -fsS --max-time 5 -X POST "$(prop "$1" etcd)/v3/kv/range" -d '{"key":"AA==","limit":"1"}' \
    | sed -n 's/.*"revision":"\([0-9]*\)".*/\1/p'
}

# Why compact restarts the apiserver: with the watch cache on (the default, and what clusters run),
# a WATCH is served from the cache's event window, which starts at the revision the cache listed at
# when it was (re)initialized, and only slides when more events arrive than the window holds (at
# least 100, doubling while they are younger than 75 s). etcd compaction alone does not touch that
# window (it only trims the cache's list snapshots), so it never makes a watch answer 410. What does,
# deterministically, is a re-initialized cache: after a restart the cache lists at etcd's current
# revision, and a watch from any older resourceVersion gets an ERROR event with a 410 Status
# ("too old resource version"). The write guarantees the revision moved past every RV handed out;
# the etcd compaction makes LISTs at an exact old RV, and old continue tokens, answer 410 as well.
compact() { # compact DIR
  local dir="$1" etcd revision
  etcd="$(prop "$dir" etcd)"
  curl -fsS --max-time 5 -o /dev/null -X POST "$etcd/v3/kv/put" \
    -d "{\"key\":\"$(printf '/reactive-informer-testenv/compacted' | base64 -w0)\",\"value\":\"$(date +%s%N | base64 -w0)\"}"
  revision="$(etcd_revision "$dir")"
  [[ -n "$revision" ]] || die "could not read etcd's revision"
  curl -fsS --max-time 30 -o /dev/null -X POST "$etcd/v3/kv/compaction" \
    -d "{\"revision\":\"$revision\",\"physical\":true}"
  stop_process "$dir" kube-apiserver
  start_apiserver "$dir"
  echo "$revision"
}

# Snapshots are cold copies of etcd's data directory, taken with etcd stopped for a moment (a second
# or two, which the apiserver rides out as a short etcd outage): the testenv builds no etcdutl, and a
# copy restores exactly what `etcdutl snapshot restore` would without --bump-revision, the data and
# the revision counter as they were, which is the case a restored cluster must survive.
snapshot_etcd() { # snapshot_etcd DIR NAME
  local dir="$1" target="$1/snapshots/$2"
  [[ "$2" =~ ^[A-Za-z0-9._-]+$ ]] || die "bad snapshot name '$2'"
  rm -rf "$target"
  mkdir -p "$dir/snapshots"
  stop_process "$dir" etcd
  cp -a "$dir/etcd-data" "$target"
  start_etcd "$dir"
}

restore_etcd() { # restore_etcd DIR NAME: etcd restarted on the snapshot's data (the apiserver is left alone)
  local dir="$1" source="$1/snapshots/$2"
  [[ -d "$source" ]] || die "no snapshot '$2' in $dir/snapshots"
  stop_process "$dir" etcd
  rm -rf "$dir/etcd-data"
  cp -a "$source" "$dir/etcd-data"
  start_etcd "$dir"
}

start_watchdog() { # start_watchdog DIR OWNER_PID
  local dir="$1" owner="$2"
  setsid bash -c '
    while kill -0 "$1" 2>/dev/null && [[ -f "$2/testenv.properties" ]]; do sleep 2; done
    [[ -f "$2/testenv.properties" ]] && "$3" stop "$2"' \
    testenv-watchdog "$owner" "$dir" "$here/testenv.sh" >>"$dir/watchdog.log" 2>&1 </dev/null &
  echo $! >"$dir/watchdog.pid"
}

start() { # start [DIR]
  local dir="${1:-}"
  if [[ -z "$dir" ]]; then
    dir="$(mktemp -d "${TMPDIR:-/tmp}/reactive-informer-testenv.XXXXXX")"
  fi
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  [[ -f "$dir/testenv.properties" ]] && die "$dir already holds an environment (stop it first)"

  local bin_dir t0=$SECONDS
  bin_dir="$("$here/build.sh" | tail -n 1)"
  local t_build=$(( SECONDS - t0 ))

  generate_pki "$dir"
  local etcd_port etcd_peer_port apiserver_port
  read -r etcd_port etcd_peer_port apiserver_port <<<"$(pick_ports 3)"
  cat >"$dir/testenv.properties" <<EOF
server=https://127.0.0.1:$apiserver_port
apiserverPort=$apiserver_port
etcd=http://127.0.0.1:$etcd_port
etcdPort=$etcd_port
etcdPeerPort=$etcd_peer_port
binDir=$bin_dir
script=$here/testenv.sh
kubeconfig=$dir/kubeconfig
caCert=$dir/pki/ca.crt
adminCert=$dir/pki/admin.crt
adminKey=$dir/pki/admin.key
restrictedCert=$dir/pki/restricted.crt
restrictedKey=$dir/pki/restricted.key
tokenFile=$dir/pki/token
kubernetesVersion=$(testenv_module_version k8s.io/kubernetes)
etcdVersion=$(testenv_module_version go.etcd.io/etcd/server/v3)
EOF
  write_kubeconfig "$dir"
  if [[ -n "${TESTENV_OWNER_PID:-}" ]]; then start_watchdog "$dir" "$TESTENV_OWNER_PID"; fi

  local t1=$SECONDS
  if ! { start_etcd "$dir" && start_apiserver "$dir"; }; then
    stop "$dir"
    exit 1
  fi
  echo "testenv: started in $dir (binaries ready in ${t_build}s, etcd + kube-apiserver ready in $(( SECONDS - t1 ))s)" >&2
  echo "$dir"
}

stop() { # stop DIR
  local dir="$1"
  [[ -f "$dir/testenv.properties" ]] || return 0
  stop_process "$dir" kube-apiserver
  stop_process "$dir" etcd
  # The watchdog may be the caller: only the properties file going away tells it to stop.
  local watchdog=""
  [[ -f "$dir/watchdog.pid" ]] && watchdog="$(cat "$dir/watchdog.pid")"
  # Without its properties the environment cannot be restarted: drop etcd's data (WAL segments are
  # preallocated, 60+ MB), keep certificates and logs for post-mortems.
  rm -rf "$dir/testenv.properties" "$dir/watchdog.pid" "$dir/etcd-data" "$dir/snapshots"
  if [[ -n "$watchdog" && "$watchdog" != "$PPID" && "$watchdog" != "$$" ]]; then
    kill -TERM "$watchdog" 2>/dev/null || true
  fi
}

need_dir() { [[ -n "${1:-}" && -f "$1/testenv.properties" ]] || die "no running environment in '${1:-}'"; }

command="${1:-}"; shift || true
case "$command" in
  start) start "${1:-}" ;;
  stop) [[ -n "${1:-}" ]] || die "usage: testenv.sh stop DIR"; stop "$1" ;;
  stop-apiserver) need_dir "${1:-}"; stop_process "$1" kube-apiserver ;;
  start-apiserver) need_dir "${1:-}"; start_apiserver "$1" ;;
  restart-apiserver) need_dir "${1:-}"; stop_process "$1" kube-apiserver; start_apiserver "$1" ;;
  stop-etcd) need_dir "${1:-}"; stop_process "$1" etcd ;;
  start-etcd) need_dir "${1:-}"; start_etcd "$1" ;;
  restart-etcd) need_dir "${1:-}"; stop_process "$1" etcd; start_etcd "$1" ;;
  kill-apiserver) need_dir "${1:-}"; kill_process "$1" kube-apiserver ;;
  kill-etcd) need_dir "${1:-}"; kill_process "$1" etcd ;;
  compact) need_dir "${1:-}"; compact "$1" ;;
  snapshot-etcd) need_dir "${1:-}"; [[ -n "${2:-}" ]] || die "usage: testenv.sh snapshot-etcd DIR NAME"; snapshot_etcd "$1" "$2" ;;
  restore-etcd) need_dir "${1:-}"; [[ -n "${2:-}" ]] || die "usage: testenv.sh restore-etcd DIR NAME"; restore_etcd "$1" "$2" ;;
  *) die "usage: testenv.sh start [DIR] | stop DIR | {stop,start,restart,kill}-{apiserver,etcd} DIR | compact DIR | {snapshot,restore}-etcd DIR NAME" ;;
esac
