# shellcheck shell=bash
# Local throw-away services for tests, the demo and the benchmark:
# a Redis server, an nginx "origin" serving a folder of images, and a
# fault-injecting origin (scripts/fault-origin.py) serving the same folder.
#
# This file is a library: source it, do not run it.
#
#   source scripts/services.sh
#   trap stop_services EXIT
#   start_redis  .services/test/redis           # exports REDIS_PORT, REDIS_URL
#   start_origin .services/test/origin .services/test/nginx
#                                               # exports ORIGIN_PORT, ORIGIN_URL,
#                                               #   ORIGIN_ROOT, ORIGIN_LOG, ORIGIN_ERROR_LOG
#   start_fault_origin .services/test/origin .services/test/fault-origin
#                                               # exports FAULT_ORIGIN_PORT, FAULT_ORIGIN_URL,
#                                               #   FAULT_ORIGIN_LOG, FAULT_ORIGIN_ERROR_LOG
#   start_contract_checker docs/openapi.yaml .services/test/contract-checker
#                                               # exports CONTRACT_CHECKER_URL
#   ...
#   worker & track_process $! worker           # optional: your own processes
#   stop_process PID                            # stop one of them now
#   stop_services                               # also fine from a trap, twice
#
# Call the start_* functions directly (not inside "$( )"): they start
# background processes and export variables into the calling shell.
#
# Every server binds 127.0.0.1 only, on a random free port, and keeps all of
# its files (config, logs, pid, temp) in the directory it is given, so several
# copies can run side by side and nothing under /var or /etc is touched.

# The folder of this file (and of fault-origin.py), however it is sourced.
_SERVICES_SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# PIDs and names of the processes started here, in start order.
_SERVICES_PIDS=()
_SERVICES_NAMES=()

_services_log() { echo "$*" >&2; }

# free_port: print a TCP port in 20000-60000 that nothing on 127.0.0.1
# listens on. Pure bash: a connection attempt through /dev/tcp that is
# refused means the port is free. (Another program could still take it before
# we bind it; the start_* functions retry with a new port if that happens.)
free_port() {
  local port tries
  for ((tries = 0; tries < 200; tries++)); do
    # $RANDOM is 15 bits; combine two for a uniform pick over the range.
    port=$(( ((RANDOM << 15) | RANDOM) % 40001 + 20000 ))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  _services_log "free_port: no free port found"
  return 1
}

# _wait_until SECONDS PID CHECK...: run CHECK every 0.1 s until it succeeds.
# Fails when SECONDS pass or as soon as process PID has exited.
_wait_until() {
  local seconds=$1 pid=$2
  shift 2
  local deadline=$(( SECONDS + seconds ))
  while ((SECONDS < deadline)); do
    if "$@" >/dev/null 2>&1; then
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      return 1 # the server died (bad config, port taken, ...)
    fi
    sleep 0.1
  done
  return 1
}

# _stop_pid PID NAME: SIGTERM, wait up to 10 s, then SIGKILL; always reap.
_stop_pid() {
  local pid=$1 name=$2 i
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      _services_log "$name (pid $pid) did not stop on SIGTERM; killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  # Reap it so no zombie is left (only works for our own children).
  wait "$pid" 2>/dev/null || true
}

# track_process PID NAME: have stop_services stop this background process
# too (e.g. a `warmer worker` started by the caller), so an error or Ctrl-C
# anywhere in a script still cleans it up.
track_process() {
  _SERVICES_PIDS+=("$1")
  _SERVICES_NAMES+=("$2")
}

# stop_process PID: stop one tracked process now (SIGTERM, up to 10 s, then
# SIGKILL), wait for it, and forget it so stop_services will not signal its
# PID again later (by then the number could belong to another process).
stop_process() {
  local pid=$1 i pids=() names=()
  for i in "${!_SERVICES_PIDS[@]}"; do
    if [[ ${_SERVICES_PIDS[i]} == "$pid" ]]; then
      _stop_pid "$pid" "${_SERVICES_NAMES[i]}"
    else
      pids+=("${_SERVICES_PIDS[i]}")
      names+=("${_SERVICES_NAMES[i]}")
    fi
  done
  _SERVICES_PIDS=("${pids[@]}")
  _SERVICES_NAMES=("${names[@]}")
}

_redis_ping() { [[ "$(redis-cli -h 127.0.0.1 -p "$1" ping 2>/dev/null)" == PONG ]]; }

