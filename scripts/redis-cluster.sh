#!/usr/bin/env bash
# A throw-away Redis Cluster on 127.0.0.1 for tests: 3 masters, 3 replicas.
#
#   scripts/redis-cluster.sh start DIR [OWNER_PID]
#       starts six cluster-enabled redis-servers on free loopback ports
#       (each port P and its cluster bus port P+10000 free, both below the
#       ephemeral range; a port another program takes first is retried), joins them with
#       `redis-cli --cluster create … --cluster-replicas 1`, waits until
#       every node reports cluster_state:ok, agrees on the slots and every
#       replica is in sync, then prints the six ports, one a line, and exits
#       (the servers keep running). With OWNER_PID, a watcher stops the
#       cluster as soon as that process is gone (a test that crashed).
#   scripts/redis-cluster.sh stop DIR
#       stops every server started in DIR (SIGTERM, then SIGKILL) and the watcher.
#
# No persistence (appendonly no, save ''); node timeout 2 s, so that a
# replica takes over from a killed master within a few seconds; a slot
# without a master leaves the other slots served (cluster-require-full-coverage
# no). All files (config, nodes-*.conf, logs, pids) stay in DIR. A start
# that fails stops what it started.
set -euo pipefail

# Close every descriptor inherited beyond 0-2 (except bash's own 255): the
# servers and the watcher outlive this script, and a caller that learns of
# its exit through a descriptor it passed down (Foundation's Process does,
# with a socket) would otherwise wait for them too.
for _fd in /proc/$$/fd/*; do
  _fd=${_fd##*/}
  if [[ $_fd =~ ^[0-9]+$ ]] && ((_fd > 2 && _fd != 255)); then
    eval "exec $_fd>&-" 2>/dev/null || true
  fi
done

SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

NODES=6

usage() { echo "usage: $0 start DIR [OWNER_PID] | stop DIR" >&2; exit 2; }

