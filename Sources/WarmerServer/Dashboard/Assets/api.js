// The HTTP API as the dashboard calls it: the bearer token (sessionStorage),
// JSON requests with RFC 9457 problems turned into errors, the token prompt,
// the confirmation modal, notices, a per-frame scheduler and formatting.
"use strict";

const TOKEN_KEY = "warmer.token";

// A refused or failed request: status 0 when the server did not answer.
class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const $ = (selector, root) => (root || document).querySelector(selector);

// Creates an element: el("td", {class: "n", dataset: {testid: "x"}}, "text", child…).
function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "dataset") Object.assign(node.dataset, value);
    else if (name === "onclick") node.addEventListener("click", value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// The token dialog. ask() opens it and resolves when a token is entered
// (rejects when dismissed); changed() resolves at the next token entered.
const TokenPrompt = {
  asking: [],
  watching: [],
  init() {
    const dialog = $("#token-dialog");
    $("#token-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const token = $("#token-input").value.trim();
      if (!token) return;
      try { sessionStorage.setItem(TOKEN_KEY, token); } catch (error) { Api.memoryToken = token; }
      Api.memoryToken = token;
      $("#token-input").value = "";
      dialog.close();
      const waiting = this.asking.concat(this.watching);
      this.asking = [];
      this.watching = [];
      waiting.forEach((waiter) => waiter.resolve());
    });
    $("#token-dismiss").addEventListener("click", () => dialog.close());
    dialog.addEventListener("close", () => {
      const asking = this.asking;
      this.asking = [];
      asking.forEach((waiter) => waiter.reject(new ApiError(401, "unauthorized", "A token is needed.")));
    });
  },
  ask(reason) {
    $("#token-reason").textContent = reason;
    const dialog = $("#token-dialog");
    if (!dialog.open) dialog.showModal();
    $("#token-input").focus();
    return new Promise((resolve, reject) => this.asking.push({ resolve, reject }));
  },
  changed() {
    return new Promise((resolve) => this.watching.push({ resolve }));
  },
};

const Api = {
  queue: "default",
  memoryToken: "",
  token() {
    try { return sessionStorage.getItem(TOKEN_KEY) || this.memoryToken; } catch (error) { return this.memoryToken; }
  },
  headers() {
    const token = this.token();
    return token ? { Authorization: `Bearer ${token}` } : {};
  },
  path(rest) {
    return `/v1/queues/${encodeURIComponent(this.queue)}${rest}`;
  },
  // Awaited by a stream refused with 401: the prompt, or the next token.
  async authorize() {
    try {
      await TokenPrompt.ask("This server needs a token to read the queue.");
    } catch (error) {
      await TokenPrompt.changed();
    }
  },
  // Sends a request and returns its JSON (null for an empty body). A 401
  // asks for a token and tries again; a 403 is "needs an admin token".
  async request(method, rest, body) {
    for (;;) {
      const headers = Object.assign({ Accept: "application/json" }, this.headers());
      const init = { method, headers, cache: "no-store" };
      if (body !== undefined) {
        headers["Content-Type"] = "application/json";
        init.body = JSON.stringify(body);
      }
      let response;
      try {
        response = await fetch(this.path(rest), init);
      } catch (error) {
        throw new ApiError(0, "unreachable", `The server did not answer (${error.message}).`);
      }
      if (response.status === 401) {
        await TokenPrompt.ask(method === "GET" ? "This server needs a token." : "This action needs an admin token.");
        continue;
      }
      const text = await response.text();
      let json = null;
      try { json = text ? JSON.parse(text) : null; } catch (error) { json = null; }
      if (response.status === 403) throw new ApiError(403, "forbidden", "This needs an admin token.");
      if (!response.ok) {
        const detail = json && (json.detail || json.title);
        throw new ApiError(response.status, (json && json.code) || "", detail || `HTTP ${response.status}`);
      }
      return json;
    }
  },
};