# _start_on_free_port NAME LOG LAUNCH CHECK: up to three times, pick a free
# port, run `LAUNCH PORT` in the background (a function that ends by exec-ing
# the server, so the tracked pid is the server's) and wait until `CHECK PORT`
# succeeds. Sets STARTED_PORT. After a failed try it shows the end of LOG.
# (LAUNCH and CHECK see the caller's local variables: bash scopes dynamically.)
_start_on_free_port() {
  # (Names no LAUNCH function reads: theirs must come from the caller.)
  local _service=$1 _service_log=$2 _launch=$3 _check=$4 _port _pid _attempt
  for _attempt in 1 2 3; do
    _port=$(free_port)
    "$_launch" "$_port" &
    _pid=$!
    track_process "$_pid" "$_service"
    if _wait_until 10 "$_pid" "$_check" "$_port"; then
      STARTED_PORT=$_port
      return 0
    fi
    stop_process "$_pid"
    _services_log "$_service did not start on port $_port (attempt $_attempt); last log lines:"
    tail -n 5 "$_service_log" >&2 || true
  done
  return 1
}

# start_redis DIR: start redis-server on a free 127.0.0.1 port, with no
# persistence, working directory DIR and its log in DIR/redis.log. Waits until
# it answers PING. Exports REDIS_PORT and REDIS_URL.
start_redis() {
  local dir=${1:?usage: start_redis DIR}
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd) # redis chdirs into --dir: use absolute paths
  local log="$dir/redis.log"
  : >"$log" # start each run with a fresh log
  _start_on_free_port redis "$log" _launch_redis _redis_ping || return 1
  export REDIS_PORT=$STARTED_PORT
  export REDIS_URL="redis://127.0.0.1:$STARTED_PORT"
  _services_log "redis: $REDIS_URL (log: $log)"
}

# _launch_redis PORT: redis-server for start_redis (uses its `dir` and `log`).
_launch_redis() {
  # Anything redis prints before its log file is open goes to the same log
  # (both append, so they do not overwrite each other).
  # shellcheck disable=SC2094,SC2154
  exec redis-server \
    --bind 127.0.0.1 --port "$1" \
    --save '' --appendonly no --daemonize no \
    --dir "$dir" --logfile "$log" \
    >>"$log" 2>&1
}

# _origin_config ROOT DIR PORT: print the nginx config for start_origin.
_origin_config() {
  local root=$1 dir=$2 port=$3
  # nginx runs its worker processes as an unprivileged user when started as
  # root, and that user may not be able to read a checkout under /root.
  # This server only listens on loopback for tests, so keep workers as root.
  local user_line=""
  if ((EUID == 0)); then
    user_line="user root;"
  fi

  cat <<EOF
# Generated by scripts/services.sh (start_origin). Do not edit.
daemon off;
master_process on;
worker_processes 2;
$user_line
pid $dir/nginx.pid;
error_log $dir/error.log warn;

events {
    worker_connections 1024;
}

http {
    # nginx would otherwise create these under /var/lib/nginx.
    client_body_temp_path $dir/tmp/client_body;
    proxy_temp_path       $dir/tmp/proxy;
    fastcgi_temp_path     $dir/tmp/fastcgi;
    uwsgi_temp_path       $dir/tmp/uwsgi;
    scgi_temp_path        $dir/tmp/scgi;

    # Just the types an image origin needs (no /etc/nginx/mime.types).
    types {
        image/jpeg  jpg jpeg;
        image/png   png;
        image/webp  webp;
        image/gif   gif;
        image/avif  avif;
        image/heic  heic;
        text/plain  txt;
        text/html   html;
        application/json json;
    }
    default_type application/octet-stream;

    # One line per request, written unbuffered so tests can read it at once.
    # nginx writes a double quote inside a value as \x22, so a conditional
    # range request for an ETag looks like this:
    #   GET /img-0001.jpg 206 184221 "bytes=100-" "\x226b02d37e-2d001\x22" 1764181200.123
    # and a request without those headers like this:
    #   GET /slow/img-0001.jpg 200 184321 "-" "-" 1764181200.123
    # The last field is when the request ended (Unix seconds, ms).
    log_format warmer '\$request_method \$uri \$status \$body_bytes_sent "\$http_range" "\$http_if_range" \$msec';
    access_log $dir/access.log warmer;

    sendfile on;
    tcp_nopush on;
    keepalive_timeout 65s;
    keepalive_requests 100000;

    server {
        listen 127.0.0.1:$port;
        server_name localhost;
        root $root;

        location / {
        }

        # Readiness probe for start_origin; kept out of the access log so
        # tests only see their own requests there.
        location = /_ready {
            access_log off;
            return 204;
        }

        # The same files, throttled to 100 KB/s per connection: /slow/img-0001.jpg
        location /slow/ {
            alias $root/;
            limit_rate 100k;
        }

        # The same files with caching headers, for HTTP cache mode
        # (bench/http-cache.sh): /fresh/ stays fresh for a day, /revalidate/
        # must be revalidated on every use (nginx answers If-None-Match and
        # If-Modified-Since with a 304; add_header applies to 304s too).
        # With ORIGIN_LIMIT_RATE set (e.g. 2m), their bodies are sent at that
        # many bytes a second per connection, like an origin across a WAN.
        location /fresh/ {
            alias $root/;
            add_header Cache-Control "max-age=86400";
            ${ORIGIN_LIMIT_RATE:+limit_rate $ORIGIN_LIMIT_RATE;}
        }
        location /revalidate/ {
            alias $root/;
            add_header Cache-Control "no-cache";
            ${ORIGIN_LIMIT_RATE:+limit_rate $ORIGIN_LIMIT_RATE;}
        }

        # Redirects into the network Warmer runs in, for the SSRF guard's tests:
        # /redirect/loopback/NAME goes to http://127.0.0.1:PORT/NAME,
        # /redirect/metadata to the cloud metadata address.
        location /redirect/loopback/ {
            rewrite ^/redirect/loopback/(.*)$ http://127.0.0.1:\$server_port/\$1 redirect;
        }
        location = /redirect/metadata {
            return 302 http://169.254.169.254/latest/meta-data/;
        }
    }
}
EOF
}

