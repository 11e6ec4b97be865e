// A batch's page (#/batch/ID): its counters, the live tail of its events
// (the last TAIL_LINES in the page, drawn once per animation frame however
// fast they come), its failed jobs with their reasons, cancel and priority.
"use strict";

const TAIL_LINES = 200;
const PRIORITIES = ["veryLow", "low", "normal", "high", "veryHigh"];
const BATCH_FIELDS = ["total", "completed", "failed", "dead", "cancelled", "pending"];

// cancel and reprioritise, behind the confirmation modal and the admin token.
const BatchActions = {
  cancel(id) {
    return confirmedAction("Cancel this batch?",
                           `Batch "${id}" is cancelled: its jobs that have not ended stop. Work another batch still needs goes on.`,
                           "Cancel batch", () => Api.request("DELETE", `/batches/${encodeURIComponent(id)}`),
                           (result) => `Batch "${id}" cancelled: ${result.cancelledJobs} jobs, ${result.abortedRunningJobs} of them running.`);
  },
  priority(id, priority) {
    return confirmedAction("Change the priority?", `The jobs of batch "${id}" that have not ended get priority ${priority}.`,
                           "Change priority", () => Api.request("PATCH", `/batches/${encodeURIComponent(id)}`, { priority }),
                           (result) => `Batch "${id}": ${result.changedJobs} jobs now at priority ${priority}.`);
  },
};

// One event as a line of text: what happened, to which job, and why.
function eventLine(type, data) {
  const parts = [];
  if (data.job) parts.push(`job ${data.job}`);
  switch (type) {
    case "progress": parts.push(`${Format.bytes(data.bytes)}${data.total ? ` of ${Format.bytes(data.total)}` : ""}`); break;
    case "completed": parts.push(`${Format.bytes(data.bytes)} from ${data.source || "?"}`); break;
    case "retrying": case "delayed": parts.push(`${data.error || ""}: ${data.message || ""} (again in ${Format.duration((data.retry_in_ms || 0) / 1000)})`); break;
    case "failed": case "deadLettered": parts.push(`${data.error || ""}: ${data.message || ""}`); break;
    case "stalled": parts.push(`lease expired (${data.stalls} times)`); break;
    case "batchCompleted": parts.push(`completed ${data.completed}, failed ${data.failed}, dead ${data.dead}, cancelled ${data.cancelled} of ${data.total}`); break;
    case "controlApplied": parts.push(`${data.op || ""}`); break;
    default: break;
  }
  if (data.url && type !== "batchCompleted") parts.push(data.url);
  return parts.join(" · ");
}

