// The workers (#/workers: busy slots and running jobs, from the summary) and
// the dead letters (#/dead: retry and purge, by selection or all).
"use strict";

const WorkersView = {
  mount(main) {
    const tbody = el("tbody", {});
    const empty = el("p", { class: "empty", dataset: { testid: "workers-empty" } }, "No live workers.");
    const count = el("span", { dataset: { testid: "workers-count" } }, "");
    main.append(el("section", { class: "panel", "aria-labelledby": "workers-heading" },
      el("h2", { id: "workers-heading" }, "Workers ", count),
      el("div", { class: "table-scroll" },
         el("table", { dataset: { testid: "workers" } },
            el("thead", {}, el("tr", {}, ["Worker", "Version", "Busy slots", "Running jobs", "Heartbeat", "Started"].map((title) =>
              el("th", { scope: "col" }, title)))),
            tbody)),
      empty));
    return {
      summary(summary) {
        const workers = summary.workers || [];
        count.textContent = `(${workers.length})`;
        empty.hidden = workers.length > 0;
        tbody.replaceChildren(...workers.map((worker) => {
          const busy = el("div", { class: "progress", role: "meter", "aria-valuemin": 0, "aria-valuemax": worker.concurrency,
                                   "aria-valuenow": worker.busy, dataset: { testid: "worker-busy", busy: worker.busy } },
                          el("div", { class: "progress-fill" }),
                          el("span", { class: "progress-text" }, `${worker.busy} of ${worker.concurrency}`));
          busy.firstChild.style.width = `${worker.concurrency ? Math.round((100 * worker.busy) / worker.concurrency) : 0}%`;
          return el("tr", { dataset: { testid: "worker-row", worker: worker.id } },
            el("th", { scope: "row" }, el("code", {}, worker.id)), el("td", {}, worker.version),
            el("td", {}, busy),
            el("td", { dataset: { testid: "worker-jobs" } }, worker.jobs.length ? worker.jobs.join(", ") : "none"),
            el("td", {}, `${(worker.heartbeatAgeMs / 1000).toFixed(1)} s ago`), el("td", {}, Format.time(worker.startedAt)));
        }));
      },
    };
  },
};

const DeadView = {
  mount(main) {
    const tbody = el("tbody", {});
    const count = el("p", { dataset: { testid: "dead-count", loaded: "false" } }, "Loading…");
    const empty = el("p", { class: "empty", dataset: { testid: "dead-empty" }, hidden: true }, "No dead letters.");
    const selectAll = el("input", { type: "checkbox", "aria-label": "Select every dead letter shown", dataset: { testid: "dead-select-all" } });
    const selected = () => Array.from(tbody.querySelectorAll("input[type=checkbox]:checked")).map((box) => box.value);
    const button = (testid, label, action, klass) => el("button", { type: "button", class: klass, dataset: { testid }, onclick: action }, label);
    const needSelection = (action) => () => {
      const ids = selected();
      if (ids.length === 0) { Notice.show("Select dead letters first.", "info"); return; }
      action(ids);
    };
    const done = (verb) => (result) => `${verb} ${result.count} dead letters.`;
    const retry = (ids) => confirmedAction("Retry dead letters?", `${ids.length} dead letters run again.`, "Retry",
                                           () => Api.request("POST", "/dead", { ids }), done("Retried")).then(load);
    const purge = (ids) => confirmedAction("Purge dead letters?", `${ids.length} dead letters are deleted for good.`, "Purge",
                                           () => Api.request("DELETE", `/dead?${ids.map((id) => `id=${encodeURIComponent(id)}`).join("&")}`),
                                           done("Purged")).then(load);
    const retryAll = () => confirmedAction("Retry every dead letter?", `Every dead letter of queue "${Api.queue}" runs again.`, "Retry all",
                                           () => Api.request("POST", "/dead", { all: true }), done("Retried")).then(load);
    const purgeAll = () => confirmedAction("Purge every dead letter?", `Every dead letter of queue "${Api.queue}" is deleted for good.`,
                                           "Purge all", () => Api.request("DELETE", "/dead?all=true"), done("Purged")).then(load);
    selectAll.addEventListener("change", () => {
      for (const box of tbody.querySelectorAll("input[type=checkbox]")) box.checked = selectAll.checked;
    });

    main.append(el("section", { class: "panel", "aria-labelledby": "dead-heading" },
      el("div", { class: "panel-head" }, el("h2", { id: "dead-heading" }, "Dead letters"),
         el("div", { class: "actions" },
            button("dead-refresh", "Refresh", () => load()),
            button("dead-retry-selected", "Retry selected", needSelection(retry)),
            button("dead-purge-selected", "Purge selected", needSelection(purge), "danger"),
            button("dead-retry-all", "Retry all", retryAll),
            button("dead-purge-all", "Purge all", purgeAll, "danger"))),
      count,
      el("div", { class: "table-scroll" },
         el("table", { dataset: { testid: "dead-letters" } },
            el("thead", {}, el("tr", {}, el("th", { scope: "col" }, selectAll),
                                ["Id", "Kind", "Error", "Reason", "URL", "Batches", "When"].map((title) => el("th", { scope: "col" }, title)))),
            tbody)),
      empty));

    let alive = true;
    let lastDead = null;
    async function load() {
      try {
        const page = await Api.request("GET", "/dead?limit=100");
        if (!alive || !page) return;
        const letters = page.deadLetters || [];
        count.textContent = `${Format.number(page.count)} dead letters${page.count > letters.length ? ` (newest ${letters.length} shown)` : ""}.`;
        count.dataset.count = String(page.count);
        count.dataset.loaded = "true";
        empty.hidden = letters.length > 0;
        // A reload keeps what was selected.
        const keep = new Set(selected());
        selectAll.checked = false;
        tbody.replaceChildren(...letters.map((letter) => el("tr", { dataset: { testid: "dead-row", id: letter.id } },
          el("td", {}, el("input", { type: "checkbox", value: letter.id, checked: keep.has(letter.id),
                                         "aria-label": `Select ${letter.id}` })),
          el("td", {}, letter.id), el("td", {}, letter.kind), el("td", {}, el("code", {}, letter.error || "")),
          el("td", {}, letter.message || ""), el("td", { class: "url" }, letter.url || ""),
          el("td", {}, (letter.batches || []).map((batch) => el("a", { href: `#/batch/${encodeURIComponent(batch)}` }, batch, " "))),
          el("td", {}, Format.time(letter.deadLetteredAt)))));
      } catch (error) {
        if (alive) Notice.error(error);
      }
    }
    const loadLater = throttle(load, 2000);
    load();
    return {
      // A change of the queue's dead count reloads the list (at most every 2 s).
      summary(summary) {
        const dead = summary.queue && summary.queue.dead;
        if (lastDead !== null && dead !== lastDead) loadLater();
        lastDead = dead;
      },
      unmount() { alive = false; },
    };
  },
};

Object.assign(window, { WorkersView, DeadView });