_origin_ready() {
  curl -fs -o /dev/null --max-time 2 "$1" 2>/dev/null
}

# start_origin ROOT DIR: start nginx serving the folder ROOT on a free
# 127.0.0.1 port, with its config, logs, pid and temp folders in DIR.
#   GET /NAME        serves ROOT/NAME (ETag, Last-Modified, Range, keep-alive)
#   GET /slow/NAME   serves ROOT/NAME at 100 KB/s
#   GET /fresh/NAME  serves ROOT/NAME with Cache-Control: max-age=86400
#   GET /revalidate/NAME  serves ROOT/NAME with Cache-Control: no-cache
#                    (every use revalidates; If-None-Match gets a 304)
#                    Both send bodies at $ORIGIN_LIMIT_RATE bytes/s per
#                    connection when it is set (nginx limit_rate, e.g. 2m).
#   GET /_ready      204, not logged (readiness probe)
# Access log: DIR/access.log, one line per request ("-" for a missing
# header; a quote inside a header is written as \x22):
#   METHOD URI STATUS BODY_BYTES "RANGE" "IF-RANGE"
# Exports ORIGIN_PORT, ORIGIN_URL, ORIGIN_ROOT, ORIGIN_LOG, ORIGIN_ERROR_LOG.
start_origin() {
  local root=${1:?usage: start_origin ROOT DIR} dir=${2:?usage: start_origin ROOT DIR}
  mkdir -p "$root" "$dir/tmp"
  root=$(cd "$root" && pwd)
  dir=$(cd "$dir" && pwd)
  local conf="$dir/nginx.conf"
  : >"$dir/access.log" # start each run with fresh logs
  : >"$dir/error.log"
  _start_on_free_port nginx "$dir/error.log" _launch_nginx _origin_port_ready || return 1
  export ORIGIN_PORT=$STARTED_PORT
  export ORIGIN_URL="http://127.0.0.1:$STARTED_PORT"
  export ORIGIN_ROOT=$root
  export ORIGIN_LOG="$dir/access.log"
  export ORIGIN_ERROR_LOG="$dir/error.log"
  _services_log "origin: $ORIGIN_URL (serving $root, log: $ORIGIN_LOG)"
}

# _launch_nginx PORT: nginx for start_origin (uses its `root`, `dir` and `conf`).
_launch_nginx() {
  # shellcheck disable=SC2154
  _origin_config "$root" "$dir" "$1" >"$conf"
  # -p/-e keep nginx from looking at its compiled-in /var paths at startup.
  # Its own startup messages are appended to the same error log.
  # shellcheck disable=SC2094
  exec nginx -p "$dir" -e "$dir/error.log" -c "$conf" >>"$dir/error.log" 2>&1
}

# _origin_port_ready PORT: the readiness probe of an origin on PORT answers.
_origin_port_ready() {
  _origin_ready "http://127.0.0.1:$1/_ready"
}

