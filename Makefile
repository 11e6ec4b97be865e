# Entry points. The logic lives in scripts/ and bench/; see each script's header.
#   make demo      build, start local Redis + image origin, warm 60 images with 2 workers
#   make test      build and run the tests against local Redis + nginx (ARGS="--filter X")
#   make bench     warmer vs curl --parallel download throughput (BENCH_COUNT=300)
#   make build     debug build      make release   release build
#   make clean     remove builds and service state (keeps the bench/.corpus image cache)

.PHONY: demo test bench build release clean

demo:
	scripts/demo.sh

test:
	scripts/test.sh $(ARGS)

bench:
	bench/run.sh

build:
	swift build

release:
	swift build -c release

clean:
	rm -rf .build .services bench/.work
