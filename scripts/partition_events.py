#!/usr/bin/env python3
"""Reads a batch's event stream for scripts/partition-test.sh.

The events come from `redis-cli --json XRANGE 'warmer:{default}:batch:ID:events' - +`
(a JSON array of [id, [field, value, ...]], in stream order). Python 3.7+
standard library only.

  partition_events.py held WORKER EVENTS
      The jobs WORKER holds: their last lifecycle event is a `started` naming
      WORKER. One id per line.
  partition_events.py urls EVENTS JOB...
      `JOB URL` for each given job.
  partition_events.py unrecovered WORKER OTHER_WORKER EVENTS JOB...
      The given jobs that have not yet stalled under WORKER and then been
      claimed again (`started`) by OTHER_WORKER. One id per line.
  partition_events.py check-recovery CUT_WORKER OTHER_WORKER EVENTS JOB...
      Checks that each given job (held by CUT_WORKER when its link was cut)
      stalled once under CUT_WORKER and then completed exactly once, on
      OTHER_WORKER, after a new `started` there, and that CUT_WORKER
      published nothing for it after the stall. Prints `ok - ...` or
      `not ok - ...` lines; exits 1 if any check failed.
  partition_events.py check-batch URLS EVENTS --completions FILE
      Checks that every URL of the file URLS (one a line) completed exactly
      once and that no job failed, was dead-lettered or cancelled; prints
      `ok`/`not ok` lines, exits 1 on a failure, and writes `URL WORKER` per
      completed job to FILE.
"""

import json
import sys

# Events that end a job's hold by a worker (its lease is gone afterwards).
LIFECYCLE = {"started", "completed", "failed", "deadLettered", "delayed", "stalled", "cancelled"}


def load(path):
    """The events of the file as a list of dicts (field -> value), in stream order."""
    with open(path, encoding="utf-8") as f:
        text = f.read().strip()
    entries = json.loads(text) if text else []
    events = []
    for entry_id, fields in entries:
        event = dict(zip(fields[0::2], fields[1::2]))
        event["_id"] = entry_id
        events.append(event)
    return events


def held(worker, events):
    last = {}
    for event in events:
        if event.get("type") in LIFECYCLE and "job" in event:
            last[event["job"]] = event
    return sorted((job for job, event in last.items() if event["type"] == "started" and event.get("worker") == worker),
                  key=int)


def reclaimed(worker, other_worker, events):
    """Jobs that stalled under `worker` and were then started by `other_worker`."""
    stalled, taken_over = set(), set()
    for event in events:
        job = event.get("job")
        if event.get("type") == "stalled" and event.get("worker") == worker:
            stalled.add(job)
        elif event.get("type") == "started" and event.get("worker") == other_worker and job in stalled:
            taken_over.add(job)
    return taken_over


class Checks:
    """Prints TAP-like lines and remembers whether one failed."""

    def __init__(self):
        self.failed = False

    def expect(self, condition, message, detail=""):
        print(("ok - " if condition else "not ok - ") + message + ("" if condition or not detail else ": " + detail))
        if not condition:
            self.failed = True


def summary(events):
    return "\n    " + "\n    ".join(
        "%s job=%s worker=%s%s" % (e.get("type"), e.get("job"), e.get("worker", "-"),
                                   " stalls=" + e["stalls"] if "stalls" in e else "")
        for e in events)


def check_recovery(cut_worker, other_worker, events, jobs):
    checks = Checks()
    checks.expect(len(jobs) > 0, "the cut worker held jobs when its link was cut")
    for job in jobs:
        history = [e for e in events if e.get("job") == job]
        kinds = [e.get("type") for e in history]
        stalls = [i for i, e in enumerate(history) if e.get("type") == "stalled"]
        completions = [i for i, e in enumerate(history) if e.get("type") == "completed"]
        checks.expect(len(stalls) == 1 and history[stalls[0]].get("worker") == cut_worker,
                      "job %s stalled once, under the cut worker" % job, summary(history))
        checks.expect(len(completions) == 1 and history[completions[0]].get("worker") == other_worker,
                      "job %s completed exactly once, by the other worker" % job, summary(history))
        if stalls and completions:
            restarts = [i for i, e in enumerate(history)
                        if e.get("type") == "started" and e.get("worker") == other_worker and stalls[0] < i < completions[0]]
            checks.expect(len(restarts) == 1, "job %s was claimed again by the other worker after its stall" % job,
                          summary(history))
        if stalls:
            stale = [e for e in history[stalls[0] + 1:] if e.get("worker") == cut_worker]
            checks.expect(not stale, "job %s has no event from the cut worker after its stall" % job, summary(history))
        checks.expect("failed" not in kinds and "deadLettered" not in kinds,
                      "job %s never failed" % job, summary(history))
    return 1 if checks.failed else 0


def check_batch(urls_path, events, completions_path):
    with open(urls_path, encoding="utf-8") as f:
        urls = [line.strip() for line in f if line.strip()]
    checks = Checks()
    completed = [e for e in events if e.get("type") == "completed"]
    by_url = {}
    for event in completed:
        by_url.setdefault(event.get("url"), []).append(event)
    twice = {url: len(found) for url, found in by_url.items() if len(found) != 1}
    missing = [url for url in urls if url not in by_url]
    checks.expect(not missing, "every URL of the batch completed", "missing: %s" % missing)
    checks.expect(not twice, "no URL completed twice", "%s" % twice)
    checks.expect(len(completed) == len(urls), "%d completed events for %d URLs" % (len(completed), len(urls)))
    checks.expect(len({e.get("job") for e in completed}) == len(completed), "each completed event is a different job")
    bad = [e for e in events if e.get("type") in ("failed", "deadLettered", "cancelled")]
    checks.expect(not bad, "no job failed, was dead-lettered or cancelled", summary(bad))
    with open(completions_path, "w", encoding="utf-8") as f:
        for event in completed:
            f.write("%s %s\n" % (event.get("url"), event.get("worker")))
    return 1 if checks.failed else 0


def main(argv):
    if len(argv) >= 3 and argv[0] == "held":
        print("\n".join(held(argv[1], load(argv[2]))))
        return 0
    if len(argv) >= 2 and argv[0] == "urls":
        url = {e["job"]: e.get("url") for e in load(argv[1]) if "job" in e}
        print("\n".join("%s %s" % (job, url.get(job)) for job in argv[2:]))
        return 0
    if len(argv) >= 4 and argv[0] == "unrecovered":
        recovered = reclaimed(argv[1], argv[2], load(argv[3]))
        print("\n".join(job for job in argv[4:] if job not in recovered))
        return 0
    if len(argv) >= 4 and argv[0] == "check-recovery":
        return check_recovery(argv[1], argv[2], load(argv[3]), argv[4:])
    if len(argv) == 5 and argv[0] == "check-batch" and argv[3] == "--completions":
        return check_batch(argv[1], load(argv[2]), argv[4])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
