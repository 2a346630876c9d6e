#!/usr/bin/env bash
# A real etcd + kube-apiserver on 127.0.0.1 for the end-to-end tests, and on demand the rest of a control
# plane: kube-controller-manager, kube-scheduler and kwok's fake nodes.
#
#   testenv.sh start [--control-plane] [DIR]
#                                     build the binaries if missing, generate certs and a token, start etcd and
#                                     kube-apiserver, wait for /readyz; prints DIR (state, logs,
#                                     DIR/kubeconfig, DIR/testenv.properties) as the last stdout line.
#                                     With --control-plane also kube-controller-manager, kube-scheduler and
#                                     kwok with TESTENV_NODES fake nodes, waited for until Ready (see start_controller_manager)
#   testenv.sh stop DIR               stop every process and delete etcd's data (idempotent); logs stay
#   testenv.sh stop-apiserver DIR | start-apiserver DIR | restart-apiserver DIR
#   testenv.sh stop-etcd DIR      | start-etcd DIR      | restart-etcd DIR
#   testenv.sh kill-apiserver DIR | kill-etcd DIR      SIGKILL (a crash); start-* brings it back
#   testenv.sh {stop,start,restart,kill}-{controller-manager,scheduler} DIR   (--control-plane environments)
#   testenv.sh compact DIR            expire every resourceVersion handed out so far (see below)
#   testenv.sh snapshot-etcd DIR NAME | restore-etcd DIR NAME
#                                     copy etcd's data aside / put etcd back on that copy (see below)
#
# TESTENV_FEATURE_GATES: kube-apiserver's --feature-gates (default ShardedListAndWatch=true; empty for none).
# TESTENV_NODES: how many fake nodes a --control-plane environment gets (default 10).
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
CONTROL_PLANE_READY_TIMEOUT="${TESTENV_CONTROL_PLANE_READY_TIMEOUT:-120}"
CONTROL_PLANE_NODES="${TESTENV_NODES:-10}"
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
  # controller manager: with it on, every pod create would fail (and with --control-plane, a pod created
  # right after its namespace would race the service account's creation). Everything else is the stock set.
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

# The rest of a control plane (--control-plane). Each component has its own client certificate and
# kubeconfig; the controller manager and the scheduler are the identities the bootstrap RBAC policy binds
# (system:kube-controller-manager, system:kube-scheduler), and the controller manager runs each controller
# as its own service account, as kubeadm sets it up. Leader election is off: there is one of each, and a
# restart must not wait out a lease. Client rate limits are raised so that thousands of pods are created,
# bound and deleted at the rate the apiserver takes rather than at client-go's defaults (20 and 50 qps).
# Their serving certificates are self-signed (--cert-dir), hence curl -k for the health checks on loopback.
start_controller_manager() { # start_controller_manager DIR
  local dir="$1"
  alive "$dir/kube-controller-manager.pid" && return 0
  local port pki="$dir/pki" kubeconfig="$dir/kube-controller-manager.kubeconfig"
  port="$(prop "$dir" kubeControllerManagerPort)"
  setsid "$(prop "$dir" binDir)/kube-controller-manager" \
    --kubeconfig="$kubeconfig" \
    --authentication-kubeconfig="$kubeconfig" \
    --authorization-kubeconfig="$kubeconfig" \
    --bind-address=127.0.0.1 \
    --secure-port="$port" \
    --cert-dir="$dir/kube-controller-manager" \
    --controllers='*' \
    --leader-elect=false \
    --use-service-account-credentials=true \
    --service-account-private-key-file="$pki/sa.key" \
    --root-ca-file="$pki/ca.crt" \
    --cluster-signing-cert-file="$pki/ca.crt" \
    --cluster-signing-key-file="$pki/ca.key" \
    --service-cluster-ip-range=10.0.0.0/24 \
    --kube-api-qps=500 \
    --kube-api-burst=1000 \
    --profiling=false \
    >>"$dir/kube-controller-manager.log" 2>&1 </dev/null &
  echo $! >"$dir/kube-controller-manager.pid"
  wait_ready "$dir" kube-controller-manager "$CONTROL_PLANE_READY_TIMEOUT" -k "https://127.0.0.1:$port/healthz"
}

start_scheduler() { # start_scheduler DIR
  local dir="$1"
  alive "$dir/kube-scheduler.pid" && return 0
  local port kubeconfig="$dir/kube-scheduler.kubeconfig"
  port="$(prop "$dir" kubeSchedulerPort)"
  setsid "$(prop "$dir" binDir)/kube-scheduler" \
    --kubeconfig="$kubeconfig" \
    --authentication-kubeconfig="$kubeconfig" \
    --authorization-kubeconfig="$kubeconfig" \
    --bind-address=127.0.0.1 \
    --secure-port="$port" \
    --cert-dir="$dir/kube-scheduler" \
    --leader-elect=false \
    --kube-api-qps=500 \
    --kube-api-burst=1000 \
    --profiling=false \
    >>"$dir/kube-scheduler.log" 2>&1 </dev/null &
  echo $! >"$dir/kube-scheduler.pid"
  wait_ready "$dir" kube-scheduler "$CONTROL_PLANE_READY_TIMEOUT" -k "https://127.0.0.1:$port/healthz"
}

