#!/usr/bin/env bash
# Build and run the whole test suite against real local services.
#
#   scripts/test.sh                   # everything (what `make test` and CI run)
#   scripts/test.sh --filter Redis    # extra arguments go to the tests, as to `swift test` (no fuzzing then)
#
# After `swift build --build-tests`, it starts, on random loopback ports:
#   - a Redis server (empty, no persistence),
#   - an nginx origin serving a small image corpus, and
#   - scripts/fault-origin.py serving the same folder, for faults nginx cannot
#     produce on demand (cut or stalled bodies, failure sequences, 304s...),
# and tells the tests where they are through the environment (the network
# partition proof, scripts/partition-test.sh, run by NetworkPartitionTests,
# brings its own services inside network namespaces):
#   WARMER_TEST_REDIS_URL    redis://127.0.0.1:PORT
#   WARMER_TEST_REDIS_PORT   PORT
#   WARMER_TEST_ORIGIN       http://127.0.0.1:PORT   (/NAME, or /slow/NAME at 100 KB/s
#                            after a first ~100 KB sent at once)
#   WARMER_TEST_ORIGIN_ROOT  the folder nginx serves; tests may add files to it
#   WARMER_TEST_ORIGIN_LOG   nginx access log, one line per request:
#                            METHOD URI STATUS BODY_BYTES "RANGE" "IF-RANGE" MSEC
#                            (MSEC: when the request ended, Unix seconds with ms)
#                            ("-" when a header is absent, quotes in it as \x22)
#   WARMER_TEST_FAULT_ORIGIN     http://127.0.0.1:PORT   (/files/NAME?OPTIONS serves
#                                the origin folder's NAME; the options are listed in
#                                scripts/fault-origin.py; also /redirect?to=URL and
#                                /status/CODE)
#   WARMER_TEST_FAULT_ORIGIN_LOG its request log: one JSON object per line, written
#                                when the response ends: {"ts", "end", "method",
#                                "path", "query", "id", "headers", "status", "bytes"}
#   WARMER_TEST_CONTRACT_CHECKER http://127.0.0.1:PORT   (POST /check: recorded
#                                exchanges as JSON lines; answers with those off
#                                docs/openapi.yaml: scripts/openapi-check.py --serve)
# The origin holds img-0001.jpg ... img-0024.png (JPEG, WebP and PNG) and
# large.jpg (about 1.5 MB, always the same bytes) for slow-download tests.
#
# After the whole suite (no arguments, no WARMER_SANITIZER) it fuzzes the
# input parsers for a bounded time: scripts/fuzz.sh $WARMER_FUZZ_SECONDS
# (default 20 s per target, a smoke run after the corpus replay; 0 skips it;
# `make fuzz` runs 300 s per target).
#
# All state lives in .services/test/ (git-ignored). The services are stopped
# when this script exits, however it exits. The exit status is swift's, or
# the fuzzers' when the tests passed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO=$PWD
STATE="$REPO/.services/test"
FIXTURE_COUNT=24

log() { echo "test.sh: $*" >&2; }

# The build needs only the C libraries' headers. The rest (redis-server,
# nginx, chromium, the Python packages...) is installed beside it, since
# the build keeps both cores busy and apt and pip mostly wait on the
# network and the disk; the tests start once both are done.
mkdir -p "$STATE"
scripts/bootstrap.sh --build
SETUP_LOG="$STATE/setup.log"
(scripts/bootstrap.sh && scripts/test-python-packages.sh) >"$SETUP_LOG" 2>&1 &
setup_pid=$!
trap 'kill -- "$setup_pid" 2>/dev/null || true' EXIT
finish_setup() {
  local code=0
  wait "$setup_pid" || code=$?
  cat "$SETUP_LOG" >&2
  if ((code != 0)); then
    log "installing the test dependencies failed (exit $code)"
    exit "$code"
  fi
}

