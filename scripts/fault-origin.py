#!/usr/bin/env python3
"""A test HTTP origin that injects the faults nginx cannot produce on demand.

    fault-origin.py --root DIR --port PORT --log FILE

(With fault_origin_options.py — query options, HTTP dates, ranges — and
fault_origin_files.py — how a file is served — beside it.)

Serves the files of DIR (the folder the nginx origin serves) on 127.0.0.1:PORT
over HTTP/1.1 with keep-alive. Python 3.7+ standard library only; started by
`start_fault_origin` in scripts/services.sh.

Each request picks its behaviour with query parameters, so tests need no
control calls and concurrent tests never see each other's settings. Values are
percent-decoded; a "+" stays a plus (write a space as %20).

  GET|HEAD /files/NAME?OPTIONS   DIR/NAME, or 404 when there is no such file
  GET|HEAD /redirect?to=URL      302 with Location: URL
  GET|HEAD /status/CODE          that status, with a tiny text body
  GET|HEAD /hang                 reads the request and never answers: the
                                 connection stays open, silent, until the
                                 client closes it or 120 s pass (logged with
                                 status 0)
  GET|HEAD /_ready               204, not logged (readiness probe)

Options of /files/NAME (nothing is sent unless asked for: without etag= and
lm=auto the response carries no validators):

  Validators and caching
    etag=auto         ETag: "sha1-" + 16 hex digits of the SHA-1 of the file's
                      current bytes, e.g. "sha1-0123456789abcdef"
    etag=weak         the same, weak: W/"sha1-..."
    etag=VALUE        ETag: "VALUE" (sent as is when VALUE is already quoted,
                      "..." or W/"..."); etag=none: no ETag (the default)
    lm=auto|none      Last-Modified from the file's mtime, as an IMF-fixdate
                      (default none)
    cc=VALUE          Cache-Control: VALUE
    expires=VALUE     Expires: VALUE; expires=+N (or -N) is now + N seconds
    date=-N           a Date N seconds in the past (+N: in the future);
                      default: now
    vary=VALUE        Vary: VALUE
    age=VALUE         Age: VALUE
  Conditional requests (304 Not Modified, with no body but with the ETag,
  Last-Modified, Cache-Control, Expires, Date, Vary and Age headers the 200
  would carry)
    If-None-Match     "*", or a list of entity tags compared weakly with the
                      current ETag
    If-Modified-Since only without If-None-Match, and only when Last-Modified
                      is sent (lm=auto): 304 when the mtime is not newer
  Ranges (one range per request: bytes=N-, bytes=N-M or bytes=-N; anything
  else, e.g. several ranges, gets the full 200)
    (default)         Accept-Ranges: bytes; a Range gets 206 + Content-Range,
                      unless an If-Range does not match (strong comparison
                      with the current ETag, or exactly the Last-Modified
                      sent): then the full 200. A first byte at or beyond the
                      size gets 416 with Content-Range: bytes */SIZE.
    ranges=ignore     Accept-Ranges: bytes, but every Range gets the full 200
    ranges=none       no Accept-Ranges, and every Range gets the full 200
  Faults (cut and fail need id=ID; counting is per ID, in this process)
    id=ID             the test's own name for its requests (also logged)
    fail=S1,S2,...    the k-th request for ID (k from 0) answers status Sk
                      with a tiny text body; later ones are served normally
    retryafter=N      Retry-After: N on those failures (and on /status/CODE);
                      retryafter=date:N is an HTTP-date N seconds from now
    cut=N             full headers (the whole Content-Length, or the 206's),
                      then the connection is closed after N body bytes
    cutcount=C        cut the first C (default 1) responses for ID that carry
                      a body (GET 200/206; failures, 304, 416 and HEAD do not
                      use one up)
    rate=BYTES        send the body at about BYTES bytes per second
    stall=N           send N body bytes, then nothing: the connection stays
                      open until the client closes it or 120 s pass, then it
                      is closed (the response is never completed)
    chunked=1         Transfer-Encoding: chunked, no Content-Length
  A bad option value gets 400 with a one-line explanation.

Log: every request but /_ready is appended to FILE as one JSON object per
line, when its response is finished or aborted, and flushed at once:

  {"ts": 1700000000.123, "end": 1700000000.456, "method": "GET",
   "path": "/files/a.jpg", "query": {"etag": "auto", "id": "t-1"},
   "id": "t-1", "headers": {"range": "bytes=100-", ...},
   "status": 206, "bytes": 4096}

ts is when the request arrived and end when its response was done (seconds
since the epoch); headers are the request's, names lowercased; bytes counts
the body bytes actually sent (chunked framing excluded); status is 0 when the
connection failed before a status line was sent.
"""

import argparse
import json
import os
import re
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

from fault_origin_files import STALL_LIMIT, FileResponses
from fault_origin_options import BadOption, http_date, int_option, parse_query

IDLE_TIMEOUT = 300  # seconds an idle keep-alive connection is kept