# stop_cluster DIR: stop the watcher, then every server whose pid file is in DIR.
stop_cluster() {
  local dir=$1 file pid i
  if [[ -f $dir/watcher.pid ]]; then
    pid=$(cat "$dir/watcher.pid")
    rm -f "$dir/watcher.pid"
    [[ $pid != "$$" ]] && kill -KILL "$pid" 2>/dev/null || true
  fi
  for file in "$dir"/node-*.pid; do
    [[ -f $file ]] || continue
    pid=$(cat "$file")
    kill -TERM "$pid" 2>/dev/null || true
  done
  for file in "$dir"/node-*.pid; do
    [[ -f $file ]] || continue
    pid=$(cat "$file")
    for ((i = 0; i < 50; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$file"
  done
}

# cluster_port: a free port P whose cluster bus port P+10000 is free too,
# both below the kernel's ephemeral range (ip_local_port_range: 32768 and up
# by default), where no outgoing connection and no port-0 bind (the tests'
# own redis-servers, workers' HTTP ports) can take them between this check
# and the server's bind. Another program picking ports at random in this
# range could still: `ours` then tells, and the start tries another port.
cluster_port() {
  local port tries low=32768 range
  read -r low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
  range=$((low - 10001 - 1024))
  ((range > 2768)) && range=2768
  for ((tries = 0; tries < 200; tries++)); do
    port=$(( low - 10001 - ((RANDOM << 15) | RANDOM) % range ))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null \
      && ! (exec 3<>"/dev/tcp/127.0.0.1/$((port + 10000))") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  echo "redis-cluster.sh: no free port pair found" >&2
  return 1
}

# ours DIR PORT: whether the redis-server answering on PORT is the one this
# script started there (its process id is the one in its pid file), not a
# server of someone else's that took the port first.
ours() {
  local pid answer
  pid=$(cat "$1/node-$2.pid" 2>/dev/null) || return 1
  answer=$(redis-cli -p "$2" info server 2>/dev/null | tr -d '\r' | sed -n 's/^process_id://p')
  [[ -n $pid && $answer == "$pid" ]]
}

# every_node CHECK...: whether CHECK PORT succeeds for every port in PORTS.
every_node() {
  local port
  for port in "${PORTS[@]}"; do
    "$@" "$port" || return 1
  done
}
state_ok() { redis-cli -p "$1" cluster info 2>/dev/null | tr -d '\r' | grep -qx 'cluster_state:ok'; }
in_sync() {
  local info
  info=$(redis-cli -p "$1" info replication 2>/dev/null | tr -d '\r')
  grep -qx 'role:master' <<<"$info" || grep -qx 'master_link_status:up' <<<"$info"
}
# wait_for SECONDS CHECK...: run CHECK every 0.1 s until it succeeds.
wait_for() {
  local deadline=$(( SECONDS + $1 ))
  shift
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.1
  done
}

start_cluster() {
  local dir=$1 owner=${2:-} index port attempt started
  mkdir -p "$dir"
  stop_cluster "$dir"
  rm -f "$dir"/nodes-*.conf "$dir"/node-*.log "$dir/ports"
  trap 'stop_cluster "$dir"' EXIT
  PORTS=()
  for ((index = 0; index < NODES; index++)); do
    started=no
    for ((attempt = 0; attempt < 3; attempt++)); do
      port=$(cluster_port)
      redis-server --port "$port" --bind 127.0.0.1 --daemonize yes \
        --pidfile "$dir/node-$port.pid" --logfile "$dir/node-$port.log" --dir "$dir" \
        --cluster-enabled yes --cluster-config-file "nodes-$port.conf" --cluster-node-timeout 2000 \
        --cluster-require-full-coverage no --appendonly no --save '' --shutdown-timeout 0 >/dev/null
      if wait_for 10 ours "$dir" "$port"; then
        started=yes
        break
      fi
      # Another program took the port first: kill what may have started, try another.
      [[ -f $dir/node-$port.pid ]] && kill -KILL "$(cat "$dir/node-$port.pid")" 2>/dev/null || true
      rm -f "$dir/node-$port.pid"
    done
    if [[ $started != yes ]]; then
      echo "redis-cluster.sh: redis-server did not start; log:" >&2
      tail -n 20 "$dir/node-$port.log" >&2 || true
      exit 1
    fi
    PORTS+=("$port")
  done
  local addresses=()
  for port in "${PORTS[@]}"; do addresses+=("127.0.0.1:$port"); done
  redis-cli --cluster create "${addresses[@]}" --cluster-replicas 1 --cluster-yes >"$dir/create.log" 2>&1 || {
    echo "redis-cluster.sh: cluster create failed:" >&2
    cat "$dir/create.log" >&2
    exit 1
  }
  if ! wait_for 60 every_node state_ok \
    || ! wait_for 60 redis-cli --cluster check "127.0.0.1:${PORTS[0]}" >/dev/null 2>&1 \
    || ! wait_for 60 every_node in_sync; then
    echo "redis-cluster.sh: the cluster did not become ready:" >&2
    for port in "${PORTS[@]}"; do
      echo "--- 127.0.0.1:$port" >&2
      redis-cli -p "$port" cluster info 2>&1 | head -3 >&2 || true
    done
    exit 1
  fi
  printf '%s\n' "${PORTS[@]}" >"$dir/ports"
  if [[ -n $owner ]]; then
    # The watcher outlives this script: it stops the cluster once OWNER_PID is gone.
    nohup bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; exec "$2" stop "$3"' \
      redis-cluster-watcher "$owner" "$SCRIPTS/redis-cluster.sh" "$dir" </dev/null >/dev/null 2>&1 &
    echo $! >"$dir/watcher.pid"
  fi
  trap - EXIT
  printf '%s\n' "${PORTS[@]}"
}

case ${1:-} in
  start) [[ $# -ge 2 ]] || usage; start_cluster "$2" "${3:-}" ;;
  stop) [[ $# -eq 2 ]] || usage; stop_cluster "$2" ;;
  *) usage ;;
esac
