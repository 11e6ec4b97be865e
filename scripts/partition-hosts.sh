# The hosts of scripts/partition-test.sh: the network namespaces, the
# switch and its ports, Redis, the nginx origin and the workers inside them,
# and the queue helpers the scenario reads Redis with.
#
# Sourced by partition-test.sh after its settings (NS_*, addresses, RUN,
# WARMER, LEASE, CONCURRENCY, LIMIT_RATE) and its log/ok/fail helpers; not
# meant to be run on its own. Every function here is described where it is
# defined.
# --- The network ------------------------------------------------------------------
skip() {
  echo "SKIPPED: network namespaces unavailable: $*"
  exit 77
}

# inside NS COMMAND...: run COMMAND inside namespace NS. (Processes started in
# the background call `ip netns exec` directly, so that $! is their own pid:
# ip execs the command.)
inside() {
  local ns=$1
  shift
  ip netns exec "$ns" "$@"
}

# add_host NS PORT ADDRESS: namespace NS with eth0 at ADDRESS/24, linked to
# port PORT of the switch.
add_host() {
  local ns=$1 port=$2 address=$3 error
  error=$(ip netns add "$ns" 2>&1) || skip "ip netns add: $error"
  NAMESPACES+=("$ns")
  error=$(ip link add eth0 netns "$ns" type veth peer name "$port" netns "$NS_NET" 2>&1) \
    || skip "cannot create a veth pair: $error"
  ip -n "$NS_NET" link set "$port" master br0
  ip -n "$NS_NET" link set "$port" up
  ip -n "$ns" link set lo up
  ip -n "$ns" addr add "$address/24" dev eth0
  ip -n "$ns" link set eth0 up
}

setup_network() {
  command -v ip >/dev/null 2>&1 || skip "the ip command (iproute2) is not installed"
  local error
  error=$(ip netns add "$NS_NET" 2>&1) || skip "ip netns add: $error"
  NAMESPACES+=("$NS_NET")
  error=$(ip -n "$NS_NET" link add br0 type bridge 2>&1) || skip "cannot create a bridge: $error"
  ip -n "$NS_NET" link set br0 up
  add_host "$NS_REDIS" p-redis "$REDIS_IP"
  add_host "$NS_ORIGIN" p-origin "$ORIGIN_IP"
  add_host "$NS_W1" p-w1 "$W1_IP"
  add_host "$NS_W2" p-w2 "$W2_IP"
}

# The partition: w1's port leaves the switch (its packets go nowhere) and comes back.
cut_w1() { ip -n "$NS_NET" link set p-w1 nomaster; }
restore_w1() { ip -n "$NS_NET" link set p-w1 master br0; }

# --- Services ---------------------------------------------------------------------
# wait_for SECONDS COMMAND...: run COMMAND every 0.2 s until it succeeds.
wait_for() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}

rcli() { inside "$NS_REDIS" redis-cli -h "$REDIS_IP" "$@"; }

start_redis() {
  mkdir -p "$RUN/redis"
  ip netns exec "$NS_REDIS" redis-server --bind "$REDIS_IP" --port 6379 --protected-mode no \
    --save '' --appendonly no --daemonize no --dir "$RUN/redis" --logfile "$RUN/redis/redis.log" \
    >>"$RUN/redis/redis.log" 2>&1 &
  PIDS+=($!)
  wait_for 20 bash -c "[[ \$(ip netns exec '$NS_REDIS' redis-cli -h $REDIS_IP ping) == PONG ]]" \
    || fail "redis-server did not start: $(tail -n 5 "$RUN/redis/redis.log")"
}

# nginx, throttled; its access log shows who fetched what, and when the
# response ended (seconds since the epoch):
#   TIME CLIENT_ADDRESS URI STATUS BODY_BYTES
start_origin() {
  local dir="$RUN/origin" user_line=""
  mkdir -p "$dir/tmp"
  if ((EUID == 0)); then user_line="user root;"; fi # the corpus may sit under /root
  cat >"$dir/nginx.conf" <<EOF
daemon off;
master_process on;
worker_processes 1;
$user_line
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 256; }
http {
    client_body_temp_path $dir/tmp/client_body;
    proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    types { image/jpeg jpg; image/png png; image/webp webp; }
    log_format partition '\$msec \$remote_addr \$request_uri \$status \$body_bytes_sent';
    access_log $dir/access.log partition;
    server {
        listen $ORIGIN_IP:80;
        root $CORPUS;
        location / { limit_rate $LIMIT_RATE; }
        location = /_ready { access_log off; return 204; }
    }
}
EOF
  ip netns exec "$NS_ORIGIN" nginx -p "$dir" -e "$dir/error.log" -c "$dir/nginx.conf" >>"$dir/error.log" 2>&1 &
  PIDS+=($!)
  # Probed from Redis' host: the switch works too.
  wait_for 20 inside "$NS_REDIS" curl -fs -o /dev/null --max-time 2 "$ORIGIN/_ready" \
    || fail "nginx did not start: $(tail -n 5 "$dir/error.log")"
}

# start_worker NAME NS: a worker in NS, logging to $RUN/NAME.log, caching in
# $RUN/NAME-cache; sets WORKER_PID and WORKER_ID.
start_worker() {
  local name=$1 ns=$2
  ip netns exec "$ns" "$WARMER" worker --redis "$REDIS_URL" --cache-dir "$RUN/$name-cache" \
    --concurrency "$CONCURRENCY" --lease-duration "$LEASE" --grace-period 10 \
    --allow-network 10.213.0.0/24 >"$RUN/$name.out" 2>"$RUN/$name.log" &
  WORKER_PID=$!
  PIDS+=("$WORKER_PID")
  wait_for 30 grep -q '\[worker\] started' "$RUN/$name.log" \
    || fail "worker $name did not start: $(tail -n 5 "$RUN/$name.log")"
  WORKER_ID=$(grep -o '\[worker\] started worker=[^ ]*' "$RUN/$name.log" | head -n 1 | sed 's/.*worker=//')
}

# --- Queue helpers ----------------------------------------------------------------
enqueue() { # enqueue BATCH URLS_FILE [FLAGS...]
  local batch=$1 urls=$2
  shift 2
  inside "$NS_REDIS" "$WARMER" enqueue --redis "$REDIS_URL" --batch "$batch" "$@" "$urls" >/dev/null
}
events() { # events BATCH FILE: the batch's event stream as JSON
  rcli --json XRANGE "warmer:{default}:batch:$1:events" - + >"$2"
}
counter() { rcli HGET "warmer:{default}:batch:$1" "$2"; }
finished() { [[ -n $(counter "$1" finishedAt) ]]; }
py() { python3 "$REPO/scripts/partition_events.py" "$@"; }