# kwok plays the kubelet of every node annotated kwok.x-k8s.io/node=fake, through the stages in
# kwok/stages.yaml, and renews each node's Lease: without the renewals the node lifecycle controller
# finds the nodes unreachable after 40 s and marks all their pods not Ready. Pod IPs come from a /16 that
# is never routed: they are only strings in pod status.
start_kwok() { # start_kwok DIR
  local dir="$1"
  alive "$dir/kwok.pid" && return 0
  local port
  port="$(prop "$dir" kwokPort)"
  setsid "$(prop "$dir" binDir)/$(testenv_kwok_binary)" \
    --config="$here/kwok/stages.yaml" \
    --kubeconfig="$dir/kwok.kubeconfig" \
    --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
    --node-ip=127.0.0.1 \
    --cidr=10.244.0.0/16 \
    --server-address="127.0.0.1:$port" \
    --node-lease-duration-seconds=40 \
    >>"$dir/kwok.log" 2>&1 </dev/null &
  echo $! >"$dir/kwok.pid"
  wait_ready "$dir" kwok "$CONTROL_PLANE_READY_TIMEOUT" "http://127.0.0.1:$port/healthz"
}

# Fake nodes big enough for thousands of pods without resource requests, labelled type=kwok, untainted so
# that any pod may land on them. kwok turns them Ready; the wait is for that.
create_nodes() { # create_nodes DIR
  local dir="$1" i manifest="" kubectl
  for (( i = 0; i < CONTROL_PLANE_NODES; i++ )); do
    manifest+="apiVersion: v1
kind: Node
metadata:
  name: kwok-node-$i
  annotations:
    kwok.x-k8s.io/node: fake
  labels:
    type: kwok
    kubernetes.io/hostname: kwok-node-$i
    kubernetes.io/os: linux
status:
  allocatable: {cpu: '64', memory: 256Gi, pods: '1000'}
  capacity: {cpu: '64', memory: 256Gi, pods: '1000'}
---
"
  done
  kubectl="$(prop "$dir" binDir)/kubectl"
  printf '%s' "$manifest" | "$kubectl" --kubeconfig="$dir/kubeconfig" apply -f - >>"$dir/nodes.log" 2>&1 \
    || { log_tail "$dir/nodes.log"; die "could not create the fake nodes"; }
  "$kubectl" --kubeconfig="$dir/kubeconfig" wait node -l type=kwok --for=condition=Ready \
    --timeout="${CONTROL_PLANE_READY_TIMEOUT}s" >>"$dir/nodes.log" 2>&1 \
    || { log_tail "$dir/kwok.log"; die "the fake nodes did not turn Ready (log: $dir/kwok.log)"; }
}

start_control_plane() { # start_control_plane DIR
  start_controller_manager "$1" && start_scheduler "$1" && start_kwok "$1" && create_nodes "$1"
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

generate_pki() { # generate_pki DIR CONTROL_PLANE(true|false)
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
  if [[ "$2" == true ]]; then
    cert "$pki" kube-controller-manager "/CN=system:kube-controller-manager" "$client"
    cert "$pki" kube-scheduler "/CN=system:kube-scheduler" "$client"
    cert "$pki" kwok "/O=system:masters/CN=testenv-kwok" "$client"
  fi
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

write_component_kubeconfig() { # write_component_kubeconfig DIR NAME: DIR/NAME.kubeconfig with pki/NAME.{crt,key}
  local dir="$1" pki="$1/pki"
  cat >"$dir/$2.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: testenv
  cluster:
    server: $(prop "$dir" server)
    certificate-authority: $pki/ca.crt
users:
- name: $2
  user:
    client-certificate: $pki/$2.crt
    client-key: $pki/$2.key
contexts:
- name: $2
  context:
    cluster: testenv
    user: $2
current-context: $2
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

start() { # start [--control-plane] [DIR] (in either order)
  local dir="" control_plane=false argument
  for argument in "$@"; do
    case "$argument" in
      --control-plane) control_plane=true ;;
      -*) die "unknown option $argument" ;;
      *) [[ -z "$dir" ]] || die "usage: testenv.sh start [--control-plane] [DIR]"; dir="$argument" ;;
    esac
  done
  if [[ -z "$dir" ]]; then
    dir="$(mktemp -d "${TMPDIR:-/tmp}/reactive-informer-testenv.XXXXXX")"
  fi
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  [[ -f "$dir/testenv.properties" ]] && die "$dir already holds an environment (stop it first)"

  local bin_dir t0=$SECONDS
  bin_dir="$("$here/build.sh" | tail -n 1)"
  local t_build=$(( SECONDS - t0 ))

  generate_pki "$dir" "$control_plane"
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
  if [[ "$control_plane" == true ]]; then
    local controller_manager_port scheduler_port kwok_port
    read -r controller_manager_port scheduler_port kwok_port <<<"$(pick_ports 3)"
    cat >>"$dir/testenv.properties" <<EOF
controlPlane=true
kubeControllerManagerPort=$controller_manager_port
kubeSchedulerPort=$scheduler_port
kwokPort=$kwok_port
nodes=$CONTROL_PLANE_NODES
EOF
  fi
  write_kubeconfig "$dir"
  if [[ -n "${TESTENV_OWNER_PID:-}" ]]; then start_watchdog "$dir" "$TESTENV_OWNER_PID"; fi

  local t1=$SECONDS
  if ! { start_etcd "$dir" && start_apiserver "$dir"; }; then
    stop "$dir"
    exit 1
  fi
  local started="etcd + kube-apiserver ready in $(( SECONDS - t1 ))s"
  if [[ "$control_plane" == true ]]; then
    local t2=$SECONDS name
    for name in kube-controller-manager kube-scheduler kwok; do write_component_kubeconfig "$dir" "$name"; done
    # A subshell, so that its die still reaches the stop below.
    if ! ( start_control_plane "$dir" ); then
      stop "$dir"
      exit 1
    fi
    started+=", control plane with $CONTROL_PLANE_NODES Ready nodes in $(( SECONDS - t2 ))s"
  fi
  echo "testenv: started in $dir (binaries ready in ${t_build}s, $started)" >&2
  echo "$dir"
}