# --- Build first: a compile error needs no services ------------------------
# WARMER_SANITIZER=address|thread builds and runs everything (tests and the
# `warmer` processes they start) under that sanitizer, in its own build
# folder (.build-asan, .build-tsan); see docs/testing.md.
BUILD=()
SCRATCH=.build
case ${WARMER_SANITIZER:-} in
  "") ;;
  address | thread)
    SCRATCH=".build-${WARMER_SANITIZER:0:1}san"
    BUILD=(-Xswiftc "-sanitize=$WARMER_SANITIZER" --scratch-path "$SCRATCH")
    # libvips and glib are not instrumented: ASan must not stop at their leaks.
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:halt_on_error=1}
    # TSan reports every Synchronization.Mutex-guarded access as a race on
    # Linux (docs/testing.md): its reports are printed for reading, and do
    # not change the exit status of the tests or of the workers they start.
    export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=0:exitcode=0:second_deadlock_stack=1}
    ;;
  *) log "WARMER_SANITIZER must be address or thread, not '$WARMER_SANITIZER'"; exit 2 ;;
esac
log "swift build --build-tests ${BUILD[*]}"
# A fixed environment and a stable build plan: scripts/swift-build.sh.
scripts/swift-build.sh --build-tests "${BUILD[@]}"
finish_setup
trap - EXIT

# --- Fixture images ---------------------------------------------------------
# The generated corpus is cached in $STATE/corpus between runs; every run
# serves a fresh copy of it, so files the tests add never pile up.
#
# make_large_jpeg FILE: a 1200x900 JPEG of ~1.5 MB. Colour noise from fixed
# seeds, so it is byte-for-byte the same on every run.
make_large_jpeg() {
  local out=$1 tmp
  tmp=$(mktemp -d)
  vips gaussnoise "$tmp/r.v" 1200 900 --sigma 50 --mean 128 --seed 1
  vips gaussnoise "$tmp/g.v" 1200 900 --sigma 50 --mean 128 --seed 2
  vips gaussnoise "$tmp/b.v" 1200 900 --sigma 50 --mean 128 --seed 3
  vips bandjoin "$tmp/r.v $tmp/g.v $tmp/b.v" "$tmp/rgb.v"
  vips copy "$tmp/rgb.v" "$tmp/large.jpg[Q=90,strip]" --interpretation srgb
  mv "$tmp/large.jpg" "$out"
  rm -rf "$tmp"
}

scripts/make-corpus.sh "$STATE/corpus" "$FIXTURE_COUNT"
if [[ ! -s "$STATE/corpus/large.jpg" ]]; then
  make_large_jpeg "$STATE/corpus/large.jpg"
fi
rm -rf "$STATE/origin" "$STATE/redis" "$STATE/nginx" "$STATE/fault-origin" "$STATE/contract-checker"
mkdir -p "$STATE/origin"
cp -p "$STATE/corpus"/img-* "$STATE/corpus/large.jpg" "$STATE/origin/"

# --- Services ---------------------------------------------------------------
# shellcheck source=scripts/services.sh
source scripts/services.sh
trap stop_services EXIT
trap 'exit 130' INT  # exit (and so run the EXIT trap) on Ctrl-C ...
trap 'exit 143' TERM # ... and on kill

start_redis "$STATE/redis"
start_origin "$STATE/origin" "$STATE/nginx"
start_fault_origin "$STATE/origin" "$STATE/fault-origin"
start_contract_checker docs/openapi.yaml "$STATE/contract-checker"

export WARMER_TEST_REDIS_URL=$REDIS_URL
export WARMER_TEST_REDIS_PORT=$REDIS_PORT
export WARMER_TEST_ORIGIN=$ORIGIN_URL
export WARMER_TEST_ORIGIN_ROOT=$ORIGIN_ROOT
export WARMER_TEST_ORIGIN_LOG=$ORIGIN_LOG
export WARMER_TEST_FAULT_ORIGIN=$FAULT_ORIGIN_URL
export WARMER_TEST_FAULT_ORIGIN_LOG=$FAULT_ORIGIN_LOG
export WARMER_TEST_CONTRACT_CHECKER=$CONTRACT_CHECKER_URL

