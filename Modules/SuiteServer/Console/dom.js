// Suite console: the shared helpers every page uses, on window.SuiteConsole: DOM building, formatting, paths and
// routes, the API and its errors, the confirmation dialog, the page's state and readiness.
// Loaded first after charts.js; the pages' files follow and console.js (the entry: router, sign-in, start) is last.
// Each file takes what earlier files put on SuiteConsole when it loads; the few names a file needs from a later one
// (sessionLost, querySection, route) it reads as S.name when it calls them.
"use strict";

(function () {
  const S = (window.SuiteConsole = {});

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
      if (response.status === 401 && !path.startsWith("/v1/session")) S.sessionLost(failure);
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
  // State and readiness

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

  /// Runs a reload inside a page (more rows, another month…): not ready while it runs.
  async function busy(context, work) {
    setReady(false);
    try {
      await work();
    } finally {
      if (context.alive()) setReady(true);
    }
  }

  function pageHeading(text, sub) {
    return h("div", { class: "page-head" }, h("h1", { tabindex: "-1", id: "page-title" }, text), sub ? h("p", { class: "subtitle" }, sub) : null);
  }

  Object.assign(S, {
    h, replace, $, numCell, tableWrap, headRow, plural, formatBytes, formatCount, formatDuration, formatCost, pad,
    localDate, localMonth, formatDateTime, formatClock, timeElement, segments, encodePath, decodeSegment, lastSegment,
    parentPath, isDocumentPath, links, parseRoute, ApiError, api, errorBox, localError, Charts, chartWidth,
    confirmDialog, page, state, setReady, busy, pageHeading,
  });
})();