# start_fault_origin ROOT DIR: start scripts/fault-origin.py (python3, standard
# library only) serving the folder ROOT on a free 127.0.0.1 port, for faults
# nginx cannot produce on demand. Each request chooses its behaviour with query
# options (validators, Cache-Control, 304s, ranges, cut or stalled bodies,
# failure sequences per id=...): see the header of scripts/fault-origin.py.
#   GET /files/NAME?OPTIONS   serves ROOT/NAME (HTTP/1.1, keep-alive)
#   GET /redirect?to=URL      302 to URL
#   GET /status/CODE          that status, with a tiny body
#   GET /_ready               204, not logged (readiness probe)
# Request log: DIR/requests.jsonl, one JSON object per request, written when
# its response ends: {"ts", "end", "method", "path", "query", "id", "headers",
# "status", "bytes"}. Its standard error (real errors only): DIR/error.log.
# Exports FAULT_ORIGIN_PORT, FAULT_ORIGIN_URL, FAULT_ORIGIN_LOG,
# FAULT_ORIGIN_ERROR_LOG.
start_fault_origin() {
  local root=${1:?usage: start_fault_origin ROOT DIR} dir=${2:?usage: start_fault_origin ROOT DIR}
  mkdir -p "$root" "$dir"
  root=$(cd "$root" && pwd)
  dir=$(cd "$dir" && pwd)
  local log="$dir/requests.jsonl"
  : >"$log" # start each run with fresh logs
  : >"$dir/error.log"
  _start_on_free_port fault-origin "$dir/error.log" _launch_fault_origin _origin_port_ready || return 1
  export FAULT_ORIGIN_PORT=$STARTED_PORT
  export FAULT_ORIGIN_URL="http://127.0.0.1:$STARTED_PORT"
  export FAULT_ORIGIN_LOG=$log
  export FAULT_ORIGIN_ERROR_LOG="$dir/error.log"
  _services_log "fault origin: $FAULT_ORIGIN_URL (serving $root, log: $FAULT_ORIGIN_LOG)"
}

# _launch_fault_origin PORT: fault-origin.py for start_fault_origin (uses its
# `root`, `dir` and `log`). -u: unbuffered, so an error reaches the log
# before a crash.
_launch_fault_origin() {
  # shellcheck disable=SC2154
  exec python3 -u "$_SERVICES_SCRIPTS/fault-origin.py" --root "$root" --port "$1" --log "$log" >>"$dir/error.log" 2>&1
}

# start_contract_checker SPEC DIR: start scripts/openapi-check.py --serve on a
# free 127.0.0.1 port, holding the OpenAPI document SPEC (docs/openapi.yaml)
# loaded, so a test checks its recorded exchanges with one request instead of
# a Python process of its own (about 1.5 CPU-s each). Needs openapi-core
# (scripts/test-python-packages.sh).
#   POST /check   body: exchanges as JSON lines; 200, the complaints (empty: all conform)
#   GET /_ready   204 (readiness probe)
# Its standard error: DIR/error.log. Exports CONTRACT_CHECKER_URL.
start_contract_checker() {
  local spec=${1:?usage: start_contract_checker SPEC DIR} dir=${2:?usage: start_contract_checker SPEC DIR}
  mkdir -p "$dir"
  spec=$(cd "$(dirname "$spec")" && pwd)/$(basename "$spec")
  dir=$(cd "$dir" && pwd)
  : >"$dir/error.log"
  _start_on_free_port contract-checker "$dir/error.log" _launch_contract_checker _origin_port_ready || return 1
  export CONTRACT_CHECKER_URL="http://127.0.0.1:$STARTED_PORT"
  _services_log "contract checker: $CONTRACT_CHECKER_URL ($spec)"
}

# _launch_contract_checker PORT: openapi-check.py --serve for start_contract_checker.
_launch_contract_checker() {
  # shellcheck disable=SC2154
  exec python3 -u "$_SERVICES_SCRIPTS/openapi-check.py" --serve "$1" "$spec" >>"$dir/error.log" 2>&1
}

# stop_services: stop everything started above, newest first. Safe to call
# more than once (e.g. explicitly and again from an EXIT trap).
stop_services() {
  local i
  for ((i = ${#_SERVICES_PIDS[@]} - 1; i >= 0; i--)); do
    _stop_pid "${_SERVICES_PIDS[i]}" "${_SERVICES_NAMES[i]}"
  done
  _SERVICES_PIDS=()
  _SERVICES_NAMES=()
}