# --- Tests ------------------------------------------------------------------
# At most WARMER_TEST_PARALLELISM tests at once (default 4): many suites run
# worker processes and servers of their own, and on a 2-core machine more
# at once only starve each other's timers.
width=(--experimental-maximum-parallelization-width "${WARMER_TEST_PARALLELISM:-4}")
status=0
: >"$STATE/swift-test.log"
# The build above made the test binary: it runs as `swift test --skip-build`
# would run it, with the same arguments, without what `swift test` adds
# around it: some 10 s of loading the package graph before every run, and a
# first run of the binary for XCTest, which has no tests here. (NO_COLOR:
# Swift Testing colours its output even into a pipe.)
TESTS=$SCRATCH/debug/WarmerPackageTests.xctest
run_swift_test() {
  log "WarmerPackageTests.xctest ${width[*]} $*"
  local code=0
  NO_COLOR=1 "$TESTS" --testing-library swift-testing "${width[@]}" "$@" 2>&1 | tee -a "$STATE/swift-test.log" \
    || code=${PIPESTATUS[0]}
  if ((code != 0)); then status=$code; fi
}
# The fuzzing (below) of the whole suite runs beside RedisClusterTests, at
# the lowest CPU priority: those tests mostly wait, the fuzzers take what
# they leave. Its output is shown when it ends.
FUZZ_LOG="$STATE/fuzz.log"
fuzz_pid=
fuzz_status=0
start_fuzzing() {
  log "scripts/fuzz.sh ${WARMER_FUZZ_SECONDS:-20} (nice 19, beside the cluster suite; output in $FUZZ_LOG)"
  nice -n 19 scripts/fuzz.sh "${WARMER_FUZZ_SECONDS:-20}" >"$FUZZ_LOG" 2>&1 &
  fuzz_pid=$!
}
finish_fuzzing() {
  [[ -n $fuzz_pid ]] || return 0
  wait "$fuzz_pid" || fuzz_status=$?
  fuzz_pid=
  cat "$FUZZ_LOG"
}
trap 'if [[ -n $fuzz_pid ]]; then kill -- "$fuzz_pid" 2>/dev/null || true; fi; stop_services' EXIT

# Suites that run a whole Redis Cluster (6 redis-servers each) with workers
# through it run by themselves: beside the others, on 2 cores, they starved
# their timers (workers then missed their grace periods). The whole suite
# runs them afterwards, side by side with each other and the fuzzers; with
# arguments, the test binary gets exactly those.
ALONE_SUITES=(RedisClusterTests)
if (($# == 0)); then
  skips=()
  for suite in "${ALONE_SUITES[@]}"; do skips+=(--skip "$suite"); done
  run_swift_test "${skips[@]}"
  if [[ -z ${WARMER_SANITIZER:-} && ${WARMER_FUZZ_SECONDS:-20} != 0 ]]; then start_fuzzing; fi
  for suite in "${ALONE_SUITES[@]}"; do run_swift_test --filter "$suite"; done
else
  run_swift_test "$@"
fi

# On CI nobody can look at .services/test afterwards: show the service logs.
if ((status != 0)) && [[ ${CI:-} == true ]]; then
  for f in "$STATE/redis/redis.log" "$ORIGIN_ERROR_LOG" "$FAULT_ORIGIN_ERROR_LOG" "$STATE/contract-checker/error.log"; do
    echo "===== $f (last 200 lines) ====="
    tail -n 200 "$f" || true
  done
  for f in "$ORIGIN_LOG" "$FAULT_ORIGIN_LOG"; do
    echo "===== $f (last 100 requests) ====="
    tail -n 100 "$f" || true
  done
fi

# A proof that cannot run on this machine is reported as cancelled by Swift
# Testing, never as passed (scripts/partition-test.sh without network
# namespaces): repeat why at the end, where it cannot be missed.
if grep -q 'SKIPPED: ' "$STATE/swift-test.log"; then
  echo "===== skipped, not passed ====="
  grep -o 'SKIPPED: [^"]*' "$STATE/swift-test.log" | sort -u
fi

# --- Fuzzing ----------------------------------------------------------------
# The whole suite (no arguments, no WARMER_SANITIZER: the fuzzers bring
# their own ASan) includes a short libFuzzer run of every input parser
# (scripts/fuzz.sh; docs/testing.md), started with the cluster suite above:
# WARMER_FUZZ_SECONDS per target, default 20, the targets side by side
# (under 40 s with the fuzz build), 0 to skip. A crash or broken property
# fails the run like a failed test.
finish_fuzzing

# Repeat the failures last, where a log that keeps only its tail shows them.
if ((status != 0)); then
  echo "===== failed tests and issues (from $STATE/swift-test.log) ====="
  grep -E '✘|error:|Fatal|fatal|Test Case .* failed|Issue recorded|crash|Signal' \
    "$STATE/swift-test.log" | tail -n 60 || true
fi
if ((fuzz_status != 0)); then
  echo "===== fuzzing found a crashing input (saved under Fuzz/Crashers/, see above) ====="
  ((status != 0)) || status=$fuzz_status
fi

exit "$status"
