#!/usr/bin/env python3
"""N concurrent Server-Sent Events watchers of one batch's stream, for bench/serve.sh.

    sse-watchers.py --port PORT --path /v1/queues/Q/batches/ID/events --count 200 --ready FILE

Opens COUNT connections to 127.0.0.1:PORT (raw HTTP/1.1, asyncio, standard
library only), writes FILE once every one has its 200 and the stream's opening
comment, and reads each stream to its end. A stream that ends before
`batchCompleted` is reconnected with `Last-Event-ID`, as a browser's
EventSource does. Prints one JSON line: per watcher the event count, whether
ids only grew, the first and last id, a SHA-256 of the id sequence, whether
it saw `batchCompleted`, and its reconnections.
"""
import argparse
import asyncio
import hashlib
import json
import sys


async def open_stream(port, path, last_id):
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
    headers = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\nConnection: close\r\n"
    if last_id:
        headers += f"Last-Event-ID: {last_id}\r\n"
    writer.write((headers + "\r\n").encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    chunked = b"transfer-encoding: chunked" in head.lower()
    return reader, writer, status, chunked


async def body_chunks(reader, chunked):
    """The decoded body, piece by piece."""
    if not chunked:
        while data := await reader.read(1 << 16):
            yield data
        return
    while True:
        size_line = await reader.readuntil(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            return
        yield await reader.readexactly(size)
        await reader.readexactly(2)


def parse(pending, chunk, state):
    """Feeds SSE text; returns what is left of an incomplete line."""
    data = pending + chunk
    lines = data.split(b"\n")
    for line in lines[:-1]:
        if line.startswith(b"id: "):
            event_id = line[4:].decode()
            ms, seq = event_id.split("-")
            key = (int(ms), int(seq))
            if state["last_key"] is not None and key <= state["last_key"]:
                state["increasing"] = False
            state["last_key"] = key
            state["last"] = event_id
            state["first"] = state["first"] or event_id
            state["count"] += 1
            state["hash"].update(line[4:] + b"\n")
        elif line == b"event: batchCompleted":
            state["completed"] = True
    return lines[-1]


async def watch(port, path, ready, all_ready):
    state = {"count": 0, "increasing": True, "first": None, "last": None, "last_key": None,
             "hash": hashlib.sha256(), "completed": False, "reconnects": 0, "status": None}
    first_connection = True
    while not state["completed"]:
        reader, writer, status, chunked = await open_stream(port, path, state["last"])
        state["status"] = status
        if status != 200:
            writer.close()
            if first_connection:
                ready.set_result(False)
            break
        pending = b""
        chunks = body_chunks(reader, chunked)
        try:
            if first_connection:
                first_connection = False
                # The opening comment: the stream is subscribed.
                chunk = await anext(chunks)
                pending = parse(pending, chunk, state)
                ready.set_result(True)
                await all_ready
            async for chunk in chunks:
                pending = parse(pending, chunk, state)
        except (asyncio.IncompleteReadError, ConnectionError, StopAsyncIteration):
            pass
        writer.close()
        if not state["completed"]:
            state["reconnects"] += 1
    state["hash"] = state["hash"].hexdigest()
    del state["last_key"]
    return state


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--path", required=True)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--ready", required=True)
    args = parser.parse_args()
    loop = asyncio.get_running_loop()
    readies = [loop.create_future() for _ in range(args.count)]
    all_ready = loop.create_future()
    tasks = []
    for ready in readies:
        tasks.append(asyncio.create_task(watch(args.port, args.path, ready, all_ready)))
        await asyncio.sleep(0)
    oks = await asyncio.gather(*readies)
    with open(args.ready, "w") as f:
        f.write(f"{sum(oks)}\n")
    all_ready.set_result(True)
    results = await asyncio.gather(*tasks)
    json.dump(results, sys.stdout)
    print()


if __name__ == "__main__":
    asyncio.run(main())