class FaultOrigin(ThreadingHTTPServer):
    """The server, with the state the request handlers share."""

    daemon_threads = True  # a stalled or idle connection never blocks exit
    request_queue_size = 128  # tests open many connections at once

    def __init__(self, address, root, log_path):
        super().__init__(address, Handler)
        self.root = os.path.realpath(root)
        self.log_file = open(log_path, "a", encoding="utf-8")
        self.log_lock = threading.Lock()
        # Per ID: how many /files requests arrived ("requests") and how many
        # body-carrying responses could have been cut so far ("bodies").
        self.counters = {}
        self.counters_lock = threading.Lock()

    def count(self, request_id, key):
        """Returns the current value of counter key for request_id, then increments it."""
        with self.counters_lock:
            counters = self.counters.setdefault(request_id, {"requests": 0, "bodies": 0})
            value = counters[key]
            counters[key] = value + 1
            return value

    def write_log(self, entry):
        line = json.dumps(entry)
        with self.log_lock:  # whole lines only, never interleaved
            self.log_file.write(line + "\n")
            self.log_file.flush()

    def handle_error(self, request, client_address):
        # A client that hangs up mid-response is part of the tests, not an
        # error; anything else is printed (to the error log) with its traceback.
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, socket.timeout)):
            return
        super().handle_error(request, client_address)


class Handler(FileResponses, BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: every response is framed
    server_version = "fault-origin"
    sys_version = ""
    timeout = IDLE_TIMEOUT

    # --- plumbing -----------------------------------------------------------

    def setup(self):
        super().setup()
        # Small writes (rate=, stall=, cut=) go out at once.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def parse_request(self):
        # Called once the request line has arrived: the request's "ts".
        self.arrived = time.time()
        return super().parse_request()

    def log_message(self, format, *args):
        pass  # quiet: the JSON log records every request

    def do_GET(self):
        self.dispatch()

    def do_HEAD(self):
        self.dispatch()

    def dispatch(self):
        url = urlsplit(self.path)
        path = unquote(url.path)
        options = parse_query(url.query)
        if path == "/_ready":
            self.send_response_only(204)
            self.end_headers()
            return

        self.status = 0  # the status sent, once sent
        self.sent = 0  # body bytes sent
        self.retry_after = None  # for failures, from retryafter=
        try:
            self.retry_after = self.retry_after_header(options.get("retryafter"))
            if path.startswith("/files/"):
                self.serve_file(path[len("/files/"):], options)
            elif path == "/redirect":
                self.serve_redirect(options)
            elif path == "/hang":
                self.serve_nothing()
            elif re.fullmatch(r"/status/\d{3}", path):
                self.serve_status(int(path[len("/status/"):]), options)
            else:
                self.send_simple(404)
        except BadOption as error:
            if self.status:
                raise  # too late for a 400 (cannot happen: options come first)
            self.retry_after = None
            self.send_simple(400, message=str(error) + "\n")
        except BaseException:
            self.close_connection = True  # the response may be half sent
            raise
        finally:
            self.server.write_log({
                "ts": self.arrived,
                "end": time.time(),
                "method": self.command,
                "path": path,
                "query": options,
                "id": options.get("id"),
                "headers": self.request_headers(),
                "status": self.status,
                "bytes": self.sent,
            })

    def request_headers(self):
        headers = {}
        for name, value in self.headers.items():
            name = name.lower()
            headers[name] = headers[name] + ", " + value if name in headers else value
        return headers

    def start_response(self, status, headers):
        """Sends the status line and headers (a Date is added unless given)."""
        self.send_response_only(status)
        self.send_header("Server", self.server_version)
        if not any(name == "Date" for name, _ in headers):
            self.send_header("Date", http_date(time.time()))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.status = status

    def write(self, data):
        """Sends data on the socket, counting the bytes that went out."""
        view = memoryview(data)
        while view:
            n = self.connection.send(view)
            self.sent += n
            view = view[n:]

    def retry_after_header(self, option):
        """The Retry-After value retryafter=N or retryafter=date:N asks for."""
        if not option:
            return None
        if option.startswith("date:"):
            delay = int_option({"retryafter": option[5:]}, "retryafter", signed=True)
            return http_date(time.time() + delay)
        return option

    def send_simple(self, status, headers=(), message=None, retry_after=False):
        """A status with a tiny text body (none for 1xx, 204 and 304), and the
        Retry-After of retryafter= when retry_after is true."""
        headers = list(headers)
        if retry_after and self.retry_after is not None:
            headers.append(("Retry-After", self.retry_after))
        if status < 200 or status in (204, 304):
            self.start_response(status, headers)
            return
        if message is None:
            message = "fault-origin: %d %s\n" % (status, self.responses.get(status, ("",))[0])
        body = message.encode()
        self.start_response(status, headers + [
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Content-Length", str(len(body))),
        ])
        if self.command != "HEAD":
            self.write(body)

    # --- routes -------------------------------------------------------------

    def serve_redirect(self, options):
        target = options.get("to")
        if not target:
            raise BadOption("/redirect needs ?to=URL")
        self.send_simple(302, [("Location", target)])

    def serve_nothing(self):
        """Sends nothing at all, then closes the connection."""
        self.wait_for_hangup(STALL_LIMIT)
        self.close_connection = True

    def serve_status(self, status, options):
        if not 100 <= status <= 599:
            raise BadOption("/status/%d: expected 100-599" % status)
        self.send_simple(status, retry_after=True)

def main():
    parser = argparse.ArgumentParser(description="A test HTTP origin that injects faults on demand.")
    parser.add_argument("--root", required=True, help="folder whose files are served under /files/")
    parser.add_argument("--port", required=True, type=int, help="port on 127.0.0.1")
    parser.add_argument("--log", required=True, help="file the JSON request lines are appended to")
    args = parser.parse_args()
    if not os.path.isdir(args.root):
        parser.error("--root %s is not a folder" % args.root)
    try:
        server = FaultOrigin(("127.0.0.1", args.port), args.root, args.log)
    except OSError as error:
        print("fault-origin: cannot listen on 127.0.0.1:%d: %s" % (args.port, error), file=sys.stderr)
        return 1
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
