// The overview (#/): the queue's counters and pause switch, live charts of
// its depth by state and its throughput, and the batches with progress,
// rate, time left and a cancel button each.
"use strict";

const DEPTH_SERIES = [
  { key: "queued", label: "queued", color: "--series-1", dash: [] },
  { key: "active", label: "active", color: "--series-2", dash: [7, 4] },
  { key: "delayed", label: "delayed", color: "--series-3", dash: [2, 3] },
  { key: "dead", label: "dead", color: "--series-4", dash: [10, 3, 2, 3] },
  { key: "intake", label: "intake", color: "--series-5", dash: [1, 6] },
];
const JOB_SERIES = [
  { key: "completed", label: "completed/s", color: "--series-1", dash: [] },
  { key: "failed", label: "failed/s", color: "--series-4", dash: [7, 4] },
];
const BYTE_SERIES = [{ key: "bytes", label: "bytes/s", color: "--series-2", dash: [] }];
const QUEUE_COUNTS = ["queued", "active", "delayed", "dead", "intake", "workers"];

// A progress bar for a batch: data-percent is ended/total, rounded down.
function progressBar() {
  return el("div", { class: "progress", role: "progressbar", "aria-valuemin": 0, "aria-valuemax": 100,
                     dataset: { testid: "progress", percent: "0" } },
            el("div", { class: "progress-fill" }), el("span", { class: "progress-text" }, "0%"));
}

function updateProgress(bar, batch) {
  const ended = endedJobs(batch);
  const total = batch.total || 0;
  const percent = total > 0 ? Math.floor((100 * ended) / total) : 0;
  bar.dataset.percent = String(percent);
  bar.setAttribute("aria-valuenow", String(percent));
  bar.setAttribute("aria-valuetext", `${percent}%: ${ended} of ${total} jobs ended`);
  bar.firstChild.style.width = `${percent}%`;
  bar.lastChild.textContent = `${percent}% · ${Format.number(ended)}/${Format.number(total)}`;
}

// "running", "finished" or "cancelled": said in words, not only in colour.
function batchStatus(batch) {
  if (batch.cancelledAt) return "cancelled";
  return batch.isFinished ? "finished" : "running";
}

function chartFigure(testid, title, description) {
  return el("figure", { class: "chart", dataset: { testid } },
            el("figcaption", {}, title),
            el("canvas", { class: "plot", role: "img", "aria-label": description }),
            el("ul", { class: "legend", "aria-label": `${title}: now` }));
}

