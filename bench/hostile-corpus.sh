# shellcheck shell=bash
# The corpus mode of bench/hostile.sh (HOSTILE_MODE=corpus): sourced by it
# after bench_setup, with BUDGET, MEMORY_CACHE, warmer, WORK, CORPUS and
# ORIGIN_URL set. See bench/hostile.sh's header.

COPIES=7           # URLs per kind of file
LIMIT=$((BUDGET + 256)) # MiB the peak RSS must stay under
HOSTILE_DIR="$CORPUS/hostile"
bench/make-hostile-corpus.sh "$HOSTILE_DIR"

urls="$WORK/hostile-urls.txt"
for file in "$HOSTILE_DIR"/*.*; do
  for n in $(seq 1 "$COPIES"); do echo "$ORIGIN_URL/hostile/$(basename "$file")?copy=$n"; done
done | awk 'BEGIN { srand(23) } { print rand() "\t" $0 }' | sort -n | cut -f 2 >"$urls"
jobs=$(wc -l <"$urls")

queue="hostile-corpus-$$"
"$warmer" worker --queue "$queue" --concurrency 16 --cache-dir "$WORK/cache" --memory-budget "$BUDGET" \
  --memory-cache-size "$MEMORY_CACHE" >"$WORK/worker.log" 2>&1 &
worker_pid=$!
track_process "$worker_pid" "warmer worker"
sleep 1
hwm() { awk '/^VmHWM:/ { print int($2 / 1024) }' "/proc/$worker_pid/status"; }
base=$(hwm)

log "hostile corpus: $jobs URLs × (thumbnail=320, resize=320x0) through one worker, --memory-budget $BUDGET"
start=$(now)
thumbnails=$("$warmer" enqueue --queue "$queue" --destination processed --thumbnail 320 --format jpeg "$urls")
full=$("$warmer" enqueue --queue "$queue" --destination processed --resize 320x0 --format jpeg "$urls")
for batch in "$thumbnails" "$full"; do
  # watch exits non-zero when a job failed: expected here, the events say how.
  timeout "$WATCH_TIMEOUT" "$warmer" watch --queue "$queue" --batch "$batch" --json >"$WORK/events-$batch.jsonl" || true
done
end=$(now)
if ! is_running "$worker_pid"; then
  log "the worker died; its log ends:"
  tail -n 30 "$WORK/worker.log" >&2
  exit 1
fi
peak=$(hwm)
stop_process "$worker_pid"

# Each job's last event: completed, or failed with its error code, by kind of file.
cat "$WORK"/events-*.jsonl | python3 -c '
import json, sys, collections
ends = {}
for line in sys.stdin:
    event = json.loads(line)
    if event.get("type") in ("completed", "failed", "deadLettered"):
        ends[(event["batch"], event["url"])] = event["type"] if event["type"] == "completed" else event.get("error", "?")
by_kind = collections.defaultdict(collections.Counter)
for (batch, url), outcome in ends.items():
    by_kind[url.split("/hostile/")[1].split("?")[0]][outcome] += 1
allowed = {"completed", "decoding_failed", "too_many_pixels", "over_memory_budget", "unsupported_format", "deadline_exceeded"}
bad = 0
for kind in sorted(by_kind):
    print(f"  {kind:22} " + ", ".join(f"{n} {o}" for o, n in sorted(by_kind[kind].items())))
    bad += sum(n for o, n in by_kind[kind].items() if o not in allowed)
print(f"  {len(ends)} jobs ended")
sys.exit(1 if bad else 0)
' >"$WORK/outcomes.txt" || {
  cat "$WORK/outcomes.txt"
  log "some jobs ended with an error other than the image errors"
  exit 1
}
ended=$(awk '/jobs ended/ { print $1 }' "$WORK/outcomes.txt")
echo
echo "outcomes (thumbnail + full decode of each URL):"
cat "$WORK/outcomes.txt"
echo
printf 'hostile corpus: %d jobs in %.1f s; worker base %d MiB; peak RSS %d MiB; budget %d MiB + 256 = %d MiB (%d%%)\n' \
  "$((2 * jobs))" "$(elapsed "$start" "$end")" "$base" "$peak" "$BUDGET" "$LIMIT" "$((peak * 100 / LIMIT))"
if ((ended != 2 * jobs)); then
  log "only $ended of $((2 * jobs)) jobs ended"
  exit 1
fi
if ((peak >= LIMIT)); then
  log "the peak RSS ($peak MiB) is not under the budget + 256 MiB ($LIMIT MiB)"
  exit 1
fi