// The confirmation modal: ask(text, label) resolves true on Confirm.
const Confirm = {
  pending: null,
  init() {
    const dialog = $("#confirm-dialog");
    $("#confirm-ok").addEventListener("click", () => this.finish(true));
    $("#confirm-dismiss").addEventListener("click", () => this.finish(false));
    dialog.addEventListener("close", () => this.finish(false));
  },
  ask(title, text, label) {
    if (this.pending) this.finish(false);
    $("#confirm-title").textContent = title;
    $("#confirm-text").textContent = text;
    $("#confirm-ok").textContent = label;
    $("#confirm-dialog").showModal();
    $("#confirm-dismiss").focus();
    return new Promise((resolve) => { this.pending = resolve; });
  },
  finish(answer) {
    const pending = this.pending;
    this.pending = null;
    const dialog = $("#confirm-dialog");
    if (dialog.open) dialog.close();
    if (pending) pending(answer);
  },
};

// Runs an admin action behind the modal, reports the outcome as a notice.
async function confirmedAction(title, text, label, action, describe) {
  if (!(await Confirm.ask(title, text, label))) return null;
  try {
    const result = await action();
    Notice.show(describe(result), "ok");
    return result;
  } catch (error) {
    Notice.error(error);
    return null;
  }
}

// One line of feedback under the header (role=status: read out).
const Notice = {
  show(text, kind) {
    const notice = $("#notice");
    notice.replaceChildren(el("span", { class: "notice-text" }, text),
                           el("button", { type: "button", class: "link notice-close", "aria-label": "Dismiss",
                                          onclick: () => { notice.hidden = true; } }, "Dismiss"));
    notice.dataset.kind = kind || "info";
    notice.hidden = false;
  },
  error(error) {
    if (error instanceof ApiError && error.status === 403) {
      this.show("Refused: needs an admin token.", "error");
      $("#notice .notice-close").before(" ", el("button", { type: "button", class: "link", onclick: () => {
        TokenPrompt.ask("Enter an admin token.").catch(() => {});
      } }, "Use another token"));
      return;
    }
    this.show(error.message || String(error), "error");
  },
};

// Coalesces drawing: request(key, fn) runs fn once in the next animation frame.
const Frame = {
  tasks: new Map(),
  scheduled: false,
  request(key, task) {
    this.tasks.set(key, task);
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => {
      this.scheduled = false;
      const tasks = this.tasks;
      this.tasks = new Map();
      for (const run of tasks.values()) {
        try { run(); } catch (error) { console.error(error); }
      }
    });
  },
};

// Calls fn at most once per interval, the last call winning (trailing edge).
function throttle(fn, intervalMs) {
  let last = 0;
  let timer = null;
  return () => {
    const wait = last + intervalMs - Date.now();
    if (timer) return;
    if (wait <= 0) {
      last = Date.now();
      fn();
      return;
    }
    timer = setTimeout(() => {
      timer = null;
      last = Date.now();
      fn();
    }, wait);
  };
}

const Format = {
  number(value) {
    return Number.isFinite(value) ? Math.round(value).toLocaleString("en") : "–";
  },
  rate(value) {
    if (!Number.isFinite(value)) return "–";
    return value >= 10 ? Math.round(value).toLocaleString("en") : value.toFixed(1);
  },
  perSecond(value) {
    return Number.isFinite(value) ? `${this.rate(value)}/s` : "–";
  },
  bytes(value) {
    if (!Number.isFinite(value)) return "–";
    const units = ["B", "KB", "MB", "GB", "TB"];
    let index = 0;
    while (value >= 1000 && index < units.length - 1) { value /= 1000; index += 1; }
    return `${index === 0 ? Math.round(value) : value.toFixed(1)} ${units[index]}`;
  },
  duration(seconds) {
    if (!Number.isFinite(seconds) || seconds < 0) return "–";
    if (seconds < 60) return `${Math.ceil(seconds)} s`;
    if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
    return `${Math.floor(seconds / 3600)} h ${Math.round((seconds % 3600) / 60)} min`;
  },
  time(ms) {
    if (!Number.isFinite(ms)) return "–";
    return new Date(ms).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
  },
};

Object.assign(window, { ApiError, Api, TokenPrompt, Confirm, Notice, Frame, Format, throttle, confirmedAction, el, $ });
