// Suite console: a small single-page app over the /v1 API (docs/api.md, "The console's routes").
// Plain JavaScript, no framework, no build step, nothing loaded from elsewhere.
"use strict";

(function () {
  // ---------------------------------------------------------------------------------------------------------------
  // DOM helpers

  /// An element: h("a", {href: "#/x", class: "y", onclick: fn, dataset: {path}}, "text", child, [children]).
  /// Text always goes in as text nodes: data is never parsed as HTML.
  function h(tag, attrs, ...children) {
    const node = document.createElement(tag);
    let value;
    let hasValue = false;
    for (const [key, item] of Object.entries(attrs || {})) {
      if (item === undefined || item === null || item === false) continue;
      if (key === "value") {
        value = item;
        hasValue = true;
      } else if (key === "class") {
        node.className = item;
      } else if (key === "dataset") {
        for (const [name, data] of Object.entries(item)) {
          if (data !== undefined && data !== null) node.dataset[name] = String(data);
        }
      } else if (key === "checked") {
        node.checked = Boolean(item);
      } else if (key.startsWith("on") && typeof item === "function") {
        node.addEventListener(key.slice(2), item);
      } else {
        node.setAttribute(key, item === true ? "" : String(item));
      }
    }
    append(node, children);
    if (hasValue) node.value = String(value);
    return node;
  }

  function append(node, children) {
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function replace(node, ...children) {
    node.replaceChildren();
    return append(node, children);
  }

  function $(id) {
    return document.getElementById(id);
  }

  /// A table cell holding a number (right-aligned).
  function numCell(text, attrs) {
    return h("td", Object.assign({}, attrs, { class: ["num", attrs && attrs.class].filter(Boolean).join(" ") }), text);
  }

  function tableWrap(table, label) {
    // The wrapper scrolls horizontally on narrow screens; focusable so keyboard users can scroll it too.
    return h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": label }, table);
  }

  function headRow(columns) {
    return h(
      "thead",
      {},
      h(
        "tr",
        {},
        columns.map((column) =>
          typeof column === "string"
            ? h("th", { scope: "col" }, column)
            : h("th", { scope: "col", class: column.num ? "num" : null }, column.label)
        )
      )
    );
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Formatting

  function plural(count, one, many) {
    return `${count} ${count === 1 ? one : many || one + "s"}`;
  }

  function stripZero(text) {
    return text.replace(/\.0$/, "");
  }

  /// Bytes, 1024-based: "512 B", "1.5 MB".
  function formatBytes(value) {
    const number = Number(value) || 0;
    if (Math.abs(number) < 1024) return `${number} B`;
    const units = ["KB", "MB", "GB", "TB", "PB", "EB"];
    let scaled = number / 1024;
    let unit = 0;
    while (Math.abs(scaled) >= 1024 && unit < units.length - 1) {
      scaled /= 1024;
      unit += 1;
    }
    const text = Math.abs(scaled) >= 100 ? String(Math.round(scaled)) : stripZero(scaled.toFixed(1));
    return `${text} ${units[unit]}`;
  }

  /// A count, short: 950, "3.4k", "1.2M".
  function formatCount(value) {
    const number = Number(value) || 0;
    const size = Math.abs(number);
    if (size < 1000) return String(number);
    if (size < 1e6) return stripZero((number / 1e3).toFixed(size < 1e4 ? 1 : 0)) + "k";
    if (size < 1e9) return stripZero((number / 1e6).toFixed(size < 1e7 ? 1 : 0)) + "M";
    return stripZero((number / 1e9).toFixed(1)) + "B";
  }

  /// Seconds as "7h 30m", "45m", "0m"; negative with a leading "-".
  function formatDuration(seconds, signed) {
    const value = Number(seconds) || 0;
    const sign = value < 0 ? "-" : signed && value > 0 ? "+" : "";
    let minutes = Math.round(Math.abs(value) / 60);
    const hours = Math.floor(minutes / 60);
    minutes %= 60;
    return hours > 0 ? `${sign}${hours}h ${minutes}m` : `${sign}${minutes}m`;
  }

  /// A cost with 4 to 6 decimals, currency-neutral.
  function formatCost(value) {
    if (!Number.isFinite(value)) return "—";
    return value.toFixed(6).replace(/(\.\d{4}\d*?)0+$/, "$1");
  }

  function pad(number) {
    return String(number).padStart(2, "0");
  }

  function localDate(date) {
    return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  }

  function localMonth(date) {
    return `${date.getFullYear()}-${pad(date.getMonth() + 1)}`;
  }

  /// An ISO time as local "2026-11-24 14:03" (the raw text when it does not parse).
  function formatDateTime(text) {
    if (text === undefined || text === null || text === "") return "";
    const date = new Date(text);
    if (Number.isNaN(date.getTime())) return String(text);
    return `${localDate(date)} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
  }

  /// An ISO time's clock time in `zone` (the report's), "08:05".
  function formatClock(text, zone) {
    if (!text) return "";
    const date = new Date(text);
    if (Number.isNaN(date.getTime())) return String(text);
    try {
      return new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", timeZone: zone || undefined }).format(date);
    } catch (error) {
      return `${pad(date.getHours())}:${pad(date.getMinutes())}`;
    }
  }

  function timeElement(text) {
    if (!text) return "";
    return h("time", { datetime: text, title: String(text) }, formatDateTime(text));
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Paths and routes

  function segments(path) {
    return String(path || "")
      .split("/")
      .filter((segment) => segment !== "");
  }

  /// A path for a URL: each segment percent-encoded, slashes kept.
  function encodePath(path) {
    return segments(path).map(encodeURIComponent).join("/");
  }

  function decodeSegment(segment) {
    try {
      return decodeURIComponent(segment);
    } catch (error) {
      return segment;
    }
  }

  function lastSegment(path) {
    const parts = segments(path);
    return parts[parts.length - 1] || "";
  }

  /// The collection a document is in ("users/ana/orders/o1" → "users/ana/orders").
  function parentPath(path) {
    return segments(path).slice(0, -1).join("/");
  }

  function isDocumentPath(path) {
    const count = segments(path).length;
    return count > 0 && count % 2 === 0;
  }

  const links = {
    collection: (path) => `#/documents/${encodePath(path)}`,
    document: (path) => `#/doc/${encodePath(path)}`,
    query: (path) => (path ? `#/query/${encodePath(path)}` : "#/query"),
    group: (groupId) => `#/storage/group/${encodeURIComponent(groupId)}`,
    work: (uid, month) => `#/work/${encodeURIComponent(uid)}/${encodeURIComponent(month)}`,
  };

  function parseRoute(hash) {
    let raw = String(hash || "").replace(/^#/, "");
    const queryAt = raw.indexOf("?");
    if (queryAt >= 0) raw = raw.slice(0, queryAt);
    if (!raw.startsWith("/")) return null;
    const parts = raw.slice(1).split("/");
    const head = parts[0];
    const rest = parts.slice(1).filter((part) => part !== "").map(decodeSegment);
    const path = rest.join("/");
    switch (head) {
      case "documents":
      case "doc":
        // The path decides: an odd number of segments is a collection, an even one a document.
        if (!rest.length) return { page: "documents", view: "root" };
        return { page: "documents", view: rest.length % 2 === 1 ? "collection" : "document", path };
      case "query":
        return { page: "documents", view: "query", path };
      case "usage":
        return { page: "usage" };
      case "storage":
        if (rest[0] === "group" && rest.length > 1) return { page: "storage", view: "group", groupId: rest.slice(1).join("/") };
        return { page: "storage", view: "overview" };
      case "analytics":
        return { page: "analytics" };
      case "work":
        return { page: "work", uid: rest[0], month: rest[1] };
      case "system":
        return { page: "system" };
      default:
        return null;
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // The API

  class ApiError extends Error {
    constructor(status, code, message, hint) {
      super(message);
      this.name = "ApiError";
      this.status = status;
      this.code = code;
      this.hint = hint || null;
    }
  }

  /// Calls the API: JSON in and out, the session cookie; an error answer throws an ApiError {status, code, message, hint}.
  async function api(method, path, body) {
    const init = { method, credentials: "same-origin", headers: { Accept: "application/json" }, cache: "no-store" };
    if (method !== "GET" && method !== "HEAD") {
      init.headers["Content-Type"] = "application/json";
      if (body !== undefined) init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, init);
    } catch (error) {
      throw new ApiError(0, "network", "The server cannot be reached.", "Check that `suite serve` is running, then reload.");
    }
    const text = await response.text();
    let json = null;
    if (text) {
      try {
        json = JSON.parse(text);
      } catch (error) {
        json = null;
      }
    }
    if (!response.ok) {
      const detail = (json && json.error) || {};
      const failure = new ApiError(
        response.status,
        detail.code || `http${response.status}`,
        detail.message || `${response.status} ${response.statusText || "error"}`.trim(),
        detail.hint
      );
      if (response.status === 401 && !path.startsWith("/v1/session")) sessionLost(failure);
      throw failure;
    }
    if (json === null && text) {
      throw new ApiError(response.status, "invalidResponse", "The server's answer is not JSON.", null);
    }
    return json;
  }

  function asError(error) {
    if (error instanceof ApiError) return error;
    return new ApiError(0, "clientError", (error && error.message) || String(error), null);
  }

  /// An error as shown everywhere: `.error[data-code]` with `.error-message` and `.error-hint`.
  function errorBox(error, attrs) {
    const failure = asError(error);
    const hint = failure.hint ? String(failure.hint) : "";
    return h(
      "div",
      Object.assign({ class: "error", role: "alert", dataset: { code: failure.code, status: failure.status } }, attrs),
      h("p", { class: "error-message" }, failure.message),
      h("p", { class: "error-hint", hidden: hint ? null : true }, hint)
    );
  }

  function localError(code, message, hint) {
    return new ApiError(0, code, message, hint);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Charts: /console/charts.js (window.SuiteCharts: bars, hbars)

  const Charts = window.SuiteCharts;

  /// The width a chart gets inside `container` (attached to the page).
  function chartWidth(container) {
    const width = container && container.clientWidth;
    return width > 0 ? width : Math.min(window.innerWidth - 40, 1000);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // The confirmation dialog (<dialog id="confirm-dialog">)

  function confirmDialog(text, yesLabel) {
    const dialog = $("confirm-dialog");
    const yes = $("confirm-yes");
    const no = $("confirm-no");
    $("confirm-text").textContent = text;
    yes.textContent = yesLabel || "Delete";
    const opener = document.activeElement;
    return new Promise((resolve) => {
      function finish(answer) {
        yes.removeEventListener("click", onYes);
        no.removeEventListener("click", onNo);
        dialog.removeEventListener("cancel", onCancel);
        if (dialog.open) dialog.close();
        if (opener && opener.isConnected && typeof opener.focus === "function") opener.focus();
        resolve(answer);
      }
      const onYes = () => finish(true);
      const onNo = () => finish(false);
      const onCancel = (event) => {
        event.preventDefault();
        finish(false);
      };
      yes.addEventListener("click", onYes);
      no.addEventListener("click", onNo);
      dialog.addEventListener("cancel", onCancel);
      if (typeof dialog.showModal === "function") dialog.showModal();
      else dialog.setAttribute("open", "");
      no.focus();
    });
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Document values: the tagged JSON of docs/api.md

  function fieldType(value) {
    if (value === null || value === undefined) return "null";
    if (typeof value === "string") return "string";
    if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
    if (typeof value === "boolean") return "boolean";
    if (Array.isArray(value)) return "array";
    if (typeof value === "object") {
      const keys = Object.keys(value);
      if (keys.length === 1) {
        switch (keys[0]) {
          case "$timestamp":
            return "timestamp";
          case "$ref":
            return "reference";
          case "$bytes":
            return "bytes";
          case "$geo":
            return "geopoint";
        }
      }
      return "map";
    }
    return typeof value;
  }

  function base64Length(text) {
    const clean = String(text || "").replace(/[^A-Za-z0-9+/=_-]/g, "");
    const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
    return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
  }

  function truncate(text, length) {
    const value = String(text);
    return value.length > length ? value.slice(0, length - 1) + "…" : value;
  }

  /// A value in a few characters, for list previews.
  function shortValue(value) {
    switch (fieldType(value)) {
      case "string":
        return JSON.stringify(truncate(value, 28));
      case "timestamp":
        return formatDateTime(value.$timestamp);
      case "reference":
        return `→${value.$ref}`;
      case "bytes":
        return `${base64Length(value.$bytes)} bytes`;
      case "geopoint":
        return Array.isArray(value.$geo) ? `(${value.$geo.join(", ")})` : "geopoint";
      case "map":
        return Object.keys(value).length ? "{…}" : "{}";
      case "array":
        return `[${value.length}]`;
      default:
        return String(value);
    }
  }

  function preview(data) {
    if (!data || typeof data !== "object") return "";
    const text = Object.entries(data)
      .map(([key, value]) => `${key}: ${shortValue(value)}`)
      .join(", ");
    return truncate(text, 110);
  }

  /// A field's value for the field table.
  function valueNode(value) {
    switch (fieldType(value)) {
      case "string":
        return h("span", { class: "value-string" }, value);
      case "timestamp":
        return timeElement(value.$timestamp);
      case "reference":
        return typeof value.$ref === "string" && value.$ref
          ? h("a", { href: isDocumentPath(value.$ref) ? links.document(value.$ref) : links.collection(value.$ref) }, value.$ref)
          : h("code", {}, JSON.stringify(value));
      case "bytes":
        return h("span", {}, `${base64Length(value.$bytes)} bytes `, h("code", { class: "muted" }, truncate(value.$bytes, 48)));
      case "geopoint":
        return Array.isArray(value.$geo) ? `${value.$geo[0]}, ${value.$geo[1]}` : h("code", {}, JSON.stringify(value));
      case "map":
      case "array":
        return h("code", { class: "value-json" }, JSON.stringify(value));
      case "null":
        return h("span", { class: "muted" }, "null");
      default:
        return String(value);
    }
  }

  function randomId() {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    const bytes = new Uint8Array(20);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (byte) => alphabet[byte % alphabet.length]).join("");
  }

  // ---------------------------------------------------------------------------------------------------------------
  // State, readiness and navigation

  const page = $("page");
  const state = {
    session: null, // {uid, admin}
    navigation: 0,
    query: { collection: "", group: false, where: "", order: "", limit: "50" },
    usageDays: 30,
    analyticsDays: 30,
    prices: null,
  };

  function setReady(ready) {
    page.dataset.ready = ready ? "true" : "false";
    page.setAttribute("aria-busy", ready ? "false" : "true");
    if (ready && window.suiteConsoleReady === undefined) window.suiteConsoleReady = performance.now();
  }

  /// A navigation's context: whether it is still the current one.
  function newContext() {
    const token = ++state.navigation;
    return { alive: () => token === state.navigation };
  }

  /// Runs a reload inside a page (more rows, another month…): not ready while it runs.
  async function busy(context, work) {
    setReady(false);
    try {
      await work();
    } finally {
      if (context.alive()) setReady(true);
    }
  }

  function markNav(name) {
    for (const link of document.querySelectorAll("#main-nav a[data-page]")) {
      if (link.dataset.page === name) link.setAttribute("aria-current", "page");
      else link.removeAttribute("aria-current");
    }
  }

  const titles = {
    documents: "Documents",
    usage: "Usage and cost",
    storage: "Storage",
    analytics: "Analytics",
    work: "Work",
    system: "System",
    signin: "Sign in",
  };

  function pageHeading(text, sub) {
    return h("div", { class: "page-head" }, h("h1", { tabindex: "-1", id: "page-title" }, text), sub ? h("p", { class: "subtitle" }, sub) : null);
  }

  async function route() {
    if (!state.session) return;
    const parsed = parseRoute(location.hash);
    if (!parsed) {
      history.replaceState(null, "", "/console#/documents");
      return route();
    }
    const context = newContext();
    // Focus goes to the new heading unless it is in the navigation (whose links stay).
    const active = document.activeElement;
    const moveFocus = !active || active === document.body || page.contains(active);
    page.dataset.page = parsed.page;
    setReady(false);
    markNav(parsed.page);
    document.title = `${titles[parsed.page] || "Suite"} · Suite console`;
    const liveView = parsed.page === "documents" && (parsed.view === "collection" || parsed.view === "document");
    if (!liveView) live.stop();
    live.handler = null;
    live.refreshApply = null;
    const root = h("div", { class: "page-body" });
    replace(page, root);
    try {
      switch (parsed.page) {
        case "documents":
          if (parsed.view === "collection") await renderCollection(context, root, parsed.path);
          else if (parsed.view === "document") await renderDocument(context, root, parsed.path);
          else if (parsed.view === "query") await renderQueryPage(context, root, parsed.path);
          else await renderCollections(context, root);
          break;
        case "usage":
          await renderUsage(context, root);
          break;
        case "storage":
          if (parsed.view === "group") await renderGroup(context, root, parsed.groupId);
          else await renderStorage(context, root);
          break;
        case "analytics":
          await renderAnalytics(context, root);
          break;
        case "work":
          await renderWork(context, root, parsed.uid, parsed.month);
          break;
        case "system":
          await renderSystem(context, root);
          break;
      }
    } catch (error) {
      if (context.alive()) root.append(errorBox(error));
    }
    if (!context.alive()) return;
    setReady(true);
    if (moveFocus) {
      const heading = $("page-title");
      if (heading) heading.focus({ preventScroll: true });
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Sign-in

  function showAccount() {
    const signedIn = Boolean(state.session);
    $("main-nav").hidden = !signedIn;
    $("account").hidden = !signedIn;
    $("whoami").textContent = signedIn ? (state.session.admin ? `${state.session.uid} (admin)` : state.session.uid) : "";
  }

  let sessionLostShown = false;
  function sessionLost(error) {
    if (!state.session || sessionLostShown) return;
    sessionLostShown = true;
    setTimeout(() => {
      state.session = null;
      showSignIn(error);
    }, 0);
  }

  function showSignIn(error) {
    state.navigation += 1;
    state.session = null;
    live.stop();
    showAccount();
    markNav(null);
    page.dataset.page = "signin";
    document.title = "Sign in · Suite console";
    const input = h("input", {
      id: "token-input",
      type: "password",
      name: "token",
      autocomplete: "off",
      spellcheck: "false",
      "aria-describedby": "token-help",
    });
    const button = h("button", { id: "signin-button", type: "submit" }, "Sign in");
    const errors = h("div", { id: "signin-error", "aria-live": "assertive" }, error ? errorBox(error) : null);
    const form = h(
      "form",
      { id: "signin-form", class: "signin-form", novalidate: true },
      h("label", { for: "token-input" }, "Bearer token or sign-in token"),
      input,
      h(
        "p",
        { id: "token-help", class: "help" },
        "Open the link `suite serve` prints, or get one with `suite users signin UID`; a bearer token from `suite users add UID` works too."
      ),
      h("div", { class: "buttons" }, button),
      errors
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const value = input.value.trim();
      replace(errors);
      if (!value) {
        replace(errors, errorBox(localError("invalidRequest", "Enter a token.", "Paste a bearer token or the sign-in token of a console link.")));
        input.focus();
        return;
      }
      button.disabled = true;
      page.dataset.ready = "false";
      try {
        let session;
        try {
          session = await api("POST", "/v1/session", { token: value });
        } catch (first) {
          if (first.status !== 401) throw first;
          try {
            session = await api("POST", "/v1/session", { signIn: value });
          } catch (second) {
            if (second.status !== 401) throw second;
            // Neither kind: the bearer token's answer, and the sign-in token's under it.
            first.also = second;
            throw first;
          }
        }
        input.value = "";
        signedIn(session);
      } catch (failure) {
        const box = errorBox(failure);
        if (failure.also) {
          box.append(
            h(
              "p",
              { class: "error-also" },
              `As a sign-in token: ${failure.also.message}`,
              failure.also.hint ? ` (${failure.also.hint})` : ""
            )
          );
        }
        replace(errors, box);
        button.disabled = false;
        setReady(true);
        input.focus();
      }
    });
    replace(
      page,
      h(
        "section",
        { class: "signin card", "aria-labelledby": "page-title" },
        pageHeading("Sign in", "The console keeps you signed in for 12 hours in this browser."),
        form
      )
    );
    setReady(true);
  }

  function signedIn(session) {
    state.session = { uid: String(session.uid), admin: Boolean(session.admin) };
    sessionLostShown = false;
    showAccount();
    if (!parseRoute(location.hash)) history.replaceState(null, "", "/console#/documents");
    route();
  }

  async function signOut() {
    try {
      await api("DELETE", "/v1/session");
      showSignIn(null);
    } catch (error) {
      showSignIn(error);
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Live changes: one EventSource while a collection or a document is shown

  const live = {
    source: null,
    handler: null,
    sequence: null,
    status: "off",
    log: [],
    retry: null,
    failures: 0,
    refresh: new Set(),
    refreshTimer: null,
    refreshApply: null,

    start() {
      if (this.source || this.retry) return;
      this.open();
    },

    open() {
      this.retry = null;
      const url = this.sequence !== null ? `/v1/changes/stream?since=${encodeURIComponent(this.sequence)}` : "/v1/changes/stream";
      let source;
      try {
        source = new EventSource(url);
      } catch (error) {
        this.setStatus("reconnecting");
        this.scheduleRetry();
        return;
      }
      this.source = source;
      if (this.status === "off") this.setStatus("connecting");
      source.addEventListener("ready", (event) => {
        if (source !== this.source) return;
        const data = safeJSON(event.data);
        if (data && Number.isFinite(Number(data.sequence))) this.sequence = Math.max(this.sequence || 0, Number(data.sequence));
        this.failures = 0;
        this.setStatus("live");
      });
      source.addEventListener("change", (event) => {
        if (source !== this.source) return;
        const change = safeJSON(event.data);
        if (!change || typeof change.path !== "string") return;
        if (Number.isFinite(Number(change.sequence))) this.sequence = Math.max(this.sequence || 0, Number(change.sequence));
        if (this.status !== "live") this.setStatus("live");
        this.record(change);
        if (this.handler) {
          try {
            this.handler(change);
          } catch (error) {
            // A display problem must not stop the stream.
          }
        }
      });
      source.addEventListener("gone", () => {
        if (source !== this.source) return;
        // The log no longer reaches back: start over from now.
        source.close();
        this.source = null;
        this.sequence = null;
        this.setStatus("reconnecting");
        this.scheduleRetry();
      });
      source.addEventListener("error", () => {
        if (source !== this.source) return;
        this.setStatus("reconnecting");
        if (source.readyState === EventSource.CLOSED) {
          this.source = null;
          this.failures += 1;
          if (this.failures >= 3) this.sequence = null;
          this.scheduleRetry();
        }
      });
    },

    scheduleRetry() {
      if (this.retry) return;
      const delay = Math.min(30000, 1000 * Math.pow(2, Math.min(this.failures, 5)));
      this.retry = setTimeout(() => {
        this.retry = null;
        if (state.session && this.status !== "off") this.open();
      }, delay);
    },

    stop() {
      if (this.source) this.source.close();
      this.source = null;
      if (this.retry) clearTimeout(this.retry);
      this.retry = null;
      this.handler = null;
      this.refreshApply = null;
      this.refresh.clear();
      this.log = [];
      this.failures = 0;
      this.sequence = null;
      this.status = "off";
    },

    setStatus(status) {
      this.status = status;
      const element = $("live-status");
      if (element) {
        element.textContent = status;
        element.dataset.status = status;
      }
    },

    record(change) {
      const entry = { time: new Date(), path: change.path, deleted: change.data === undefined || change.data === null };
      this.log.unshift(entry);
      if (this.log.length > 50) this.log.length = 50;
      const list = $("live-log");
      if (list) {
        list.prepend(logItem(entry));
        while (list.children.length > 50) list.lastElementChild.remove();
        const empty = $("live-empty");
        if (empty) empty.hidden = true;
      }
    },
  };

  function safeJSON(text) {
    try {
      return JSON.parse(text);
    } catch (error) {
      return null;
    }
  }

  function logItem(entry) {
    const time = `${pad(entry.time.getHours())}:${pad(entry.time.getMinutes())}:${pad(entry.time.getSeconds())}`;
    return h(
      "li",
      { dataset: { path: entry.path }, class: entry.deleted ? "deleted" : "changed" },
      h("time", { datetime: entry.time.toISOString() }, time),
      " ",
      entry.deleted ? h("span", {}, entry.path) : h("a", { href: links.document(entry.path) }, entry.path),
      " ",
      h("span", { class: "change-kind" }, entry.deleted ? "deleted" : "changed")
    );
  }

  /// The live section of a collection or document view.
  function liveSection() {
    const empty = h("p", { id: "live-empty", class: "muted", hidden: live.log.length ? true : null }, "No changes since this view opened.");
    return h(
      "section",
      { class: "live card", "aria-labelledby": "live-title" },
      h(
        "div",
        { class: "section-head" },
        h("h2", { id: "live-title" }, "Live changes"),
        h("span", { id: "live-status", class: "live-status", role: "status", "aria-live": "polite", dataset: { status: live.status } }, live.status === "off" ? "connecting" : live.status)
      ),
      empty,
      h("ol", { id: "live-log", class: "live-log", role: "log", "aria-live": "polite", "aria-label": "Recent changes" }, live.log.map(logItem))
    );
  }

  /// Opens (or keeps) the stream for a view; `live-status` says "live" once the server's `ready` arrived.
  function startLive(handler) {
    live.handler = handler;
    live.start();
    const element = $("live-status");
    if (element) {
      const shown = live.status === "off" ? "connecting" : live.status;
      element.textContent = shown;
      element.dataset.status = shown;
    }
  }

  /// After a change, reads the changed documents again for their version and update time (a few at a time).
  function refreshLater(paths, apply) {
    for (const path of paths) live.refresh.add(path);
    live.refreshApply = apply;
    if (live.refreshTimer) return;
    live.refreshTimer = setTimeout(async () => {
      live.refreshTimer = null;
      const batch = Array.from(live.refresh).slice(0, 25);
      live.refresh.clear();
      await Promise.all(
        batch.map(async (path) => {
          try {
            const doc = await api("GET", `/v1/docs/${encodePath(path)}`);
            if (live.refreshApply) live.refreshApply(doc);
          } catch (error) {
            // Deleted or no longer readable: the stream tells.
          }
        })
      );
    }, 250);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Documents: collections, a collection, a document, the query

  function breadcrumbs(path) {
    const parts = segments(path);
    const items = [h("li", {}, h("a", { href: "#/documents" }, "Documents"))];
    parts.forEach((part, index) => {
      const prefix = parts.slice(0, index + 1).join("/");
      const href = (index + 1) % 2 === 1 ? links.collection(prefix) : links.document(prefix);
      const last = index === parts.length - 1;
      items.push(h("li", {}, h("a", { href, "aria-current": last ? "location" : null }, part)));
    });
    return h("nav", { class: "breadcrumbs", "aria-label": "Breadcrumb" }, h("ol", {}, items));
  }

  function openPathForm() {
    const input = h("input", { id: "open-path", type: "text", placeholder: "users/ana or users/ana/orders", autocomplete: "off", spellcheck: "false" });
    const form = h(
      "form",
      { class: "inline-form", id: "open-path-form" },
      h("label", { for: "open-path" }, "Open a path"),
      input,
      h("button", { type: "submit", id: "open-path-go" }, "Open")
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const path = segments(input.value.trim()).join("/");
      if (!path) return;
      location.hash = isDocumentPath(path) ? links.document(path) : links.collection(path);
    });
    return form;
  }

  async function renderCollections(context, root) {
    const listSlot = h("div", { id: "collections-slot" }, h("p", { class: "loading" }, "Loading collections…"));
    root.append(
      pageHeading("Documents", "Browse collections, open a document, or run a query."),
      h("section", { class: "card", "aria-labelledby": "collections-title" }, h("h2", { id: "collections-title" }, "Collections"), openPathForm(), listSlot),
      querySection(context, "")
    );
    try {
      const answer = await api("GET", "/v1/collections");
      if (!context.alive()) return;
      const ids = answer.collections || [];
      replace(
        listSlot,
        ids.length
          ? h("ul", { id: "collections", class: "link-list" }, ids.map((id) => h("li", {}, h("a", { href: links.collection(id) }, id))))
          : [h("ul", { id: "collections", class: "link-list" }), h("p", { class: "muted" }, "No collections yet.")]
      );
    } catch (error) {
      if (!context.alive()) return;
      const own = `users/${state.session.uid}`;
      replace(
        listSlot,
        errorBox(error),
        h("p", { class: "own-doc" }, "You can open your own document: ", h("a", { id: "own-doc", href: links.document(own) }, own))
      );
    }
  }

  /// A document table (list or query results): a `tr[data-path]` per document.
  function documentTable(id, caption, showPath) {
    const body = h("tbody", {});
    const table = h(
      "table",
      { id, class: "data-table documents-table" },
      h("caption", { class: "visually-hidden" }, caption),
      headRow([showPath ? "Path" : "ID", { label: "Version", num: true }, "Updated", "Fields"]),
      body
    );
    return { table, body };
  }

  function documentRow(doc, showPath) {
    const path = String(doc.path);
    return h(
      "tr",
      { dataset: { path } },
      h("th", { scope: "row" }, h("a", { href: links.document(path) }, showPath ? path : lastSegment(path))),
      numCell(doc.version === undefined || doc.version === null ? "…" : String(doc.version), { class: "version" }),
      h("td", { class: "updated" }, timeElement(doc.updateTime)),
      h("td", { class: "preview" }, preview(doc.data))
    );
  }

  function findRow(body, path) {
    for (const row of body.rows) if (row.dataset.path === path) return row;
    return null;
  }

  /// Puts a row in path order (replacing the row of the same path).
  function placeRow(body, row) {
    const existing = findRow(body, row.dataset.path);
    if (existing) {
      existing.replaceWith(row);
      return;
    }
    for (const other of body.rows) {
      if (other.dataset.path > row.dataset.path) {
        body.insertBefore(row, other);
        return;
      }
    }
    body.append(row);
  }

  function flash(element) {
    element.classList.remove("flash");
    void element.offsetWidth;
    element.classList.add("flash");
  }

  async function renderCollection(context, root, path) {
    const listState = { next: null };
    const { table, body } = documentTable("doc-list", `Documents of ${path}`, false);
    const count = h("p", { id: "doc-count", class: "muted", "aria-live": "polite" });
    const listError = h("div", { id: "doc-list-error" });
    const more = h("button", { type: "button", id: "doc-more", class: "secondary", hidden: true }, "Load more");
    const updateCount = () => {
      const rows = body.rows.length;
      count.textContent = `${plural(rows, "document")} shown${listState.next ? " · more available" : ""}`;
    };

    root.append(
      breadcrumbs(path),
      pageHeading(lastSegment(path), `Collection ${path}`),
      h("p", { class: "actions" }, h("a", { href: links.query(path), class: "button-link secondary" }, "Query this collection")),
      h("section", { class: "card", "aria-labelledby": "list-title" }, h("h2", { id: "list-title", class: "visually-hidden" }, "Documents"), listError, tableWrap(table, `Documents of ${path}`), count, h("div", { class: "buttons" }, more)),
      newDocumentForm(path),
      liveSection()
    );

    async function loadPage(after) {
      const query = new URLSearchParams({ limit: "50" });
      if (after) query.set("after", after);
      const answer = await api("GET", `/v1/list/${encodePath(path)}?${query}`);
      if (!context.alive()) return;
      for (const doc of answer.documents || []) {
        const row = documentRow(doc, false);
        const existing = findRow(body, row.dataset.path);
        if (existing) existing.replaceWith(row);
        else body.append(row);
      }
      listState.next = answer.next || null;
      more.hidden = !listState.next;
      updateCount();
    }

    more.addEventListener("click", () =>
      busy(context, async () => {
        replace(listError);
        more.disabled = true;
        try {
          await loadPage(listState.next);
        } catch (error) {
          replace(listError, errorBox(error));
        } finally {
          more.disabled = false;
        }
      })
    );

    const onChange = (change) => {
      if (parentPath(change.path) !== path) return;
      const deleted = change.data === undefined || change.data === null;
      const existing = findRow(body, change.path);
      if (deleted) {
        if (existing) existing.remove();
        updateCount();
        return;
      }
      const version = existing ? existing.querySelector(".version").textContent : "…";
      const row = documentRow({ path: change.path, version: existing ? version : null, data: change.data, updateTime: null }, false);
      if (existing) {
        const updated = existing.querySelector(".updated");
        row.replaceChild(updated.cloneNode(true), row.querySelector(".updated"));
      }
      placeRow(body, row);
      flash(row);
      updateCount();
      refreshLater([change.path], (doc) => {
        const current = findRow(body, doc.path);
        if (!current) return;
        replace(current.querySelector(".version"), String(doc.version));
        replace(current.querySelector(".updated"), timeElement(doc.updateTime));
        replace(current.querySelector(".preview"), preview(doc.data));
      });
    };

    startLive(onChange);
    try {
      await loadPage(null);
    } catch (error) {
      if (context.alive()) replace(listError, errorBox(error));
    }
  }

  function newDocumentForm(collectionPath) {
    const idInput = h("input", { id: "new-doc-id", type: "text", autocomplete: "off", spellcheck: "false", placeholder: "blank: a random id" });
    const json = h("textarea", { id: "new-doc-json", rows: "6", spellcheck: "false" });
    json.value = "{\n  \n}";
    const errors = h("div", { id: "new-doc-error" });
    const button = h("button", { type: "submit", id: "new-doc-create" }, "Create");
    const form = h(
      "form",
      { class: "stack-form" },
      h("div", { class: "field" }, h("label", { for: "new-doc-id" }, "Document id"), idInput),
      h("div", { class: "field" }, h("label", { for: "new-doc-json" }, "Data (JSON object; tagged values like {\"$timestamp\": \"…\"})"), json),
      errors,
      h("div", { class: "buttons" }, button)
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      replace(errors);
      let data;
      try {
        data = JSON.parse(json.value);
      } catch (error) {
        replace(errors, errorBox(localError("invalidJSON", `The data is not valid JSON: ${error.message}`, "Fix the JSON, then create again.")));
        return;
      }
      if (!data || typeof data !== "object" || Array.isArray(data)) {
        replace(errors, errorBox(localError("invalidJSON", "The data must be a JSON object.", 'e.g. {"name": "Ana", "points": 10}')));
        return;
      }
      const id = idInput.value.trim() || randomId();
      if (id.includes("/")) {
        replace(errors, errorBox(localError("invalidRequest", "A document id cannot contain '/'.", "Create subcollection documents from their own collection.")));
        return;
      }
      const path = `${collectionPath}/${id}`;
      button.disabled = true;
      try {
        await api("PUT", `/v1/docs/${encodePath(path)}`, { data, precondition: { exists: false } });
        location.hash = links.document(path);
      } catch (error) {
        replace(errors, errorBox(error));
      } finally {
        button.disabled = false;
      }
    });
    return h("details", { class: "card new-doc" }, h("summary", {}, "New document"), form);
  }

  async function renderDocument(context, root, path) {
    // `base` is what the editor started from: saving is conditional on it, so a change made meanwhile answers 409.
    const docState = { doc: null, exists: false, editing: false, base: null };
    const meta = h("p", { id: "doc-meta", class: "muted" });
    const notice = h("div", { id: "doc-notice", "aria-live": "polite" });
    const docError = h("div", { id: "doc-error" });
    const fieldsBody = h("tbody", {});
    const fieldsTable = h(
      "table",
      { id: "doc-fields", class: "data-table fields-table" },
      h("caption", { class: "visually-hidden" }, `Fields of ${path}`),
      headRow(["Field", "Type", "Value"]),
      fieldsBody
    );
    const emptyFields = h("p", { class: "muted", id: "doc-empty", hidden: true }, "No fields.");
    const editButton = h("button", { type: "button", id: "doc-edit" }, "Edit");
    const deleteButton = h("button", { type: "button", id: "doc-delete", class: "danger" }, "Delete");
    const textarea = h("textarea", { id: "doc-json", rows: "14", spellcheck: "false" });
    const editError = h("div", { id: "doc-edit-error" });
    const saveButton = h("button", { type: "button", id: "doc-save" }, "Save");
    const cancelButton = h("button", { type: "button", id: "doc-cancel", class: "secondary" }, "Cancel");
    const editor = h(
      "div",
      { id: "doc-editor", class: "editor", hidden: true },
      h("label", { for: "doc-json" }, "Document data as JSON (tagged values: $timestamp, $ref, $bytes, $geo)"),
      textarea,
      editError,
      h("div", { class: "buttons" }, saveButton, cancelButton)
    );
    const subList = h("ul", { id: "subcollections", class: "link-list" });
    const subNote = h("p", { id: "subcollections-note", class: "muted" }, "Loading…");

    root.append(
      breadcrumbs(path),
      pageHeading(lastSegment(path), `Document ${path}`),
      h(
        "section",
        { class: "card", "aria-labelledby": "fields-title" },
        h("div", { class: "section-head" }, h("h2", { id: "fields-title" }, "Fields"), h("div", { class: "buttons" }, editButton, deleteButton)),
        meta,
        notice,
        docError,
        editor,
        tableWrap(fieldsTable, `Fields of ${path}`),
        emptyFields
      ),
      h("section", { class: "card", "aria-labelledby": "sub-title" }, h("h2", { id: "sub-title" }, "Subcollections"), subList, subNote),
      liveSection()
    );

    function renderFields(data) {
      fieldsBody.replaceChildren();
      const entries = data && typeof data === "object" ? Object.entries(data) : [];
      for (const [name, value] of entries) {
        const type = fieldType(value);
        fieldsBody.append(
          h(
            "tr",
            { dataset: { field: name, type } },
            h("th", { scope: "row" }, name),
            h("td", { class: "field-type" }, h("span", { class: `type type-${type}` }, type)),
            h("td", { class: "field-value" }, valueNode(value))
          )
        );
      }
      emptyFields.hidden = entries.length > 0 || !docState.exists;
    }

    function renderMeta() {
      const doc = docState.doc;
      if (docState.exists && doc) {
        replace(meta, `Version ${doc.version === null || doc.version === undefined ? "…" : doc.version}`, doc.updateTime ? [" · updated ", timeElement(doc.updateTime)] : null);
      } else {
        replace(meta, "This document does not exist.");
      }
      meta.dataset.version = docState.exists && doc && doc.version !== null && doc.version !== undefined ? String(doc.version) : "";
      editButton.textContent = docState.exists ? "Edit" : "Create";
      deleteButton.hidden = !docState.exists;
    }

    function show(doc) {
      docState.doc = doc;
      docState.exists = true;
      replace(docError);
      renderMeta();
      renderFields(doc.data);
    }

    function setEditing(editing) {
      docState.editing = editing;
      editor.hidden = !editing;
      editButton.disabled = editing;
      replace(editError);
      if (editing) {
        docState.base = docState.exists && docState.doc ? { version: docState.doc.version } : { exists: false };
        textarea.value = JSON.stringify((docState.exists && docState.doc && docState.doc.data) || {}, null, 2);
        textarea.focus();
      } else {
        editButton.focus();
      }
    }

    editButton.addEventListener("click", () => setEditing(true));
    cancelButton.addEventListener("click", () => setEditing(false));
    saveButton.addEventListener("click", async () => {
      replace(editError);
      let data;
      try {
        data = JSON.parse(textarea.value);
      } catch (error) {
        replace(editError, errorBox(localError("invalidJSON", `The data is not valid JSON: ${error.message}`, "Fix the JSON; nothing was sent.")));
        textarea.focus();
        return;
      }
      if (!data || typeof data !== "object" || Array.isArray(data)) {
        replace(editError, errorBox(localError("invalidJSON", "The data must be a JSON object.", "Nothing was sent.")));
        return;
      }
      let precondition = docState.base || (docState.exists && docState.doc ? { version: docState.doc.version } : { exists: false });
      if (precondition.version === null || precondition.version === undefined) {
        precondition = docState.exists ? null : { exists: false };
      }
      saveButton.disabled = true;
      setReady(false);
      try {
        const body = precondition ? { data, precondition } : { data };
        const written = await api("PUT", `/v1/docs/${encodePath(path)}`, body);
        if (!context.alive()) return;
        show(written && written.path ? written : Object.assign({}, docState.doc, { data }));
        replace(notice);
        setEditing(false);
      } catch (error) {
        replace(editError, errorBox(error));
      } finally {
        saveButton.disabled = false;
        if (context.alive()) setReady(true);
      }
    });
    deleteButton.addEventListener("click", async () => {
      const yes = await confirmDialog(`Delete the document ${path}? This cannot be undone.`, "Delete");
      if (!yes) return;
      setReady(false);
      try {
        await api("DELETE", `/v1/docs/${encodePath(path)}`);
        location.hash = links.collection(parentPath(path));
      } catch (error) {
        replace(docError, errorBox(error));
        setReady(true);
      }
    });

    function addSubcollection(id) {
      for (const item of subList.children) if (item.dataset.collection === id) return;
      const item = h("li", { dataset: { collection: id } }, h("a", { href: links.collection(`${path}/${id}`) }, id));
      const after = Array.from(subList.children).find((other) => other.dataset.collection > id);
      subList.insertBefore(item, after || null);
      subNote.hidden = true;
    }

    const onChange = (change) => {
      if (change.path === path) {
        const deleted = change.data === undefined || change.data === null;
        if (deleted) {
          docState.exists = false;
          docState.doc = null;
          renderMeta();
          renderFields(null);
          replace(notice, h("p", { class: "notice" }, "This document was deleted."));
          return;
        }
        if (docState.editing) {
          replace(notice, h("p", { class: "notice" }, "This document changed while you edit it: saving will answer a conflict. Cancel and edit again to start from the new data."));
        } else {
          replace(notice);
        }
        docState.exists = true;
        docState.doc = Object.assign({}, docState.doc || { path, version: null }, { data: change.data });
        renderFields(change.data);
        flash(fieldsTable);
        refreshLater([path], (doc) => {
          if (!context.alive() || doc.path !== path) return;
          if (docState.editing) {
            docState.doc = doc;
            docState.exists = true;
            renderMeta();
          } else {
            show(doc);
          }
        });
      } else if (change.path.startsWith(path + "/")) {
        addSubcollection(change.path.slice(path.length + 1).split("/")[0]);
      }
    };

    startLive(onChange);
    const [docResult, subResult] = await Promise.allSettled([
      api("GET", `/v1/docs/${encodePath(path)}`),
      api("GET", `/v1/collections/${encodePath(path)}`),
    ]);
    if (!context.alive()) return;
    if (docResult.status === "fulfilled") {
      show(docResult.value);
    } else {
      docState.exists = false;
      renderMeta();
      renderFields(null);
      replace(docError, errorBox(docResult.reason));
      if (docResult.reason && docResult.reason.status === 403) editButton.hidden = true;
    }
    if (subResult.status === "fulfilled") {
      const ids = subResult.value.collections || [];
      ids.forEach(addSubcollection);
      subNote.textContent = "No subcollections.";
      subNote.hidden = ids.length > 0;
    } else {
      replace(subNote, errorBox(subResult.reason));
    }
  }

  /// The query form and its results (on #/documents and #/query).
  function querySection(context, prefill) {
    const saved = state.query;
    if (prefill) {
      saved.collection = prefill;
      saved.group = false;
    }
    const collection = h("input", { id: "query-collection", type: "text", autocomplete: "off", spellcheck: "false", placeholder: "users/ana/orders", value: saved.collection });
    const group = h("input", { id: "query-group", type: "checkbox", checked: saved.group });
    const where = h("textarea", { id: "query-where", rows: "3", spellcheck: "false", placeholder: "points >= 10\nstatus == \"open\"", "aria-describedby": "query-where-help" });
    where.value = saved.where;
    const order = h("input", { id: "query-order", type: "text", autocomplete: "off", spellcheck: "false", placeholder: "points desc, name", value: saved.order });
    const limit = h("input", { id: "query-limit", type: "number", min: "1", max: "1000", step: "1", inputmode: "numeric", value: saved.limit });
    const run = h("button", { type: "submit", id: "query-run" }, "Run query");
    const errors = h("div", { id: "query-error" });
    const summary = h("p", { id: "query-summary", class: "muted", "aria-live": "polite" });
    const { table, body } = documentTable("query-results", "Query results", true);
    const explain = h("pre", { id: "query-explain", class: "explain", tabindex: "0", "aria-label": "Query plan" });
    const more = h("button", { type: "button", id: "query-more", class: "secondary", hidden: true }, "Load more results");
    const results = h(
      "div",
      { id: "query-output", hidden: true },
      summary,
      tableWrap(table, "Query results"),
      h("div", { class: "buttons" }, more),
      h("h3", {}, "Plan"),
      explain
    );
    let lastRequest = null;

    const form = h(
      "form",
      { id: "query-form", class: "stack-form", novalidate: true },
      h(
        "div",
        { class: "field-row" },
        h("div", { class: "field grow" }, h("label", { for: "query-collection" }, "Collection path (or collection id for a group query)"), collection),
        h("div", { class: "field check" }, group, h("label", { for: "query-group" }, "Collection group"))
      ),
      h(
        "div",
        { class: "field" },
        h("label", { for: "query-where" }, "Filters, one per line"),
        where,
        h("p", { id: "query-where-help", class: "help" }, "field op JSON value, with ==, !=, <, <=, >, >=, in, not-in, array-contains, array-contains-any")
      ),
      h(
        "div",
        { class: "field-row" },
        h("div", { class: "field grow" }, h("label", { for: "query-order" }, "Order by (comma-separated)"), order),
        h("div", { class: "field narrow" }, h("label", { for: "query-limit" }, "Limit"), limit)
      ),
      errors,
      h("div", { class: "buttons" }, run)
    );

    function remember() {
      saved.collection = collection.value;
      saved.group = group.checked;
      saved.where = where.value;
      saved.order = order.value;
      saved.limit = limit.value;
    }
    form.addEventListener("input", remember);
    form.addEventListener("change", remember);

    async function execute(request, appending) {
      const answer = await api("POST", "/v1/query", request);
      const documents = answer.documents || [];
      if (!appending) body.replaceChildren();
      for (const doc of documents) body.append(documentRow(doc, true));
      const plan = answer.explain;
      explain.textContent = plan === undefined ? "(no plan returned)" : JSON.stringify(plan, null, 2);
      const parts = [`${plural(body.rows.length, "document")}`];
      if (plan && typeof plan === "object") {
        if (plan.scanned !== undefined) parts.push(`scanned ${plan.scanned}`);
        if (plan.plan) parts.push(`plan: ${typeof plan.plan === "string" ? plan.plan : JSON.stringify(plan.plan)}`);
        if (plan.index) parts.push(`index: ${typeof plan.index === "string" ? plan.index : JSON.stringify(plan.index)}`);
      }
      summary.textContent = parts.join(" · ");
      results.hidden = false;
      more.hidden = !(request.limit && documents.length >= request.limit && documents.length > 0);
      lastRequest = request;
    }

    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      remember();
      replace(errors);
      const target = segments(collection.value.trim()).join("/");
      if (!target) {
        replace(errors, errorBox(localError("invalidRequest", "Enter a collection path.", group.checked ? "For a group query: a collection id, e.g. orders." : "e.g. users/ana/orders")));
        collection.focus();
        return;
      }
      const request = {};
      if (group.checked) request.collectionGroup = target;
      else request.collection = target;
      request.where = where.value
        .split("\n")
        .map((line) => line.trim())
        .filter(Boolean);
      request.orderBy = order.value
        .split(",")
        .map((part) => part.trim())
        .filter(Boolean);
      const limitText = limit.value.trim();
      if (limitText) {
        const value = Number(limitText);
        if (!Number.isInteger(value) || value < 1) {
          replace(errors, errorBox(localError("invalidRequest", "The limit must be a whole number of at least 1.", "e.g. 50")));
          limit.focus();
          return;
        }
        request.limit = value;
      }
      request.explain = true;
      run.disabled = true;
      const wasReady = page.dataset.ready === "true";
      setReady(false);
      try {
        await execute(request, false);
      } catch (error) {
        replace(errors, errorBox(error));
        results.hidden = true;
      } finally {
        run.disabled = false;
        // While the page itself is still loading, its own load marks it ready.
        if (wasReady && context.alive()) setReady(true);
      }
    });

    more.addEventListener("click", async () => {
      if (!lastRequest || !body.rows.length) return;
      const request = Object.assign({}, lastRequest, { startAfter: body.rows[body.rows.length - 1].dataset.path });
      more.disabled = true;
      setReady(false);
      try {
        await execute(request, true);
      } catch (error) {
        replace(errors, errorBox(error));
      } finally {
        more.disabled = false;
        if (context.alive()) setReady(true);
      }
    });

    return h("section", { class: "card query", id: "query", "aria-labelledby": "query-title" }, h("h2", { id: "query-title" }, "Query"), form, results);
  }

  async function renderQueryPage(context, root, path) {
    root.append(
      path ? breadcrumbs(path) : h("nav", { class: "breadcrumbs", "aria-label": "Breadcrumb" }, h("ol", {}, h("li", {}, h("a", { href: "#/documents" }, "Documents")))),
      pageHeading("Query", path ? `Collection ${path}` : "Filter, order and explain"),
      querySection(context, path)
    );
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Usage and cost

  function daysSelect(id, current, onChange) {
    const select = h(
      "select",
      { id, value: String(current) },
      [7, 30, 90].map((days) => h("option", { value: String(days) }, `Last ${days} days`))
    );
    select.value = String(current);
    select.addEventListener("change", () => onChange(Number(select.value)));
    return select;
  }

  function shortDay(label, full) {
    if (full) return label;
    const match = /^\d{4}-(\d{2})-(\d{2})$/.exec(label);
    return match ? `${match[1]}-${match[2]}` : label;
  }

  async function renderUsage(context, root) {
    const priceInput = (id, label) =>
      h("div", { class: "field narrow" }, h("label", { for: id }, label), h("input", { id, type: "number", min: "0", step: "any", inputmode: "decimal" }));
    const prices = h(
      "fieldset",
      { class: "prices field-row" },
      h("legend", {}, "Prices (per the number of operations given)"),
      priceInput("price-read", "Read"),
      priceInput("price-write", "Write"),
      priceInput("price-delete", "Delete"),
      priceInput("price-per", "Per operations")
    );
    const chart = h("div", { id: "usage-chart", class: "chart-container" });
    const tableSlot = h("div", { id: "usage-table-slot" });
    const errors = h("div", { id: "usage-error" });
    root.append(
      pageHeading("Usage and cost", "Document reads, writes and deletes per collection, from the recorded cost events."),
      h(
        "div",
        { class: "toolbar" },
        h("label", { for: "usage-days" }, "Period"),
        daysSelect("usage-days", state.usageDays, (days) => {
          state.usageDays = days;
          busy(context, load);
        })
      ),
      errors,
      h("section", { class: "card", "aria-labelledby": "usage-chart-title" }, h("h2", { id: "usage-chart-title" }, "Operations per day"), chart),
      h("section", { class: "card", "aria-labelledby": "usage-table-title" }, h("h2", { id: "usage-table-title" }, "Per collection"), prices, tableSlot)
    );
    let data = null;

    function price(id) {
      const value = Number($(id).value);
      return Number.isFinite(value) ? value : NaN;
    }

    function recompute() {
      if (!data) return;
      const read = price("price-read");
      const write = price("price-write");
      const del = price("price-delete");
      const per = price("price-per") || NaN;
      state.prices = { read, write, delete: del, per };
      for (const row of document.querySelectorAll("#usage-table tr[data-reads]")) {
        const cost = (Number(row.dataset.reads) * read + Number(row.dataset.writes) * write + Number(row.dataset.deletes) * del) / per;
        const cell = row.querySelector(".cost");
        cell.textContent = formatCost(cost);
        cell.dataset.cost = Number.isFinite(cost) ? String(cost) : "";
      }
    }
    for (const id of ["price-read", "price-write", "price-delete", "price-per"]) $(id).addEventListener("input", recompute);

    async function load() {
      replace(errors);
      try {
        data = await api("GET", `/v1/usage?days=${state.usageDays}`);
      } catch (error) {
        if (!context.alive()) return;
        data = null;
        replace(errors, errorBox(error));
        replace(chart);
        replace(tableSlot);
        prices.hidden = true;
        return;
      }
      if (!context.alive()) return;
      prices.hidden = false;
      const given = Object.assign({ read: 0, write: 0, delete: 0, per: 100000 }, data.prices || {});
      const current = state.prices || given;
      $("price-read").value = String(current.read);
      $("price-write").value = String(current.write);
      $("price-delete").value = String(current.delete);
      $("price-per").value = String(current.per || given.per);

      const collections = data.collections || [];
      const days = data.days && data.days.length ? data.days : Array.from(new Set(collections.flatMap((c) => (c.perDay || []).map((d) => d.day)))).sort();
      const totals = { reads: {}, writes: {}, deletes: {} };
      for (const collection of collections) {
        for (const day of collection.perDay || []) {
          for (const kind of ["reads", "writes", "deletes"]) totals[kind][day.day] = (totals[kind][day.day] || 0) + (Number(day[kind]) || 0);
        }
      }
      const total = data.total || {
        reads: collections.reduce((sum, c) => sum + (c.reads || 0), 0),
        writes: collections.reduce((sum, c) => sum + (c.writes || 0), 0),
        deletes: collections.reduce((sum, c) => sum + (c.deletes || 0), 0),
      };
      replace(
        chart,
        Charts.bars({
          labels: days,
          series: ["reads", "writes", "deletes"].map((kind) => ({ name: kind, values: days.map((day) => totals[kind][day] || 0) })),
          stacked: true,
          width: chartWidth(chart),
          labelFormat: shortDay,
          format: formatCount,
          ariaLabel: `Reads, writes and deletes per day over ${days.length} days: ${total.reads} reads, ${total.writes} writes, ${total.deletes} deletes in all`,
        })
      );

      const row = (label, item, attrs, head) =>
        h(
          "tr",
          Object.assign({ dataset: { reads: item.reads || 0, writes: item.writes || 0, deletes: item.deletes || 0 } }, attrs),
          h("th", { scope: "row" }, head || label),
          numCell(String(item.reads || 0), { class: "reads" }),
          numCell(String(item.writes || 0), { class: "writes" }),
          numCell(String(item.deletes || 0), { class: "deletes" }),
          numCell("", { class: "cost" })
        );
      const table = h(
        "table",
        { id: "usage-table", class: "data-table" },
        h("caption", { class: "visually-hidden" }, "Operations and cost per collection"),
        headRow(["Collection", { label: "Reads", num: true }, { label: "Writes", num: true }, { label: "Deletes", num: true }, { label: "Cost", num: true }]),
        h(
          "tbody",
          {},
          collections.map((collection) =>
            row(collection.collection, collection, { dataset: { collection: collection.collection, reads: collection.reads || 0, writes: collection.writes || 0, deletes: collection.deletes || 0 } })
          )
        ),
        h("tfoot", {}, row("Total", total, { class: "total", dataset: { total: "true", reads: total.reads || 0, writes: total.writes || 0, deletes: total.deletes || 0 } }))
      );
      replace(tableSlot, collections.length ? null : h("p", { class: "muted" }, "No document operations recorded in this period."), tableWrap(table, "Usage per collection"));
      recompute();
    }

    await load();
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Storage

  const categories = ["image", "video", "audio", "file", "other"];

  function usageOf(entry) {
    return (entry && (entry.usage || entry)) || {};
  }

  function categoryChart(list, container, label) {
    const items = (list || []).map((entry) => {
      const usage = usageOf(entry);
      const name = String(entry.category);
      return {
        label: name,
        value: Number(usage.allocatedBytes) || 0,
        title: `${name}: ${formatBytes(usage.allocatedBytes)} allocated, ${formatBytes(usage.logicalBytes)} logical, ${usage.items || 0} items`,
        attrs: { "data-category": name, "data-items": usage.items || 0, "data-allocated": usage.allocatedBytes || 0 },
        series: Math.max(0, categories.indexOf(name)),
      };
    });
    const total = items.reduce((sum, item) => sum + item.value, 0);
    return Charts.hbars({
      items,
      width: chartWidth(container),
      format: formatBytes,
      ariaLabel: `${label}: ${items.map((item) => `${item.label} ${formatBytes(item.value)}`).join(", ") || "nothing"}; ${formatBytes(total)} in all`,
      emptyText: "No files indexed",
    });
  }

  function cleanupSection(context, group, onDone) {
    const groupInput = h("input", { id: "cleanup-group", type: "text", autocomplete: "off", spellcheck: "false", value: group || "", placeholder: "any group" });
    const category = h(
      "select",
      { id: "cleanup-category" },
      h("option", { value: "any" }, "any"),
      categories.map((name) => h("option", { value: name }, name))
    );
    const older = h("input", { id: "cleanup-older", type: "date" });
    const preview = h("button", { type: "submit", id: "cleanup-preview" }, "Preview");
    const confirmButton = h("button", { type: "button", id: "cleanup-confirm", class: "danger", hidden: true }, "Delete these files");
    const result = h("div", { id: "cleanup-result", "aria-live": "polite" });
    let previewed = null;

    function criteria() {
      const body = {};
      const groupValue = groupInput.value.trim();
      if (groupValue) body.group = groupValue;
      if (category.value && category.value !== "any") body.category = category.value;
      if (older.value) body.olderThan = older.value;
      return body;
    }
    function describe(body) {
      const parts = [];
      if (body.group) parts.push(`in group ${body.group}`);
      if (body.category) parts.push(`of category ${body.category}`);
      if (body.olderThan) parts.push(`older than ${body.olderThan}`);
      return parts.join(", ") || "matching";
    }

    const form = h(
      "form",
      { id: "cleanup-form", class: "stack-form", novalidate: true },
      h(
        "div",
        { class: "field-row" },
        h("div", { class: "field grow" }, h("label", { for: "cleanup-group" }, "Group"), groupInput),
        h("div", { class: "field" }, h("label", { for: "cleanup-category" }, "Category"), category),
        h("div", { class: "field" }, h("label", { for: "cleanup-older" }, "Older than"), older)
      ),
      h("p", { class: "help" }, "At least one of group, category or date. Preview first: nothing is deleted until you confirm."),
      h("div", { class: "buttons" }, preview, confirmButton),
      result
    );
    form.addEventListener("input", () => {
      previewed = null;
      confirmButton.hidden = true;
    });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const body = criteria();
      confirmButton.hidden = true;
      previewed = null;
      preview.disabled = true;
      setReady(false);
      try {
        const answer = await api("POST", "/v1/storage/cleanup", Object.assign({}, body, { confirm: false }));
        const freed = answer.freed || {};
        previewed = body;
        result.removeAttribute("data-deleted");
        result.dataset.items = String(freed.items || 0);
        result.dataset.allocated = String(freed.allocatedBytes || 0);
        const largest = answer.largest || [];
        replace(
          result,
          h(
            "div",
            { class: "result-box" },
            h("p", {}, h("strong", {}, `Would free ${formatBytes(freed.allocatedBytes)}`), ` (${formatBytes(freed.logicalBytes)} logical) in ${plural(Number(freed.items) || 0, "item")} ${describe(body)}.`),
            freed.itemsKeptByOtherLinks ? h("p", { class: "muted" }, `${plural(Number(freed.itemsKeptByOtherLinks), "item")} stay: other links keep their data.`) : null,
            largest.length ? largestTable(largest.slice(0, 10), "cleanup-largest", "Largest of these") : null
          )
        );
        confirmButton.hidden = !(Number(freed.items) > 0);
        confirmButton.textContent = `Delete ${plural(Number(freed.items) || 0, "item")}`;
      } catch (error) {
        replace(result, errorBox(error));
        result.removeAttribute("data-items");
      } finally {
        preview.disabled = false;
        if (context.alive()) setReady(true);
      }
    });
    confirmButton.addEventListener("click", async () => {
      if (!previewed) return;
      const body = previewed;
      const items = result.dataset.items || "0";
      const yes = await confirmDialog(`Delete ${items} stored file(s) ${describe(body)}? The files and their index rows are removed; this cannot be undone.`, "Delete files");
      if (!yes) return;
      confirmButton.disabled = true;
      setReady(false);
      try {
        const answer = await api("POST", "/v1/storage/cleanup", Object.assign({}, body, { confirm: true }));
        previewed = null;
        confirmButton.hidden = true;
        result.removeAttribute("data-items");
        result.dataset.deleted = String(answer.deleted || 0);
        const refused = answer.refused || [];
        replace(
          result,
          h(
            "div",
            { class: "result-box done" },
            h("p", {}, h("strong", {}, `Deleted ${plural(Number(answer.deleted) || 0, "item")}`), `, freed ${formatBytes(answer.freedAllocatedBytes)} (${formatBytes(answer.freedLogicalBytes)} logical).`),
            answer.alreadyMissing ? h("p", { class: "muted" }, `${plural(Number(answer.alreadyMissing), "item")} were already missing.`) : null,
            refused.length
              ? [h("p", {}, `${plural(refused.length, "item")} refused:`), h("ul", { class: "refused" }, refused.map((item) => h("li", {}, `${item.path || item.id}: ${item.reason}`)))]
              : null
          )
        );
        if (onDone) await onDone();
      } catch (error) {
        replace(result, errorBox(error));
      } finally {
        confirmButton.disabled = false;
        if (context.alive()) setReady(true);
      }
    });
    return h("section", { class: "card", "aria-labelledby": "cleanup-title" }, h("h2", { id: "cleanup-title" }, "Clean up"), form);
  }

  function itemPath(item) {
    const path = item.path;
    if (path === undefined || path === null) return item.fileName || "";
    if (typeof path === "string") return path;
    if (typeof path === "object") return path.relative || path.path || path.string || JSON.stringify(path);
    return String(path);
  }

  function largestTable(items, id, caption) {
    return tableWrap(
      h(
        "table",
        { id, class: "data-table" },
        h("caption", { class: caption ? null : "visually-hidden" }, caption || "Largest items"),
        headRow(["File", "Type", { label: "Size", num: true }, { label: "Allocated", num: true }, "Path"]),
        h(
          "tbody",
          {},
          items.map((item) =>
            h(
              "tr",
              { dataset: { item: item.id } },
              h("th", { scope: "row" }, item.fileName || item.id || ""),
              h("td", {}, item.contentType || ""),
              numCell(formatBytes(item.sizeInBytes), { dataset: { bytes: item.sizeInBytes || 0 } }),
              numCell(item.allocatedBytes !== undefined ? formatBytes(item.allocatedBytes) : ""),
              h("td", { class: "path" }, itemPath(item))
            )
          )
        )
      ),
      caption || "Largest items"
    );
  }

  async function renderStorage(context, root) {
    const overview = h("div", { id: "storage-overview" });
    root.append(pageHeading("Storage", "Files indexed by the storage accounting: categories, groups and cleanup."), overview);

    async function load() {
      let data;
      try {
        data = await api("GET", "/v1/storage?groups=10");
      } catch (error) {
        if (context.alive()) replace(overview, errorBox(error));
        return false;
      }
      if (!context.alive()) return false;
      const total = h(
        "p",
        { id: "storage-total", class: "big-number", dataset: { items: Number(data.items) || 0, allocated: Number(data.allocatedBytes) || 0, logical: Number(data.logicalBytes) || 0 } },
        `${formatBytes(data.allocatedBytes)} allocated · ${formatCount(data.items)} items`,
        h("span", { class: "muted" }, ` · ${formatBytes(data.logicalBytes)} logical`)
      );
      const categoryBox = h("div", { id: "storage-categories", class: "chart-container" });
      const groups = data.groups || [];
      const groupTable = h(
        "table",
        { id: "storage-groups", class: "data-table" },
        h("caption", { class: "visually-hidden" }, "Largest groups"),
        headRow(["Group", "Service", { label: "Items", num: true }, { label: "Allocated", num: true }, { label: "Logical", num: true }]),
        h(
          "tbody",
          {},
          groups.map((group) => {
            const usage = usageOf(group);
            return h(
              "tr",
              { dataset: { group: group.groupId, allocated: usage.allocatedBytes || 0 } },
              h("th", { scope: "row" }, h("a", { href: links.group(group.groupId) }, group.groupId)),
              h("td", {}, group.service || ""),
              numCell(String(usage.items || 0), { class: "items" }),
              numCell(formatBytes(usage.allocatedBytes), { class: "allocated" }),
              numCell(formatBytes(usage.logicalBytes), { class: "logical" })
            );
          })
        )
      );
      const services = data.services || [];
      replace(
        overview,
        h("section", { class: "card", "aria-labelledby": "storage-total-title" }, h("h2", { id: "storage-total-title", class: "visually-hidden" }, "Total"), total),
        h("section", { class: "card", "aria-labelledby": "storage-categories-title" }, h("h2", { id: "storage-categories-title" }, "By category (allocated)"), categoryBox),
        h(
          "section",
          { class: "card", "aria-labelledby": "storage-groups-title" },
          h("h2", { id: "storage-groups-title" }, "Largest groups"),
          groups.length ? tableWrap(groupTable, "Largest groups") : [tableWrap(groupTable, "Largest groups"), h("p", { class: "muted" }, "No groups indexed.")]
        ),
        services.length
          ? h(
              "section",
              { class: "card", "aria-labelledby": "storage-services-title" },
              h("h2", { id: "storage-services-title" }, "By service"),
              tableWrap(
                h(
                  "table",
                  { id: "storage-services", class: "data-table" },
                  headRow(["Service", { label: "Items", num: true }, { label: "Allocated", num: true }, { label: "Logical", num: true }]),
                  h(
                    "tbody",
                    {},
                    services.map((service) => {
                      const usage = usageOf(service);
                      return h(
                        "tr",
                        { dataset: { service: service.service } },
                        h("th", { scope: "row" }, service.service),
                        numCell(String(usage.items || 0)),
                        numCell(formatBytes(usage.allocatedBytes)),
                        numCell(formatBytes(usage.logicalBytes))
                      );
                    })
                  )
                ),
                "Storage by service"
              )
            )
          : null
      );
      replace(categoryBox, categoryChart(data.categories, categoryBox, "Allocated bytes per category"));
      return true;
    }

    const loaded = await load();
    if (!context.alive()) return;
    if (loaded) root.append(cleanupSection(context, "", load));
  }

  async function renderGroup(context, root, groupId) {
    const detail = h("div", { id: "group-detail", dataset: { group: groupId } });
    root.append(
      h("nav", { class: "breadcrumbs", "aria-label": "Breadcrumb" }, h("ol", {}, h("li", {}, h("a", { href: "#/storage" }, "Storage")), h("li", {}, h("a", { href: links.group(groupId), "aria-current": "location" }, groupId)))),
      pageHeading(`Group ${groupId}`, "Its categories and largest items."),
      detail
    );

    async function load() {
      let data;
      try {
        data = await api("GET", `/v1/storage/groups/${encodeURIComponent(groupId)}?largest=20`);
      } catch (error) {
        if (context.alive()) replace(detail, errorBox(error), h("p", {}, h("a", { href: "#/storage" }, "Back to storage")));
        return false;
      }
      if (!context.alive()) return false;
      const usage = usageOf(data.usage);
      const services = (data.services || []).map((service) => (typeof service === "string" ? service : service.service || JSON.stringify(service)));
      const chartBox = h("div", { id: "group-categories", class: "chart-container" });
      replace(
        detail,
        h(
          "section",
          { class: "card" },
          h("h2", {}, "Usage"),
          h(
            "p",
            { id: "group-total", class: "big-number", dataset: { items: usage.items || 0, allocated: usage.allocatedBytes || 0 } },
            `${formatBytes(usage.allocatedBytes)} allocated · ${formatCount(usage.items)} items`,
            h("span", { class: "muted" }, ` · ${formatBytes(usage.logicalBytes)} logical`)
          ),
          services.length ? h("p", { class: "muted" }, `Services: ${services.join(", ")}`) : null
        ),
        h("section", { class: "card" }, h("h2", {}, "By category (allocated)"), chartBox),
        h(
          "section",
          { class: "card" },
          h("h2", {}, "Largest items"),
          (data.largest || []).length ? largestTable(data.largest, "group-largest", null) : h("p", { class: "muted" }, "No items.")
        )
      );
      replace(chartBox, categoryChart(data.categories, chartBox, `Allocated bytes per category in ${groupId}`));
      return true;
    }

    const loaded = await load();
    if (!context.alive()) return;
    if (loaded) root.append(cleanupSection(context, groupId, load));
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Analytics

  /// Days from `days` back to the last day present or today (UTC), missing days as zero.
  function continuousDays(entries, days) {
    const counts = new Map(entries.map((entry) => [String(entry.key), entry]));
    const keys = Array.from(counts.keys()).filter((key) => /^\d{4}-\d{2}-\d{2}$/.test(key)).sort();
    const today = new Date().toISOString().slice(0, 10);
    const end = keys.length && keys[keys.length - 1] > today ? keys[keys.length - 1] : today;
    const endDate = new Date(`${end}T00:00:00Z`);
    const list = [];
    for (let offset = days - 1; offset >= 0; offset -= 1) {
      list.push(new Date(endDate.getTime() - offset * 86400000).toISOString().slice(0, 10));
    }
    if (keys.length && keys[0] < list[0]) {
      return Array.from(new Set(keys.concat(list))).sort();
    }
    return list;
  }

  async function renderAnalytics(context, root) {
    const errors = h("div", { id: "analytics-error" });
    const chart = h("div", { id: "analytics-per-day", class: "chart-container" });
    const names = h("div", { id: "analytics-names-slot" });
    const queue = h("section", { id: "analytics-queue", class: "card", "aria-labelledby": "queue-title" });
    root.append(
      pageHeading("Analytics", "Events recorded per day and per name, and the delivery queue."),
      h(
        "div",
        { class: "toolbar" },
        h("label", { for: "analytics-days" }, "Period"),
        daysSelect("analytics-days", state.analyticsDays, (days) => {
          state.analyticsDays = days;
          busy(context, load);
        })
      ),
      errors,
      h("section", { class: "card", "aria-labelledby": "per-day-title" }, h("h2", { id: "per-day-title" }, "Events per day"), chart),
      h("div", { class: "columns" }, h("section", { class: "card", "aria-labelledby": "names-title" }, h("h2", { id: "names-title" }, "Events by name"), names), queue)
    );

    async function load() {
      replace(errors);
      let data;
      try {
        data = await api("GET", `/v1/analytics?days=${state.analyticsDays}`);
      } catch (error) {
        if (!context.alive()) return;
        replace(errors, errorBox(error));
        replace(chart);
        replace(names);
        replace(queue);
        queue.hidden = true;
        return;
      }
      if (!context.alive()) return;
      queue.hidden = false;
      const perDay = data.perDay || [];
      const byDay = new Map(perDay.map((entry) => [String(entry.key), entry]));
      const days = continuousDays(perDay, state.analyticsDays);
      // `estimated` is the sampled estimate of the count (the sum of 1 / sample rate); it differs when sampling.
      const differs = (entry) => typeof entry.estimated === "number" && Math.round(entry.estimated) !== Number(entry.count);
      const estimated = perDay.some(differs);
      const totalEvents = perDay.reduce((sum, entry) => sum + (Number(entry.count) || 0), 0);
      replace(
        chart,
        Charts.bars({
          labels: days,
          series: [{ name: "events", values: days.map((day) => Number((byDay.get(day) || {}).count) || 0) }],
          ...(estimated
            ? {
                labelFormat: (label, full) =>
                  full && byDay.get(label) && differs(byDay.get(label)) ? `${label} (≈${Math.round(byDay.get(label).estimated)} estimated)` : shortDay(label, full),
              }
            : {}),
          width: chartWidth(chart),
          ...(estimated ? {} : { labelFormat: shortDay }),
          format: formatCount,
          ariaLabel: `Events per day over ${days.length} days, ${totalEvents} in all${estimated ? " (some estimated)" : ""}`,
        }),
        estimated ? h("p", { class: "muted" }, "Sampling is on: the counts are the events stored; the estimates of all events logged are in the tooltips and the table.") : null
      );

      const perName = (data.perName || []).slice().sort((a, b) => (Number(b.count) || 0) - (Number(a.count) || 0));
      const showEstimates = perName.some(differs);
      replace(
        names,
        tableWrap(
          h(
            "table",
            { id: "analytics-names", class: "data-table" },
            h("caption", { class: "visually-hidden" }, "Events by name"),
            headRow(["Name", { label: "Count", num: true }, showEstimates ? { label: "Estimated", num: true } : null].filter(Boolean)),
            h(
              "tbody",
              {},
              perName.map((entry) =>
                h(
                  "tr",
                  { dataset: { name: entry.key } },
                  h("th", { scope: "row" }, entry.key),
                  numCell(String(Number(entry.count) || 0), { class: "count" }),
                  showEstimates ? numCell(typeof entry.estimated === "number" ? `≈${Math.round(entry.estimated)}` : "", { class: "estimated" }) : null
                )
              )
            )
          ),
          "Events by name"
        ),
        perName.length ? null : h("p", { class: "muted" }, "No events in this period.")
      );

      const info = data.queue || {};
      const reasons = info.failureReasons || [];
      queue.dataset.pending = String(Number(info.pending) || 0);
      queue.dataset.failed = String(Number(info.failed) || 0);
      const stat = (label, value, cls) => h("div", { class: `stat ${cls || ""}` }, h("dt", {}, label), h("dd", { class: "num" }, String(Number(value) || 0)));
      replace(
        queue,
        h("h2", { id: "queue-title" }, "Queue"),
        h(
          "dl",
          { class: "stats" },
          stat("Pending", info.pending, "pending"),
          stat("In flight", info.inFlight, "in-flight"),
          stat("Retrying", info.retrying, "retrying"),
          stat("Failed", info.failed, Number(info.failed) > 0 ? "failed bad" : "failed")
        ),
        h("h3", {}, "Failure reasons"),
        reasons.length
          ? h("ul", { id: "analytics-failures", class: "reasons" }, reasons.map((reason) => h("li", { dataset: { reason: reason.reason } }, h("span", {}, reason.reason), " ", h("span", { class: "num badge" }, String(reason.count)))))
          : h("p", { class: "muted", id: "analytics-failures" }, "No failures.")
      );
    }

    await load();
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Work

  function validMonth(text) {
    return typeof text === "string" && /^\d{4}-(0[1-9]|1[0-2])$/.test(text);
  }

  async function renderWork(context, root, uidParam, monthParam) {
    const now = new Date();
    const uid = uidParam || state.session.uid;
    const month = validMonth(monthParam) ? monthParam : localMonth(now);
    const userInput = h("input", { id: "work-user", type: "text", autocomplete: "off", spellcheck: "false", value: uid });
    const monthInput = h("input", { id: "work-month", type: "month", value: month, pattern: "\\d{4}-\\d{2}" });
    const form = h(
      "form",
      { class: "toolbar", id: "work-form" },
      h("div", { class: "field" }, h("label", { for: "work-user" }, "User"), userInput),
      h("div", { class: "field" }, h("label", { for: "work-month" }, "Month"), monthInput),
      h("div", { class: "field" }, h("button", { type: "submit", id: "work-show" }, "Show"))
    );
    const totals = h("section", { id: "work-month-totals", class: "card totals", "aria-live": "polite" });
    const calendarSlot = h("div", { id: "work-calendar-slot" });
    const week = h("section", { id: "work-week", class: "card" });
    const team = h("div", { id: "work-team-slot" });
    root.append(
      pageHeading("Work", `${uid} · ${month}`),
      form,
      totals,
      h("section", { class: "card", "aria-labelledby": "calendar-title" }, h("h2", { id: "calendar-title" }, "Month"), calendarSlot),
      week,
      h("section", { class: "card", "aria-labelledby": "team-title" }, h("h2", { id: "team-title" }, `Team · ${month}`), team)
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const nextUid = userInput.value.trim() || state.session.uid;
      const nextMonth = validMonth(monthInput.value) ? monthInput.value : month;
      // Navigate at once (not on the next hashchange), so the page is never "ready" with the old month.
      const target = links.work(nextUid, nextMonth);
      if (location.hash !== target) history.pushState(null, "", target);
      route();
    });

    const [year, monthNumber] = month.split("-").map(Number);
    const isCurrent = month === localMonth(now);
    const weekDay = isCurrent ? localDate(now) : `${month}-01`;
    const [monthResult, weekResult, teamResult] = await Promise.allSettled([
      api("GET", `/v1/work/${encodeURIComponent(uid)}/month/${month}`),
      api("GET", `/v1/work/${encodeURIComponent(uid)}/week/${weekDay}`),
      api("GET", `/v1/work/team/${month}`),
    ]);
    if (!context.alive()) return;

    // Month: totals and the calendar.
    if (monthResult.status === "fulfilled") {
      const report = monthResult.value;
      totals.dataset.worked = String(report.workedSeconds || 0);
      totals.dataset.planned = String(report.plannedSeconds || 0);
      totals.dataset.overtime = String(report.overtimeSeconds || 0);
      totals.dataset.break = String(report.breakSeconds || 0);
      const stat = (label, value, cls) => h("div", { class: `stat ${cls}` }, h("dt", {}, label), h("dd", {}, value));
      replace(
        totals,
        h("h2", { class: "visually-hidden" }, "Month totals"),
        h(
          "dl",
          { class: "stats" },
          stat("Worked", formatDuration(report.workedSeconds), "worked"),
          stat("Planned", formatDuration(report.plannedSeconds), "planned"),
          stat("Overtime", formatDuration(report.overtimeSeconds, true), `overtime ${report.overtimeSeconds < 0 ? "negative" : "positive"}`),
          stat("Breaks", formatDuration(report.breakSeconds), "breaks"),
          stat("Days worked", String(report.daysWorked || 0), "days")
        ),
        report.timeZone ? h("p", { class: "muted" }, `Times in ${report.timeZone}.`) : null
      );
      replace(calendarSlot, tableWrap(calendar(year, monthNumber, report), `Work calendar ${month}`));
    } else {
      replace(totals, errorBox(monthResult.reason));
      replace(calendarSlot, h("p", { class: "muted" }, "No calendar without the month's report."));
    }

    // Week: worked against planned.
    if (weekResult.status === "fulfilled") {
      const report = weekResult.value;
      week.dataset.worked = String(report.workedSeconds || 0);
      week.dataset.planned = String(report.plannedSeconds || 0);
      const worked = Number(report.workedSeconds) || 0;
      const planned = Number(report.plannedSeconds) || 0;
      const scale = Math.max(worked, planned, 1);
      const chartBox = h("div", { class: "chart-container", id: "work-week-chart" });
      replace(
        week,
        h("h2", {}, `Week ${report.from || ""} – ${report.through || ""}`),
        h("p", {}, `Worked ${formatDuration(worked)} of ${formatDuration(planned)} planned (${formatDuration(worked - planned, true)}).`),
        h(
          "div",
          { class: "versus", role: "img", "aria-label": `Worked ${formatDuration(worked)} against ${formatDuration(planned)} planned` },
          h("div", { class: "versus-row" }, h("span", { class: "versus-label" }, "Worked"), h("span", { class: "versus-track" }, barSpan("versus-bar series-0", worked / scale)), h("span", { class: "versus-value" }, formatDuration(worked))),
          h("div", { class: "versus-row" }, h("span", { class: "versus-label" }, "Planned"), h("span", { class: "versus-track" }, barSpan("versus-bar series-1", planned / scale)), h("span", { class: "versus-value" }, formatDuration(planned)))
        ),
        chartBox
      );
      const days = report.days || [];
      if (days.length) {
        replace(
          chartBox,
          Charts.bars({
            labels: days.map((day) => day.date),
            series: [
              { name: "worked (h)", values: days.map((day) => (Number(day.workedSeconds) || 0) / 3600) },
              { name: "planned (h)", values: days.map((day) => (Number(day.plannedSeconds) || 0) / 3600) },
            ],
            stacked: false,
            height: 180,
            width: chartWidth(chartBox),
            labelFormat: (label, full) => (full ? label : weekdayName(label)),
            format: (hours) => formatDuration(hours * 3600),
            ariaLabel: `Hours worked and planned per day of the week from ${report.from}: ${formatDuration(worked)} worked, ${formatDuration(planned)} planned`,
          })
        );
      }
    } else {
      replace(week, h("h2", {}, "Week"), errorBox(weekResult.reason));
    }

    // Team (admins; others see the 403 here).
    if (teamResult.status === "fulfilled") {
      const users = teamResult.value.users || [];
      replace(
        team,
        tableWrap(
          h(
            "table",
            { id: "work-team", class: "data-table" },
            h("caption", { class: "visually-hidden" }, `Team work in ${month}`),
            headRow(["User", { label: "Worked", num: true }, { label: "Breaks", num: true }, { label: "Planned", num: true }, { label: "Overtime", num: true }, { label: "Days", num: true }]),
            h(
              "tbody",
              {},
              users.map((user) =>
                h(
                  "tr",
                  { dataset: { uid: user.uid } },
                  h("th", { scope: "row" }, h("a", { href: links.work(user.uid, month) }, user.uid)),
                  numCell(formatDuration(user.workedSeconds), { class: "worked", dataset: { seconds: user.workedSeconds || 0 } }),
                  numCell(formatDuration(user.breakSeconds), { class: "break", dataset: { seconds: user.breakSeconds || 0 } }),
                  numCell(formatDuration(user.plannedSeconds), { class: "planned", dataset: { seconds: user.plannedSeconds || 0 } }),
                  numCell(formatDuration(user.overtimeSeconds, true), { class: "overtime", dataset: { seconds: user.overtimeSeconds || 0 } }),
                  numCell(String(user.daysWorked || 0), { class: "days" })
                )
              )
            )
          ),
          "Team work"
        ),
        users.length ? null : h("p", { class: "muted" }, "No one recorded work this month.")
      );
    } else {
      replace(team, h("div", { id: "work-team", class: "error-slot" }, errorBox(teamResult.reason)));
    }
  }

  function barSpan(className, fraction) {
    const bar = h("span", { class: className });
    bar.style.width = `${Math.max(0, Math.min(1, fraction)) * 100}%`;
    return bar;
  }

  const weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

  function weekdayName(date) {
    const parsed = new Date(`${date}T12:00:00Z`);
    if (Number.isNaN(parsed.getTime())) return date;
    return weekdayNames[(parsed.getUTCDay() + 6) % 7];
  }

  /// The month as weeks (Monday first), a `td[data-date]` per day with worked and break time and a bar.
  function calendar(year, month, report) {
    const byDate = new Map((report.days || []).map((day) => [String(day.date), day]));
    const first = new Date(year, month - 1, 1);
    const daysInMonth = new Date(year, month, 0).getDate();
    const lead = (first.getDay() + 6) % 7;
    const today = localDate(new Date());
    const scale = Math.max(1, ...(report.days || []).map((day) => Math.max(Number(day.workedSeconds) || 0, Number(day.plannedSeconds) || 0)));
    const rows = [];
    let cells = [];
    for (let index = 0; index < lead; index += 1) cells.push(h("td", { class: "outside", "aria-hidden": "true" }));
    for (let day = 1; day <= daysInMonth; day += 1) {
      const date = `${year}-${pad(month)}-${pad(day)}`;
      const row = byDate.get(date) || {};
      const worked = Number(row.workedSeconds) || 0;
      const breaks = Number(row.breakSeconds) || 0;
      const planned = Number(row.plannedSeconds) || 0;
      const details = [date];
      if (row.status) details.push(`status ${row.status}`);
      if (row.start) details.push(`${formatClock(row.start, report.timeZone)}–${row.end ? formatClock(row.end, report.timeZone) : "…"}`);
      details.push(`worked ${formatDuration(worked)}`, `breaks ${formatDuration(breaks)}`, `planned ${formatDuration(planned)}`);
      if (Array.isArray(row.notes) && row.notes.length) details.push(`notes: ${row.notes.join("; ")}`);
      const weekday = (lead + day - 1) % 7;
      const classes = ["day"];
      if (weekday >= 5) classes.push("weekend");
      if (date === today) classes.push("today");
      if (worked > 0) classes.push("worked");
      const bar = h("span", { class: "day-bar", "aria-hidden": "true" }, barSpan("day-bar-fill", worked / scale));
      if (planned > 0) {
        const mark = h("span", { class: "day-bar-plan" });
        mark.style.left = `${Math.min(1, planned / scale) * 100}%`;
        bar.append(mark);
      }
      cells.push(
        h(
          "td",
          {
            class: classes.join(" "),
            dataset: { date, worked, break: breaks, planned, status: row.status || null },
            title: details.join(" · "),
            "aria-current": date === today ? "date" : null,
          },
          h("span", { class: "day-number" }, String(day)),
          worked > 0 || planned > 0 ? h("span", { class: "day-worked" }, formatDuration(worked)) : h("span", { class: "day-worked muted" }, "–"),
          breaks > 0 ? h("span", { class: "day-break" }, `break ${formatDuration(breaks)}`) : null,
          bar,
          h("span", { class: "visually-hidden" }, details.slice(1).join(", "))
        )
      );
      if (cells.length === 7) {
        rows.push(h("tr", {}, cells));
        cells = [];
      }
    }
    if (cells.length) {
      while (cells.length < 7) cells.push(h("td", { class: "outside", "aria-hidden": "true" }));
      rows.push(h("tr", {}, cells));
    }
    return h(
      "table",
      { id: "work-calendar", class: "calendar" },
      h("caption", { class: "visually-hidden" }, `Work of ${report.uid || ""} in ${year}-${pad(month)}, weeks from Monday`),
      h("thead", {}, h("tr", {}, weekdayNames.map((name) => h("th", { scope: "col" }, name)))),
      h("tbody", {}, rows)
    );
  }

  // ---------------------------------------------------------------------------------------------------------------
  // System

  async function renderSystem(context, root) {
    root.append(pageHeading("System", "Modules, engines, health, the event bus and plugins."));
    const data = await api("GET", "/v1/system");
    if (!context.alive()) return;
    const modules = data.modules || [];
    const plugins = data.plugins || [];
    const badge = (healthy) => h("span", { class: `badge ${healthy ? "ok" : "bad"}` }, healthy ? "healthy" : "unhealthy");
    const details = (value) => {
      if (!value || typeof value !== "object") return value ? String(value) : "";
      const entries = Object.entries(value);
      if (!entries.length) return "";
      return h("dl", { class: "kv" }, entries.map(([key, item]) => [h("dt", {}, key), h("dd", {}, typeof item === "string" ? item : JSON.stringify(item))]));
    };
    root.append(
      h(
        "section",
        { class: "card", "aria-labelledby": "about-title" },
        h("h2", { id: "about-title" }, "This server"),
        h(
          "dl",
          { class: "facts" },
          h("dt", {}, "Version"),
          h("dd", { id: "system-version" }, data.version || ""),
          h("dt", {}, "Data directory"),
          h("dd", { id: "system-data-dir" }, h("code", {}, data.dataDirectory || "")),
          h("dt", {}, "Configuration"),
          h("dd", { id: "system-config" }, data.configurationFile ? h("code", {}, data.configurationFile) : "none (embedded defaults)"),
          data.healthy !== undefined ? [h("dt", {}, "Overall"), h("dd", { id: "system-healthy" }, badge(Boolean(data.healthy)))] : null
        )
      ),
      h(
        "section",
        { class: "card", "aria-labelledby": "modules-title" },
        h("h2", { id: "modules-title" }, "Modules"),
        tableWrap(
          h(
            "table",
            { id: "system-modules", class: "data-table" },
            h("caption", { class: "visually-hidden" }, "Modules"),
            headRow(["Module", "Engine", "Location", "Health", "Status", "Details"]),
            h(
              "tbody",
              {},
              modules.map((module) =>
                h(
                  "tr",
                  { dataset: { module: module.name, healthy: module.healthy ? "true" : "false" } },
                  h("th", { scope: "row" }, module.name),
                  h("td", { class: "engine" }, module.engine || ""),
                  h("td", { class: "location" }, h("code", {}, module.location || "")),
                  h("td", { class: "health" }, module.health || ""),
                  h("td", { class: "healthy" }, badge(Boolean(module.healthy))),
                  h("td", { class: "details" }, details(module.details))
                )
              )
            )
          ),
          "Modules"
        )
      ),
      h(
        "section",
        { class: "card", "aria-labelledby": "bus-title" },
        h("h2", { id: "bus-title" }, "Event bus"),
        h(
          "p",
          { id: "system-bus", dataset: { dropped: Number((data.bus || {}).dropped) || 0 } },
          `In-process and bounded: ${plural(Number((data.bus || {}).dropped) || 0, "event")} dropped in this process.`,
          h("span", { class: "muted" }, " Consumers that must see every change read the change log.")
        )
      ),
      h(
        "section",
        { class: "card", "aria-labelledby": "plugins-title" },
        h("h2", { id: "plugins-title" }, "Plugins"),
        tableWrap(
          h(
            "table",
            { id: "system-plugins", class: "data-table" },
            h("caption", { class: "visually-hidden" }, "Plugins"),
            headRow(["Plugin", "Version", "Engines", "File or error"]),
            h(
              "tbody",
              {},
              plugins.length
                ? plugins.map((result) => {
                    const plugin = result.plugin || {};
                    const failure = result.error;
                    return h(
                      "tr",
                      { dataset: { plugin: plugin.name || result.reference || "" }, class: failure ? "failed" : null },
                      h("th", { scope: "row" }, plugin.name || result.reference || ""),
                      h("td", {}, plugin.version || "–"),
                      h("td", {}, (plugin.engines || []).map((engine) => `${engine.kind}: ${engine.name}`).join(", ") || "–"),
                      h(
                        "td",
                        {},
                        failure
                          ? errorBox(new ApiError(0, failure.code || "pluginError", failure.message || "the plugin did not load", failure.hint), { role: null })
                          : h("code", {}, plugin.path || "")
                      )
                    );
                  })
                : h("tr", { class: "empty" }, h("td", { colspan: "4" }, "No plugins configured."))
            )
          ),
          "Plugins"
        )
      )
    );
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Start

  async function boot() {
    $("signout").addEventListener("click", signOut);
    $("skip-link").addEventListener("click", (event) => {
      event.preventDefault();
      const target = $("page-title") || page;
      target.focus();
      target.scrollIntoView({ block: "start" });
    });
    // A hash navigation marks the page not ready at once (the Navigation API's navigate event is synchronous), so
    // nobody reads the old page as the new one's until hashchange renders it.
    if (window.navigation && typeof window.navigation.addEventListener === "function") {
      window.navigation.addEventListener("navigate", (event) => {
        if (!state.session || !event.hashChange || !event.destination) return;
        if (event.destination.url !== location.href) setReady(false);
      });
    }
    window.addEventListener("hashchange", () => {
      if (location.hash.startsWith("#token=")) signInFromHash();
      else if (state.session) route();
    });

    if (location.hash.startsWith("#token=")) {
      await signInFromHash();
      return;
    }
    try {
      const session = await api("GET", "/v1/session");
      signedIn(session);
    } catch (error) {
      showSignIn(error.status === 401 ? null : error);
    }
  }

  /// A console link's `#token=…`: off the address bar at once, then redeemed.
  async function signInFromHash() {
    const token = decodeSegment(location.hash.slice("#token=".length));
    history.replaceState(null, "", "/console");
    state.navigation += 1;
    setReady(false);
    try {
      const session = await api("POST", "/v1/session", { signIn: token });
      history.replaceState(null, "", "/console#/documents");
      signedIn(session);
    } catch (error) {
      showSignIn(error);
    }
  }

  let booted = false;
  function start() {
    if (booted) return;
    booted = true;
    boot();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
