#!/usr/bin/env python3
"""Summarise Redis's SLOWLOG for bench/intake.sh: the longest command in ms,
how many took over 10 ms, and how many were logged, on one line.

Reads SLOWLOG GET over RESP (redis-cli's text output flattens the nested
entries, so their arguments cannot be told from their fields).

    bench/slowlog.py PORT [--top N]   (--top: also the N longest, with their first arguments and place)

It also prints, one line each on standard error, every script's longest
call and how many of its calls were logged: a script is told by its SHA-1
and its number of keys (claim.lua 19, parse-push.lua 14, parse-end.lua 18,
enqueue.lua 17).
"""
import socket
import sys


def read(stream):
    line = stream.readline()
    kind, rest = line[:1], line[1:-2]
    if kind in (b"+", b"-"):
        return rest.decode()
    if kind == b":":
        return int(rest)
    if kind == b"$":
        size = int(rest)
        return None if size < 0 else stream.read(size + 2)[:-2].decode(errors="replace")
    if kind == b"*":
        return [read(stream) for _ in range(int(rest))]
    raise ValueError(f"unexpected reply line {line!r}")


def main():
    port = int(sys.argv[1])
    top = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--top" else 0
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(b"*3\r\n$7\r\nSLOWLOG\r\n$3\r\nGET\r\n$6\r\n100000\r\n")
    # Each entry: [id, unix time, microseconds, [arguments...], client address, client name].
    # The bench's own commands (resetting the log, flushing between parts) are left out.
    own = {"SLOWLOG", "LATENCY", "CONFIG", "FLUSHALL"}
    entries = [e for e in read(sock.makefile("rb")) if str(e[3][0]).upper() not in own]
    durations = [entry[2] for entry in entries]
    print(max(durations, default=0) / 1000, sum(d > 10000 for d in durations), len(durations))
    scripts = {}
    for entry in entries:
        arguments = entry[3]
        if str(arguments[0]).upper() in ("EVALSHA", "EVAL") and len(arguments) > 2:
            name = f"{str(arguments[1])[:8] if str(arguments[0]).upper() == 'EVALSHA' else 'EVAL'} ({arguments[2]} keys)"
        else:
            name = str(arguments[0]).upper()
        count, longest = scripts.get(name, (0, 0))
        scripts[name] = (count + 1, max(longest, entry[2]))
    for name, (count, longest) in sorted(scripts.items(), key=lambda item: -item[1][1]):
        print(f"  {name:24} longest {longest / 1000:6.1f} ms, {count} calls logged", file=sys.stderr)
    # Where in the part each came: its place among the logged entries, oldest first.
    oldest_first = sorted(entries, key=lambda e: e[0])
    place = {entry[0]: index + 1 for index, entry in enumerate(oldest_first)}
    for entry in sorted(entries, key=lambda e: -e[2])[:top]:
        print(f"  {entry[2] / 1000:8.1f} ms  {' '.join(str(a)[:40] for a in entry[3][:4])}"
              f"  (logged entry {place[entry[0]]} of {len(entries)})", file=sys.stderr)


if __name__ == "__main__":
    main()
