#!/usr/bin/env python3
"""A producer and observer written from docs/wire-format.md and
docs/cache-layout.md alone, with redis-py: what a Python service does with
Warmer. Run by IntegratorTests against real workers.

    integrator-check.py REDIS_URL QUEUE CACHE_DIR IMAGE_URL... --not-an-image URL

It sends two named batches as intake documents (a disk batch of the images
plus the non-image URL, and a processed batch of the images with
`format=webp`), follows both batch streams with the documented gap-free
XREAD loop until `batchCompleted`, and checks, as the docs state them:
every event's fields against the events table, the batch counters, the
cache files (key rules, SHA-256 names in ab/cd/ shards, sizes equal to `completed`'s
`bytes`), and the dead-letter set holding the failed job. Prints one line
per failed check and exits 1 if there is any; prints a JSON summary.
"""
import argparse
import hashlib
import json
import os
import sys
import time
import uuid

import redis

# docs/events.md: the fields each event type may carry.
COMMON = {"v", "type", "batch", "ts"}
JOB = COMMON | {"job", "url", "worker", "attempt"}
ALLOWED = {
    "started": JOB,
    "progress": JOB | {"bytes", "total"},
    "retrying": JOB | {"download_attempt", "error", "message", "retry_in_ms"},
    "delayed": JOB | {"error", "message", "retry_in_ms"},
    "stalled": JOB | {"stalls"},
    "completed": JOB | {"bytes", "source"},
    "failed": JOB | {"error", "message"},
    "deadLettered": JOB | {"error", "message"},
    "cancelled": JOB - {"worker"},
    "batchCompleted": COMMON | {"total", "completed", "failed", "cancelled", "dead"},
}
REQUIRED = {
    "started": {"v", "type", "batch", "ts", "job", "url", "worker", "attempt"},
    "completed": {"v", "type", "batch", "ts", "job", "url", "worker", "attempt", "bytes", "source"},
    "failed": {"v", "type", "batch", "ts", "job", "url", "attempt", "error", "message"},
    "batchCompleted": COMMON | {"total", "completed", "failed", "cancelled", "dead"},
}

problems = []


def check(condition, message):
    if not condition:
        problems.append(message)


def follow(r, stream, deadline):
    """The docs' loop: start at 0, carry the last id forward, stop at batchCompleted."""
    last, events = "0", []
    while time.time() < deadline:
        reply = r.xread({stream: last}, block=1000, count=100)
        for _name, entries in reply:
            for entry_id, fields in entries:
                events.append(fields)
                last = entry_id
        if events and events[-1].get("type") == "batchCompleted":
            return events
    problems.append(f"{stream}: no batchCompleted before the deadline ({len(events)} events)")
    return events


def cache_file(cache_dir, key):
    """Where a worker stores the entry: ab/cd/<sha256> (docs/cache-layout.md).
    (A reader of a folder that an earlier release wrote flat would also try
    <sha256> at the top; the workers here write only the sharded layout.)"""
    name = hashlib.sha256(key.encode()).hexdigest()
    return os.path.join(cache_dir, name[:2], name[2:4], name)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("redis_url")
    parser.add_argument("queue")
    parser.add_argument("cache_dir")
    parser.add_argument("images", nargs="+")
    parser.add_argument("--not-an-image", required=True)
    args = parser.parse_args()
    r = redis.Redis.from_url(args.redis_url, decode_responses=True)
    prefix = f"warmer:{{{args.queue}}}:"
    run = uuid.uuid4().hex[:8]
    disk, processed = f"py-disk-{run}", f"py-processed-{run}"

    r.rpush(prefix + "intake", json.dumps({"v": 1, "batch": disk, "urls": args.images + [args.not_an_image]}))
    r.rpush(prefix + "intake", json.dumps({"v": 1, "batch": processed, "urls": args.images,
                                           "destination": "processed", "processing": "format=webp"}))

    deadline = time.time() + 60
    streams = {batch: follow(r, f"{prefix}batch:{batch}:events", deadline) for batch in (disk, processed)}

    for batch, events in streams.items():
        for event in events:
            kind = event.get("type")
            check(kind in ALLOWED, f"{batch}: unknown event type {kind!r}")
            if kind not in ALLOWED:
                continue
            extra = set(event) - ALLOWED[kind]
            check(not extra, f"{batch}: {kind} has undocumented fields {sorted(extra)}")
            missing = REQUIRED.get(kind, set()) - set(event)
            check(not missing, f"{batch}: {kind} lacks {sorted(missing)}")
            check(event.get("v") == "1" and event.get("batch") == batch, f"{batch}: {kind} has v/batch {event}")
        check(sum(e.get("type") == "batchCompleted" for e in events) == 1, f"{batch}: not exactly one batchCompleted")

    disk_hash, processed_hash = r.hgetall(prefix + "batch:" + disk), r.hgetall(prefix + "batch:" + processed)
    n = len(args.images)
    check(disk_hash.get("total") == str(n + 1) and disk_hash.get("completed") == str(n)
          and disk_hash.get("failed") == "1", f"disk batch counters: {disk_hash}")
    check(processed_hash.get("total") == str(n) and processed_hash.get("completed") == str(n),
          f"processed batch counters: {processed_hash}")

    def completed_bytes(events):
        return {e["url"]: int(e["bytes"]) for e in events if e.get("type") == "completed"}

    for url, size in completed_bytes(streams[disk]).items():
        path = cache_file(args.cache_dir, url)
        check(os.path.isfile(path) and os.path.getsize(path) == size,
              f"disk: {url} not at {path} with {size} bytes")
    for url, size in completed_bytes(streams[processed]).items():
        path = cache_file(args.cache_dir, url + "|webp(q=default)")
        ok = os.path.isfile(path)
        check(ok and os.path.getsize(path) == size, f"processed: {url} not at {path} with {size} bytes")
        if ok:
            with open(path, "rb") as file:
                head = file.read(12)
            check(head[:4] == b"RIFF" and head[8:12] == b"WEBP", f"processed: {path} is not WebP")

    failed = [e for e in streams[disk] if e.get("type") == "failed"]
    check(len(failed) == 1 and failed[0].get("url") == args.not_an_image
          and failed[0].get("error") == "not_an_image", f"disk: failed events {failed}")
    dead = set(r.zrange(prefix + "dead", 0, -1))
    check(all(e.get("job") in dead for e in failed), f"failed jobs not in the dead-letter set {dead}")

    print(json.dumps({"disk": disk_hash, "processed": processed_hash,
                      "events": {batch: len(events) for batch, events in streams.items()}}))
    for problem in problems:
        print("PROBLEM: " + problem)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
