// Server-Sent Events over fetch(): EventSource cannot send an Authorization
// header, so the dashboard reads text/event-stream itself. The parser follows
// the HTML standard's rules (event, data, id and retry fields; lines starting
// with ":" are comments; a blank line dispatches), and a dropped stream is
// reopened with Last-Event-ID after a backoff.
"use strict";

// Parses a text/event-stream body fed in chunks of text; calls
// onEvent({type, data, id}) for each complete event.
class EventStreamParser {
  constructor(onEvent, onRetry) {
    this.onEvent = onEvent;
    this.onRetry = onRetry || (() => {});
    this.buffer = "";
    this.data = [];
    this.type = "";
    this.lastEventId = "";
  }

  feed(text) {
    this.buffer += text;
    let start = 0;
    const buffer = this.buffer;
    // The next CR is looked up again only once passed: servers rarely send
    // any, and searching the whole buffer at each line would be quadratic.
    let cr = buffer.indexOf("\r");
    for (;;) {
      const lf = buffer.indexOf("\n", start);
      if (cr !== -1 && cr < start) cr = buffer.indexOf("\r", start);
      let end = lf;
      if (cr !== -1 && (lf === -1 || cr < lf)) end = cr;
      if (end === -1) break;
      // A CR at the very end may be the first half of a CRLF: wait for more.
      if (end === cr && cr === buffer.length - 1) break;
      const line = buffer.slice(start, end);
      start = end + (end === cr && buffer[cr + 1] === "\n" ? 2 : 1);
      this.line(line);
    }
    this.buffer = buffer.slice(start);
  }

  line(line) {
    if (line === "") return this.dispatch();
    if (line[0] === ":") return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value[0] === " ") value = value.slice(1);
    switch (field) {
      case "event": this.type = value; break;
      case "data": this.data.push(value); break;
      case "id": if (!value.includes("\0")) this.lastEventId = value; break;
      case "retry": if (/^[0-9]+$/.test(value)) this.onRetry(Number(value)); break;
      default: break;
    }
  }

  dispatch() {
    const type = this.type || "message";
    const data = this.data.join("\n");
    const hadData = this.data.length > 0;
    this.data = [];
    this.type = "";
    if (hadData) this.onEvent({ type, data, id: this.lastEventId });
  }
}

// One live stream: opens url with fetch, parses events, and reopens it after
// a drop with Last-Event-ID, backing off 0.5 s, 1 s, 2 s… up to 15 s.
// Options: onEvent(event), onStatus(state, detail) with state one of
// "connecting", "open", "retrying", "ended", "unauthorized", "closed";
// headers() for extra headers (the bearer token); shouldReconnect() asked
// when the server ends the stream (default: reconnect); authorize() awaited
// after a 401 before trying again; resume: false to reopen from "now" rather
// than after the last event (a stream of snapshots).
class LiveStream {
  constructor(url, options) {
    this.url = url;
    this.options = options;
    this.lastEventId = "";
    this.controller = null;
    this.closed = false;
    this.failures = 0;
    this.retryMs = null;
    this.problem = "";
  }

  start() {
    this.run();
    return this;
  }

  close() {
    this.closed = true;
    if (this.controller) this.controller.abort();
    this.status("closed");
  }

  status(state, detail) {
    if (this.options.onStatus) this.options.onStatus(state, detail || "");
  }

  async run() {
    while (!this.closed) {
      const outcome = await this.once();
      if (this.closed) return;
      if (outcome === "ended" && this.options.shouldReconnect && !this.options.shouldReconnect()) {
        this.status("ended");
        return;
      }
      if (outcome === "unauthorized") {
        this.status("unauthorized");
        if (this.options.authorize) await this.options.authorize();
        continue;
      }
      // Reset by every event received: a stream that keeps dropping backs off.
      this.failures += 1;
      const delay = this.backoff();
      const why = this.problem ? `${this.problem}; ` : "";
      this.problem = "";
      this.status("retrying", `${why}reconnecting in ${Math.round(delay / 100) / 10} s`);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  backoff() {
    if (this.retryMs !== null && this.failures <= 1) return this.retryMs;
    const base = Math.min(15000, 500 * 2 ** Math.max(0, this.failures - 1));
    return base / 2 + Math.random() * base / 2;
  }

  // One connection: resolves "ended" (the server closed the stream),
  // "failed" (network error or bad status) or "unauthorized" (401).
  async once() {
    this.controller = new AbortController();
    const headers = Object.assign({ Accept: "text/event-stream" }, this.options.headers ? this.options.headers() : {});
    if (this.lastEventId && this.options.resume !== false) headers["Last-Event-ID"] = this.lastEventId;
    this.status("connecting");
    let response;
    try {
      response = await fetch(this.url, { headers, cache: "no-store", signal: this.controller.signal });
    } catch (error) {
      this.problem = "no answer";
      return this.closed ? "ended" : "failed";
    }
    if (response.status === 401) return "unauthorized";
    if (!response.ok || !response.body) {
      this.problem = `HTTP ${response.status}`;
      if (this.options.onHTTPError) this.options.onHTTPError(response);
      return "failed";
    }
    this.status("open");
    // A stream that says nothing, not even a keep-alive comment (every 15 s),
    // for idleMs is taken for dead: a half-open connection never errors.
    let heard = Date.now();
    const idleMs = this.options.idleMs || 45000;
    const watchdog = setInterval(() => {
      if (Date.now() - heard > idleMs) this.controller.abort();
    }, Math.min(idleMs, 5000));
    const parser = new EventStreamParser((event) => {
      this.failures = 0;
      if (event.id) this.lastEventId = event.id;
      this.options.onEvent(event);
    }, (ms) => { this.retryMs = ms; });
    parser.lastEventId = this.lastEventId;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return "ended";
        heard = Date.now();
        parser.feed(value);
      }
    } catch (error) {
      this.problem = Date.now() - heard > idleMs ? `silent for ${idleMs / 1000} s` : "connection lost";
      return "failed";
    } finally {
      clearInterval(watchdog);
    }
  }
}

window.EventStreamParser = EventStreamParser;
window.LiveStream = LiveStream;