const OverviewView = {
  mount(main) {
    const counts = new Map();
    const countList = el("dl", { class: "counts" }, QUEUE_COUNTS.map((name) => {
      const value = el("dd", { dataset: { testid: `count-${name}` } }, "–");
      counts.set(name, value);
      return el("div", {}, el("dt", {}, name), value);
    }));
    const paused = el("strong", { class: "badge", dataset: { testid: "paused-badge" }, hidden: true }, "paused");
    const pause = el("button", { type: "button", dataset: { testid: "pause-queue" }, onclick: () => QueueActions.pause() },
                     "Pause queue");
    const resume = el("button", { type: "button", dataset: { testid: "resume-queue" }, hidden: true,
                                  onclick: () => QueueActions.resume() }, "Resume queue");
    const depthFigure = chartFigure("depth-chart", "Queue depth by state",
                                    "Jobs queued, active, delayed, dead and intake documents over the last 15 minutes");
    const jobsFigure = chartFigure("throughput-chart", "Throughput: jobs per second",
                                   "Jobs completed and failed per second over the last 15 minutes");
    const bytesFigure = chartFigure("bytes-chart", "Throughput: bytes per second",
                                    "Bytes stored per second over the last 15 minutes");
    const depthChart = new LineChart(depthFigure, DEPTH_SERIES, Format.number);
    const jobsChart = new LineChart(jobsFigure, JOB_SERIES, Format.rate);
    const bytesChart = new LineChart(bytesFigure, BYTE_SERIES, Format.bytes);
    const tbody = el("tbody", {});
    const empty = el("p", { class: "empty", dataset: { testid: "batches-empty" } }, "No batches yet.");
    const shown = el("span", { dataset: { testid: "batches-count" } }, "");
    const goTo = el("form", { class: "inline-form" },
                    el("label", { for: "batch-go" }, "Open a batch"),
                    el("input", { id: "batch-go", name: "batch", required: true, maxlength: 128,
                                  pattern: "[A-Za-z0-9._\\-]{1,128}", spellcheck: "false", autocomplete: "off" }),
                    el("button", { type: "submit" }, "Open"));
    goTo.addEventListener("submit", (event) => {
      event.preventDefault();
      location.hash = `#/batch/${encodeURIComponent(goTo.elements.batch.value.trim())}`;
    });

    main.append(
      el("section", { class: "panel", "aria-labelledby": "queue-heading" },
         el("div", { class: "panel-head" },
            el("h2", { id: "queue-heading" }, "Queue ", el("code", { dataset: { testid: "queue-name" } }, Api.queue), " ", paused),
            el("div", { class: "actions" }, pause, resume)),
         countList),
      el("div", { class: "charts" }, depthFigure, jobsFigure, bytesFigure),
      el("section", { class: "panel", "aria-labelledby": "batches-heading" },
         el("div", { class: "panel-head" }, el("h2", { id: "batches-heading" }, "Batches ", shown), goTo),
         el("div", { class: "table-scroll" },
            el("table", { class: "batches", dataset: { testid: "batches" } },
               el("caption", { class: "visually-hidden" }, "Batches, most recent first"),
               el("thead", {}, el("tr", {}, ["Batch", "Status", "Progress", "Completed", "Failed", "Dead", "Cancelled",
                                              "Pending", "Rate", "Time left", "Priority", ""].map((title) =>
                 el("th", { scope: "col" }, title)))),
               tbody)),
         empty));

    const rows = new Map();
    return {
      summary(summary) {
        const queue = summary.queue || {};
        for (const [name, node] of counts) node.textContent = Format.number(queue[name]);
        paused.hidden = !queue.isPaused;
        pause.hidden = !!queue.isPaused;
        resume.hidden = !queue.isPaused;

        const now = Date.now() / 1000;
        depthChart.update(State.depth, now - WINDOW_SECONDS, now);
        const { samples, start, end } = throughputSamples();
        jobsChart.update(samples, start, end);
        bytesChart.update(samples, start, end);
        let totalJobs = 0;
        let totalBytes = 0;
        for (const sample of samples) { totalJobs += sample.jobs; totalBytes += sample.bytes; }
        const newest = State.throughput.get(State.newestSecond);
        Object.assign(jobsFigure.dataset, {
          points: String(State.throughput.size), lastSecond: String(State.newestSecond),
          lastJobs: String(newest ? newest.completed + newest.failed : 0),
          totalJobs: String(totalJobs), totalBytes: String(totalBytes), updates: String(State.summaries),
        });

        const batches = (summary.batches && summary.batches.batches) || [];
        const order = [];
        for (const batch of batches) {
          let row = rows.get(batch.id);
          if (!row) {
            row = BatchRow.make(batch.id);
            rows.set(batch.id, row);
          }
          BatchRow.update(row, batch);
          order.push(row.tr);
        }
        for (const [id, row] of rows) {
          if (!batches.some((batch) => batch.id === id)) { row.tr.remove(); rows.delete(id); }
        }
        const current = Array.from(tbody.children);
        if (current.length !== order.length || current.some((tr, index) => tr !== order[index])) tbody.append(...order);
        empty.hidden = batches.length > 0;
        shown.textContent = batches.length ? `(${batches.length} most recent${summary.batches.next ? "; older ones not shown" : ""})` : "";
      },
    };
  },
};

// One row of the batches table, updated in place so that its buttons stay put.
const BatchRow = {
  make(id) {
    const cells = {};
    const cell = (name, attributes) => (cells[name] = el("td", attributes || { class: "n" }));
    const progress = progressBar();
    const cancel = el("button", { type: "button", class: "danger small", dataset: { testid: "cancel-batch", batch: id },
                                  onclick: () => BatchActions.cancel(id) }, "Cancel");
    const tr = el("tr", { dataset: { testid: "batch-row", batch: id } },
                  el("th", { scope: "row" }, el("a", { href: `#/batch/${encodeURIComponent(id)}`, dataset: { testid: "batch-link" } }, id)),
                  cell("status", { dataset: { testid: "batch-status" } }), el("td", {}, progress),
                  cell("completed"), cell("failed"), cell("dead"), cell("cancelled"), cell("pending"),
                  cell("rate"), cell("eta"), cell("priority", {}), el("td", {}, cancel));
    return { tr, cells, progress, cancel };
  },
  update(row, batch) {
    const status = batchStatus(batch);
    row.tr.dataset.status = status;
    row.cells.status.textContent = status;
    updateProgress(row.progress, batch);
    for (const name of ["completed", "failed", "dead", "cancelled", "pending"]) {
      row.cells[name].textContent = Format.number(batch[name]);
    }
    const pace = batchPace(batch);
    row.cells.rate.textContent = status === "running" ? Format.perSecond(pace.rate) : "–";
    row.cells.eta.textContent = status === "running" ? Format.duration(pace.eta) : "–";
    row.cells.priority.textContent = batch.priority || "–";
    row.cancel.hidden = status !== "running";
  },
};

// pause and resume, behind the confirmation modal.
const QueueActions = {
  pause() {
    return confirmedAction("Pause the queue?", `Workers stop claiming jobs of queue "${Api.queue}"; running jobs finish.`,
                           "Pause", () => Api.request("POST", "/pause"), () => `Queue "${Api.queue}" paused.`);
  },
  resume() {
    return confirmedAction("Resume the queue?", `Workers claim jobs of queue "${Api.queue}" again.`,
                           "Resume", () => Api.request("POST", "/resume"), () => `Queue "${Api.queue}" resumed.`);
  },
};

Object.assign(window, { OverviewView, BatchRow, QueueActions, progressBar, updateProgress, batchStatus });