stop() { # stop DIR
  local dir="$1"
  [[ -f "$dir/testenv.properties" ]] || return 0
  # The control plane first (none runs without --control-plane): were the apiserver gone first, they
  # would spend their shutdown retrying it.
  stop_process "$dir" kwok
  stop_process "$dir" kube-scheduler
  stop_process "$dir" kube-controller-manager
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
need_control_plane() {
  need_dir "${1:-}"
  grep -qx 'controlPlane=true' "$1/testenv.properties" || die "$1 was started without --control-plane"
}

command="${1:-}"; shift || true
case "$command" in
  start) start "$@" ;;
  stop) [[ -n "${1:-}" ]] || die "usage: testenv.sh stop DIR"; stop "$1" ;;
  stop-apiserver) need_dir "${1:-}"; stop_process "$1" kube-apiserver ;;
  start-apiserver) need_dir "${1:-}"; start_apiserver "$1" ;;
  restart-apiserver) need_dir "${1:-}"; stop_process "$1" kube-apiserver; start_apiserver "$1" ;;
  stop-etcd) need_dir "${1:-}"; stop_process "$1" etcd ;;
  start-etcd) need_dir "${1:-}"; start_etcd "$1" ;;
  restart-etcd) need_dir "${1:-}"; stop_process "$1" etcd; start_etcd "$1" ;;
  kill-apiserver) need_dir "${1:-}"; kill_process "$1" kube-apiserver ;;
  kill-etcd) need_dir "${1:-}"; kill_process "$1" etcd ;;
  stop-controller-manager) need_control_plane "${1:-}"; stop_process "$1" kube-controller-manager ;;
  start-controller-manager) need_control_plane "${1:-}"; start_controller_manager "$1" ;;
  restart-controller-manager) need_control_plane "${1:-}"; stop_process "$1" kube-controller-manager; start_controller_manager "$1" ;;
  kill-controller-manager) need_control_plane "${1:-}"; kill_process "$1" kube-controller-manager ;;
  stop-scheduler) need_control_plane "${1:-}"; stop_process "$1" kube-scheduler ;;
  start-scheduler) need_control_plane "${1:-}"; start_scheduler "$1" ;;
  restart-scheduler) need_control_plane "${1:-}"; stop_process "$1" kube-scheduler; start_scheduler "$1" ;;
  kill-scheduler) need_control_plane "${1:-}"; kill_process "$1" kube-scheduler ;;
  compact) need_dir "${1:-}"; compact "$1" ;;
  snapshot-etcd) need_dir "${1:-}"; [[ -n "${2:-}" ]] || die "usage: testenv.sh snapshot-etcd DIR NAME"; snapshot_etcd "$1" "$2" ;;
  restore-etcd) need_dir "${1:-}"; [[ -n "${2:-}" ]] || die "usage: testenv.sh restore-etcd DIR NAME"; restore_etcd "$1" "$2" ;;
  *) die "usage: testenv.sh start [--control-plane] [DIR] | stop DIR | {stop,start,restart,kill}-{apiserver,etcd,controller-manager,scheduler} DIR | compact DIR | {snapshot,restore}-etcd DIR NAME" ;;
esac
