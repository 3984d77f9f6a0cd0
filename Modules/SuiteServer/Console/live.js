// Suite console: live changes, one EventSource (/v1/changes/stream) while a collection or a document is shown.
"use strict";

(function () {
  const S = window.SuiteConsole;
  const { h, $, pad, encodePath, links, api, state } = S;

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

  Object.assign(S, { live, liveSection, startLive, refreshLater });
})();
