// The dashboard's state and router: one summary stream per queue feeds the
// state (throughput by second, depth samples, batch rates) and the view on
// screen; hash routes pick the view (#/, #/batch/ID, #/workers, #/dead).
"use strict";

const WINDOW_SECONDS = 900;
const RATE_WINDOW_MS = 30000;
const QUEUE_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

const State = {
  summary: null,
  throughput: new Map(),
  newestSecond: 0,
  depth: [],
  rates: new Map(),
  summaries: 0,
};

// Jobs of a batch that have ended, whichever way.
function endedJobs(batch) {
  return (batch.completed || 0) + (batch.failed || 0) + (batch.cancelled || 0) + (batch.dead || 0);
}

// A batch's completion rate (jobs/s) over the last summaries, and the time
// left at that rate; nil values when not measurable yet.
function batchPace(batch) {
  const samples = State.rates.get(batch.id) || [];
  if (samples.length < 2) return { rate: NaN, eta: NaN };
  const first = samples[0];
  const last = samples[samples.length - 1];
  const seconds = (last.at - first.at) / 1000;
  if (seconds < 1.5) return { rate: NaN, eta: NaN };
  const rate = (last.ended - first.ended) / seconds;
  const pending = Math.max(0, (batch.total || 0) - endedJobs(batch));
  return { rate, eta: pending === 0 ? 0 : rate > 0 ? pending / rate : NaN };
}

// Folds one summary event into the state.
function absorb(summary) {
  State.summary = summary;
  State.summaries += 1;
  const points = (summary.throughput && summary.throughput.points) || [];
  for (const point of points) {
    // A second sent again (it was still counting) replaces the earlier copy.
    State.throughput.set(point.second, point);
    State.newestSecond = Math.max(State.newestSecond, point.second);
  }
  const end = windowEnd();
  for (const second of State.throughput.keys()) {
    if (second <= end - WINDOW_SECONDS) State.throughput.delete(second);
  }
  const queue = summary.queue || {};
  const now = Date.now() / 1000;
  State.depth.push({ t: now, queued: queue.queued, active: queue.active, delayed: queue.delayed,
                     dead: queue.dead, intake: queue.intake });
  while (State.depth.length && State.depth[0].t < now - WINDOW_SECONDS) State.depth.shift();

  const at = performance.now();
  const seen = new Set();
  for (const batch of (summary.batches && summary.batches.batches) || []) {
    seen.add(batch.id);
    const samples = State.rates.get(batch.id) || [];
    samples.push({ at, ended: endedJobs(batch) });
    while (samples.length > 2 && samples[0].at < at - RATE_WINDOW_MS) samples.shift();
    State.rates.set(batch.id, samples);
  }
  for (const id of State.rates.keys()) if (!seen.has(id)) State.rates.delete(id);
}

// The throughput window's last second: the server's newest point, or this
// browser's clock before any point arrived.
function windowEnd() {
  return State.newestSecond || Math.floor(Date.now() / 1000);
}

// One sample per second of the window (missing seconds are zero).
function throughputSamples() {
  const end = windowEnd();
  const samples = [];
  for (let second = end - WINDOW_SECONDS + 1; second <= end; second += 1) {
    const point = State.throughput.get(second);
    const completed = point ? point.completed : 0;
    const failed = point ? point.failed : 0;
    samples.push({ t: second, completed, failed, jobs: completed + failed, bytes: point ? point.bytes : 0 });
  }
  return { samples, start: end - WINDOW_SECONDS + 1, end };
}

const App = {
  view: null,
  stream: null,

  start() {
    TokenPrompt.init();
    Confirm.init();
    const requested = new URLSearchParams(location.search).get("queue");
    if (requested && !QUEUE_PATTERN.test(requested)) {
      Notice.show(`"${requested}" is not a queue name (letters, digits, . _ -; at most 64): showing "default".`, "error");
    }
    Api.queue = requested && QUEUE_PATTERN.test(requested) ? requested : "default";
    document.title = `Warmer · ${Api.queue}`;
    $("#queue-input").value = Api.queue;
    $("#queue-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const queue = $("#queue-input").value.trim();
      if (!QUEUE_PATTERN.test(queue)) {
        Notice.show("A queue name is 1 to 64 letters, digits, dots, underscores or dashes.", "error");
        return;
      }
      location.assign(`?queue=${encodeURIComponent(queue)}${location.hash}`);
    });
    $("#token-button").addEventListener("click", () => {
      TokenPrompt.ask("Enter a read token, or an admin token to change things.").catch(() => {});
    });
    window.addEventListener("hashchange", () => this.route());
    // Light and dark have their own chart colours: draw the view again.
    matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => this.route());
    this.route();
    this.connect();
  },

  connect() {
    this.stream = new LiveStream(Api.path(`/summary?batches=50`), {
      // Each summary is whole: a new stream starts with the last 15 minutes again.
      resume: false,
      headers: () => Api.headers(),
      authorize: () => Api.authorize(),
      onEvent: (event) => {
        if (event.type !== "summary") return;
        let summary;
        try { summary = JSON.parse(event.data); } catch (error) { return; }
        absorb(summary);
        if (this.view && this.view.summary) this.view.summary(summary);
      },
      // Refusals (HTTP 503: too many streams…) show in the header's state.
      onStatus: (state, detail) => this.connection(state, detail),
    }).start();
  },

  connection(state, detail) {
    const label = {
      connecting: "connecting…", open: "live", retrying: `disconnected: ${detail}`,
      unauthorized: "needs a token", ended: "ended", closed: "closed",
    }[state] || state;
    const node = $("#connection");
    node.textContent = label;
    node.dataset.state = state;
  },

  route() {
    const hash = location.hash || "#/";
    const batch = hash.match(/^#\/batch\/(.+)$/);
    let view = OverviewView;
    let argument;
    let name = "overview";
    if (batch) {
      view = BatchView;
      argument = decodeURIComponent(batch[1]);
      name = "batch";
    } else if (hash === "#/workers") {
      view = WorkersView;
      name = "workers";
    } else if (hash === "#/dead") {
      view = DeadView;
      name = "dead";
    }
    if (this.view && this.view.unmount) this.view.unmount();
    const main = $("#view");
    main.replaceChildren();
    main.dataset.view = name;
    for (const link of document.querySelectorAll("nav a")) {
      if (link.dataset.route === name) link.setAttribute("aria-current", "page");
      else link.removeAttribute("aria-current");
    }
    this.view = view.mount(main, argument);
    if (State.summary && this.view.summary) this.view.summary(State.summary);
  },
};

Object.assign(window, { State, App, endedJobs, batchPace, throughputSamples, WINDOW_SECONDS });
document.addEventListener("DOMContentLoaded", () => App.start());
