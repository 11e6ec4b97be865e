# Entry points. The logic lives in scripts/ and bench/; see each script's header.
#   make demo      build, start local Redis + image origin, warm 60 images with 2 workers
#   make test-fast every test target but EndToEndTests: no `warmer` process, no fuzzing
#   make test      build and run the tests against local Redis + nginx, then fuzz 20 s per parser
#                  (ARGS="--filter X": those tests only; WARMER_FUZZ_SECONDS=0: no fuzzing)
#   make fuzz      fuzz the input parsers longer: FUZZ_SECONDS per target (default 300), FUZZ_TARGETS
#   make bench     warmer vs curl --parallel download throughput (BENCH_COUNT=300)
#   make bench-processed   320-px JPEG thumbnails: warmer vs vipsthumbnail, one process per core
#   make bench-http-cache  --cache-mode http: re-warming a warm corpus (fresh, 304s) vs the first warming
#   make bench-queue       the Redis queue's own overhead: disk-hit jobs/s, enqueue cost, redis-benchmark
#   make bench-fleet-rate  what a fleet rate-limit permit costs a download job: jobs/s, worker and Redis CPU,
#                          EVALSHA per job, with and without --host-rate-limit (a limit that never binds)
#   make bench-fairness    fair queueing: a small batch behind a 200,000-URL one (slow origin), claim cost at 10,000 groups
#   make bench-recent      recently warmed URLs (freshFor): Redis memory per remembered completion, CPU per job
#   make bench-capacity    capacity figures: 1/2/4 workers against one Redis (jobs/s, Redis CPU, what limits),
#                          worker CPU per job by image size class, disk and processed (docs/capacity.md)
#   make bench-scale       cost flat with size: per-job CPU at 10k and 100k jobs, Redis bytes per queued
#                          job at 100k and 1M queued, claims behind 1M queued, a batch's keys gone after the retention
#   make bench-soak        one worker through 20,000 mixed jobs: exit status, RSS slope, Redis after the retention
#   make bench-memory      peak RSS by image size class, destination and --concurrency; the memory budget (docs/memory.md)
#   make bench-hostile     16 concurrent 100-megapixel decodes against the memory budget; lying JPEGs
#                          (HOSTILE_MODE=corpus: ~200 jobs of bombs, lying headers, odd formats; peak < budget + 256 MiB)
#   make bench-overhead    logging at info + metrics + HTTP server on vs off: queue jobs/s and disk warming
#   make bench-startup     a command's start-up with libvips loaded on demand (dlopen) vs at start
#   make bench-serve       warmer serve: POST of a 10,000-URL batch vs warmer enqueue; 200 SSE watchers'
#                          cost to the worker's jobs/s; GET /v1/cache vs nginx (wrk)
#   make bench-intake      the longest Redis command while 100,000- and 1,000,000-URL batches become jobs
#                          (intake documents and warmer enqueue; no call over 10 ms is the goal)
#   make bench-cache-sweep one sweep of a 1,000,000-file cache folder: migration from flat, under and over the limit
#   make test-asan / test-tsan   the test suite under AddressSanitizer / ThreadSanitizer (docs/testing.md)
#   make build     debug build      make release   release build
#   make clean     remove builds and service state (keeps the bench/.corpus image cache)

.PHONY: demo test test-fast test-asan test-tsan fuzz bench bench-processed bench-http-cache bench-queue bench-fleet-rate bench-fairness bench-recent bench-capacity bench-scale bench-soak bench-memory bench-hostile bench-overhead bench-startup bench-serve bench-intake bench-cache-sweep build release clean

demo:
	scripts/demo.sh

test:
	scripts/test.sh $(ARGS)

# Every test target but EndToEndTests (no `warmer` process is started), against
# the same local Redis and nginx as `make test`, without the fuzzing: the module
# a test belongs to decides, not a list kept here (CONTRIBUTING.md, "Running tests").
# No fuzzing: the libFuzzer runs are left out, and the schemathesis suite is
# reported as skipped (WARMER_API_FUZZ_EXAMPLES=0). 16 tests at once: none of
# these starts a worker whose timers a busy machine would starve.
test-fast:
	WARMER_TEST_PARALLELISM=$${WARMER_TEST_PARALLELISM:-16} WARMER_API_FUZZ_EXAMPLES=0 scripts/test.sh --skip EndToEndTests

test-asan:
	WARMER_SANITIZER=address scripts/test.sh $(ARGS)

test-tsan:
	WARMER_SANITIZER=thread scripts/test.sh $(ARGS)

FUZZ_SECONDS ?= 300
fuzz:
	scripts/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

bench:
	bench/run.sh

bench-processed:
	bench/processed.sh

bench-http-cache:
	bench/http-cache.sh

bench-queue:
	bench/queue.sh

bench-intake:
	bench/intake.sh

bench-fleet-rate:
	bench/fleet-rate.sh

bench-fairness:
	bench/fairness.sh

bench-recent:
	bench/recent.sh

bench-capacity:
	bench/capacity.sh
bench-scale:
	bench/scale.sh

bench-soak:
	bench/soak.sh

bench-memory:
	bench/memory.sh

bench-hostile:
	bench/hostile.sh

bench-overhead:
	bench/overhead.sh

bench-startup:
	bench/startup.sh

bench-serve:
	bench/serve.sh

bench-cache-sweep:
	bench/cache-sweep.sh

build:
	scripts/swift-build.sh

release:
	scripts/swift-build.sh -c release

clean:
	rm -rf .build .build-asan .build-tsan .build-fuzz .services bench/.work