const BatchView = {
  mount(main, id) {
    const counts = new Map();
    const countList = el("dl", { class: "counts" }, BATCH_FIELDS.map((name) => {
      const value = el("dd", { dataset: { testid: `batch-${name}` } }, "–");
      counts.set(name, value);
      return el("div", {}, el("dt", {}, name), value);
    }), ["rate", "time left"].map((name) => {
      const value = el("dd", { dataset: { testid: `batch-${name.replace(" ", "-")}` } }, "–");
      counts.set(name, value);
      return el("div", {}, el("dt", {}, name), value);
    }));
    const details = el("p", { class: "details", dataset: { testid: "batch-details" } }, "");
    const status = el("strong", { class: "badge", dataset: { testid: "batch-status" } }, "loading");
    const progress = progressBar();
    const cancel = el("button", { type: "button", class: "danger", dataset: { testid: "cancel-batch", batch: id },
                                  onclick: () => BatchActions.cancel(id).then(() => refresh()) }, "Cancel batch");
    const select = el("select", { id: "priority-select", dataset: { testid: "priority-select" } },
                      PRIORITIES.map((name) => el("option", { value: name, selected: name === "normal" }, name)));
    const setPriority = el("button", { type: "button", dataset: { testid: "priority-batch", batch: id },
                                       onclick: () => BatchActions.priority(id, select.value).then(() => refresh()) }, "Set priority");
    const streamState = el("span", { dataset: { testid: "event-stream-state" } }, "connecting…");
    const eventCount = el("span", { dataset: { testid: "event-count", count: "0" } }, "0 events");
    const tail = el("ol", { class: "tail", dataset: { testid: "event-tail" }, tabindex: 0, "aria-label": "Latest events" });
    const failureBody = el("tbody", {});
    const failureNote = el("p", { class: "empty", dataset: { testid: "failures-empty" } }, "No failed jobs.");

    main.append(
      el("p", {}, el("a", { href: "#/" }, "← All batches")),
      el("section", { class: "panel", "aria-labelledby": "batch-heading" },
         el("div", { class: "panel-head" },
            el("h2", { id: "batch-heading" }, "Batch ", el("code", { dataset: { testid: "batch-id" } }, id), " ", status),
            el("div", { class: "actions" }, el("label", { for: "priority-select" }, "Priority"), select, setPriority, cancel)),
         progress, countList, details),
      el("section", { class: "panel", "aria-labelledby": "events-heading" },
         el("div", { class: "panel-head" }, el("h2", { id: "events-heading" }, "Events"),
            el("p", { class: "muted" }, eventCount, " · stream ", streamState)),
         tail),
      el("section", { class: "panel", "aria-labelledby": "failures-heading" },
         el("h2", { id: "failures-heading" }, "Failed jobs"),
         el("div", { class: "table-scroll" },
            el("table", { dataset: { testid: "failures" } },
               el("thead", {}, el("tr", {}, ["Job", "State", "Error", "Reason", "URL", "When"].map((title) =>
                 el("th", { scope: "col" }, title)))),
               failureBody)),
         failureNote));

    let batch = null;
    let completed = false;
    let alive = true;
    const show = (next) => {
      batch = next;
      const state = batchStatus(batch);
      status.textContent = state;
      main.dataset.status = state;
      updateProgress(progress, batch);
      for (const name of BATCH_FIELDS) counts.get(name).textContent = Format.number(batch[name]);
      const pace = batchPace(batch);
      counts.get("rate").textContent = state === "running" ? Format.perSecond(pace.rate) : "–";
      counts.get("time left").textContent = state === "running" ? Format.duration(pace.eta) : "–";
      details.textContent = [
        batch.priority && `priority ${batch.priority}`, batch.destination && `destination ${batch.destination}`,
        batch.processing && `processing ${batch.processing}`, batch.createdAt && `created ${Format.time(batch.createdAt)}`,
        batch.finishedAt && `finished ${Format.time(batch.finishedAt)}`, batch.cancelledAt && `cancelled ${Format.time(batch.cancelledAt)}`,
      ].filter(Boolean).join(" · ");
      cancel.hidden = state !== "running";
      if (batch.priority && PRIORITIES.includes(batch.priority) && document.activeElement !== select) select.value = batch.priority;
    };
    const refresh = async () => {
      try {
        const next = await Api.request("GET", `/batches/${encodeURIComponent(id)}`);
        if (alive && next) show(next);
      } catch (error) {
        if (!alive) return;
        if (error.status === 404) status.textContent = "not found";
        Notice.error(error);
      }
    };
    const refreshLater = throttle(refresh, 2000);

    const loadFailures = async () => {
      try {
        const failures = await Api.request("GET", `/batches/${encodeURIComponent(id)}/failures?limit=100`);
        if (!alive) return;
        failureBody.replaceChildren(...(failures || []).map((failure) => el("tr", { dataset: { testid: "failure-row", job: failure.job } },
          el("td", {}, failure.job), el("td", {}, failure.state), el("td", {}, el("code", {}, failure.error || "")),
          el("td", {}, failure.message || ""), el("td", { class: "url" }, failure.url || ""), el("td", {}, Format.time(failure.at)))));
        failureNote.hidden = (failures || []).length > 0;
      } catch (error) {
        if (alive && error.status !== 404) Notice.error(error);
      }
    };
    const loadFailuresLater = throttle(loadFailures, 2000);

    // Events wait here until the next frame; only the last TAIL_LINES are drawn.
    let pending = [];
    let total = 0;
    const byType = new Map();
    const draw = () => {
      const stick = tail.scrollTop + tail.clientHeight >= tail.scrollHeight - 8;
      const fragment = document.createDocumentFragment();
      for (const { type, text, id: eventId } of pending.slice(-TAIL_LINES)) {
        let data;
        try { data = JSON.parse(text); } catch (error) { data = {}; }
        const time = Number.isFinite(data.ts) ? new Date(data.ts).toISOString().slice(11, 23) : "";
        fragment.append(el("li", { dataset: { type, id: eventId } }, el("time", {}, time), " ",
                           el("span", { class: "event-type" }, type), " ", eventLine(type, data)));
      }
      pending = [];
      tail.append(fragment);
      while (tail.childElementCount > TAIL_LINES) tail.firstElementChild.remove();
      if (stick) tail.scrollTop = tail.scrollHeight;
      eventCount.dataset.count = String(total);
      eventCount.textContent = `${Format.number(total)} events (${Array.from(byType, ([type, n]) => `${type} ${Format.number(n)}`).join(", ")})`;
    };
    const stream = new LiveStream(Api.path(`/batches/${encodeURIComponent(id)}/events`), {
      headers: () => Api.headers(),
      authorize: () => Api.authorize(),
      shouldReconnect: () => !completed,
      // The event's type is its `event:` field: the JSON is parsed only for
      // the lines drawn (a fast batch sends thousands of events a second).
      onEvent: (event) => {
        const type = event.type;
        total += 1;
        byType.set(type, (byType.get(type) || 0) + 1);
        pending.push({ type, text: event.data, id: event.id });
        if (pending.length > 4 * TAIL_LINES) pending = pending.slice(-TAIL_LINES);
        if (type === "failed" || type === "deadLettered") loadFailuresLater();
        if (type === "batchCompleted" || type === "cancelled") refreshLater();
        if (type === "batchCompleted") completed = true;
        Frame.request(tail, draw);
      },
      onStatus: (state, detail) => {
        const words = { open: "live", ended: completed ? "ended: the batch completed" : "ended", retrying: `disconnected: ${detail}` };
        streamState.textContent = words[state] || state;
        streamState.dataset.state = state;
      },
      onHTTPError: (response) => {
        if (response.status === 404) stream.close();
      },
    }).start();

    refresh();
    loadFailures();
    return {
      summary(summary) {
        const listed = ((summary.batches && summary.batches.batches) || []).find((item) => item.id === id);
        if (listed) show(listed);
        else refreshLater();
      },
      unmount() {
        alive = false;
        stream.close();
      },
    };
  },
};

Object.assign(window, { BatchView, BatchActions, eventLine });
