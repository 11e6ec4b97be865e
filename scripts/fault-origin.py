#!/usr/bin/env python3
"""A test HTTP origin that injects the faults nginx cannot produce on demand.

    fault-origin.py --root DIR --port PORT --log FILE

Serves the files of DIR (the folder the nginx origin serves) on 127.0.0.1:PORT
over HTTP/1.1 with keep-alive. Python 3.7+ standard library only; started by
`start_fault_origin` in scripts/services.sh.

Each request picks its behaviour with query parameters, so tests need no
control calls and concurrent tests never see each other's settings. Values are
percent-decoded; a "+" stays a plus (write a space as %20).

  GET|HEAD /files/NAME?OPTIONS   DIR/NAME, or 404 when there is no such file
  GET|HEAD /redirect?to=URL      302 with Location: URL
  GET|HEAD /status/CODE          that status, with a tiny text body
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
import email.utils
import hashlib
import json
import os
import re
import select
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

# The types an image origin needs, as in the nginx origin's config.
CONTENT_TYPES = {
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".png": "image/png",
    ".webp": "image/webp",
    ".gif": "image/gif",
    ".avif": "image/avif",
    ".heic": "image/heic",
    ".txt": "text/plain",
    ".html": "text/html",
    ".json": "application/json",
}

STALL_LIMIT = 120.0  # seconds a stalled response keeps its connection open
WRITE_SIZE = 64 * 1024  # body bytes per write when not rate-limited
IDLE_TIMEOUT = 300  # seconds an idle keep-alive connection is kept


class BadOption(Exception):
    """A query option with a value this server does not understand (400)."""


def parse_query(query):
    """The query string as a dict (the last value wins for a repeated name).

    Unlike form decoding, "+" is left alone, so expires=+60 works as typed.
    """
    options = {}
    for part in query.split("&"):
        if part:
            name, _, value = part.partition("=")
            options[unquote(name)] = unquote(value)
    return options


def http_date(timestamp):
    """An IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT."""
    return email.utils.formatdate(timestamp, usegmt=True)


def parse_http_date(value):
    """Seconds since the epoch of an HTTP-date, or None when it is not one."""
    try:
        parsed = email.utils.parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if parsed is None or parsed.tzinfo is None:
        return None
    return parsed.timestamp()


def int_option(options, name, default=None, minimum=0, signed=False):
    """options[name] as an int (a leading + or - only when signed)."""
    value = options.get(name)
    if value is None or value == "":
        return default
    pattern = r"[+-]?\d+" if signed else r"\d+"
    if not re.fullmatch(pattern, value):
        raise BadOption("%s=%s: expected %s" % (name, value, "a signed integer" if signed else "an integer"))
    number = int(value)
    if not signed and number < minimum:
        raise BadOption("%s=%s: must be at least %d" % (name, value, minimum))
    return number


def status_list(options):
    """fail=503,500 as [503, 500]."""
    value = options.get("fail")
    if not value:
        return []
    statuses = []
    for item in value.split(","):
        item = item.strip()
        if not re.fullmatch(r"\d{3}", item) or not 100 <= int(item) <= 599:
            raise BadOption("fail=%s: expected a list of statuses like 503,500" % value)
        statuses.append(int(item))
    return statuses


def entity_tags(header):
    """The entity tags of an If-None-Match list, e.g. ['"a"', 'W/"b"'].

    A quoted tag may contain commas, so this matches tags, not split on commas.
    """
    return [m.group(0) for m in re.finditer(r'(?:W/)?"[^"]*"', header)]


def opaque(tag):
    """An entity tag without its weakness indicator (for weak comparison)."""
    return tag[2:] if tag.startswith("W/") else tag


def parse_range(header, size):
    """A Range header against a body of size bytes.

    Returns (first, last) inclusive, "unsatisfiable" (416), or None when the
    header is to be ignored (a full 200): other units, several ranges, bad
    syntax.
    """
    match = re.fullmatch(r"\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*", header)
    if not match:
        return None
    first, last = match.groups()
    if first == "" and last == "":
        return None
    if first == "":  # bytes=-N: the last N bytes
        suffix = int(last)
        if suffix == 0 or size == 0:
            return "unsatisfiable"
        return (max(0, size - suffix), size - 1)
    start = int(first)
    if last != "" and int(last) < start:
        return None  # invalid: ignore it, as RFC 9110 says
    if start >= size:
        return "unsatisfiable"
    end = size - 1 if last == "" else min(int(last), size - 1)
    return (start, end)


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


class Handler(BaseHTTPRequestHandler):
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

    def serve_status(self, status, options):
        if not 100 <= status <= 599:
            raise BadOption("/status/%d: expected 100-599" % status)
        self.send_simple(status, retry_after=True)

    def serve_file(self, name, options):
        # Check every option before anything is counted or sent.
        request_id = options.get("id") or None
        failures = status_list(options)
        cut = int_option(options, "cut")
        cut_count = int_option(options, "cutcount", default=1)
        rate = int_option(options, "rate", minimum=1)
        stall = int_option(options, "stall")
        date_offset = int_option(options, "date", default=0, signed=True)
        if (failures or cut is not None) and request_id is None:
            raise BadOption("fail= and cut= need id=ID (they count requests per ID)")
        ranges = options.get("ranges", "bytes")
        if ranges not in ("bytes", "ignore", "none"):
            raise BadOption("ranges=%s: expected ignore or none" % ranges)
        lm = options.get("lm", "none")
        if lm not in ("auto", "none"):
            raise BadOption("lm=%s: expected auto or none" % lm)

        # fail=: the k-th request for this ID gets the k-th status.
        if request_id is not None:
            k = self.server.count(request_id, "requests")
            if k < len(failures):
                self.send_simple(failures[k], retry_after=True)
                return

        path = os.path.realpath(os.path.join(self.server.root, name))
        if not path.startswith(self.server.root + os.sep) or not os.path.isfile(path):
            self.send_simple(404)
            return
        with open(path, "rb") as file:
            mtime = os.fstat(file.fileno()).st_mtime
            data = file.read()

        # The headers every 200, 206 and 304 for these options carry.
        now = time.time()
        etag = self.etag(options.get("etag", "none"), data)
        last_modified = http_date(int(mtime)) if lm == "auto" else None
        meta = [("Date", http_date(now + date_offset))]
        if etag:
            meta.append(("ETag", etag))
        if last_modified:
            meta.append(("Last-Modified", last_modified))
        if "cc" in options:
            meta.append(("Cache-Control", options["cc"]))
        if "expires" in options:
            expires = options["expires"]
            if re.fullmatch(r"[+-]\d+", expires):
                expires = http_date(now + int(expires))
            meta.append(("Expires", expires))
        if "vary" in options:
            meta.append(("Vary", options["vary"]))
        if "age" in options:
            meta.append(("Age", options["age"]))

        # Conditional requests: If-None-Match wins over If-Modified-Since.
        if_none_match = self.headers.get("If-None-Match")
        if_modified_since = self.headers.get("If-Modified-Since")
        if if_none_match is not None:
            if if_none_match.strip() == "*" or (
                etag and any(opaque(tag) == opaque(etag) for tag in entity_tags(if_none_match))
            ):
                self.start_response(304, meta)
                return
        elif if_modified_since is not None and last_modified:
            since = parse_http_date(if_modified_since)
            if since is not None and int(mtime) <= since:
                self.start_response(304, meta)
                return

        # Ranges.
        headers = meta + [("Content-Type", CONTENT_TYPES.get(os.path.splitext(name)[1].lower(), "application/octet-stream"))]
        if ranges != "none":
            headers.append(("Accept-Ranges", "bytes"))
        status, body = 200, data
        range_header = self.headers.get("Range")
        if range_header is not None and ranges == "bytes" and self.if_range_matches(etag, last_modified):
            selected = parse_range(range_header, len(data))
            if selected == "unsatisfiable":
                self.send_simple(416, meta + [("Content-Range", "bytes */%d" % len(data))])
                return
            if selected is not None:
                first, last = selected
                status, body = 206, data[first:last + 1]
                headers.append(("Content-Range", "bytes %d-%d/%d" % (first, last, len(data))))

        chunked = options.get("chunked") in ("1", "true", "yes")
        if chunked:
            headers.append(("Transfer-Encoding", "chunked"))
        else:
            headers.append(("Content-Length", str(len(body))))
        if self.command == "HEAD":
            self.start_response(status, headers)
            return

        # cut=: only responses with a body use up one of the cuts.
        cut_here = None
        if cut is not None and self.server.count(request_id, "bodies") < cut_count:
            cut_here = cut
        self.start_response(status, headers)
        self.send_body(body, chunked=chunked, rate=rate, cut=cut_here, stall=stall)

    def etag(self, option, data):
        if option in ("", "none"):
            return None
        if option in ("auto", "weak"):
            tag = '"sha1-%s"' % hashlib.sha1(data).hexdigest()[:16]
            return "W/" + tag if option == "weak" else tag
        if option.startswith('"') or option.startswith('W/"'):
            return option
        return '"%s"' % option

    def if_range_matches(self, etag, last_modified):
        """Whether a Range may be honoured: no If-Range, or one that matches."""
        if_range = self.headers.get("If-Range")
        if if_range is None:
            return True
        if_range = if_range.strip()
        if if_range.startswith('"') or if_range.startswith("W/"):
            # Strong comparison: weak tags never match.
            return bool(etag) and not etag.startswith("W/") and if_range == etag
        if not last_modified:
            return False
        since = parse_http_date(if_range)
        return since is not None and since == parse_http_date(last_modified)

    # --- bodies -------------------------------------------------------------

    def send_body(self, body, chunked, rate, cut, stall):
        """Sends body, then ends the response, or cuts or stalls it."""
        limit, ending = len(body), "complete"
        if cut is not None and cut < limit:
            limit, ending = cut, "cut"
        if stall is not None and stall < limit:
            limit, ending = stall, "stall"

        # With rate=, write small pieces, each when it is due.
        step = WRITE_SIZE if not rate else max(1, min(WRITE_SIZE, rate // 20))
        started = time.monotonic()
        offset = 0
        while offset < limit:
            if rate:
                delay = started + offset / rate - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            piece = body[offset:min(limit, offset + step)]
            if chunked:
                self.connection.sendall(b"%x\r\n" % len(piece))
                self.write(piece)
                self.connection.sendall(b"\r\n")
            else:
                self.write(piece)
            offset += len(piece)

        if ending == "complete":
            if chunked:
                self.connection.sendall(b"0\r\n\r\n")
            return
        if ending == "stall":
            self.wait_for_hangup(STALL_LIMIT)
        # Cut (or a stall that ran out): close the connection mid-body. The
        # client sees the end of the stream before the promised length.
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def wait_for_hangup(self, seconds):
        """Sleeps until the client closes the connection or seconds pass."""
        deadline = time.monotonic() + seconds
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            readable, _, _ = select.select([self.connection], [], [], min(1.0, remaining))
            if readable:
                try:
                    if not self.connection.recv(1, socket.MSG_PEEK):
                        return  # the client closed its end
                except OSError:
                    return  # reset
                # The client sent something (a pipelined request): not a
                # hangup. Keep waiting without spinning on it.
                time.sleep(min(1.0, max(0.0, deadline - time.monotonic())))


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
