// Suite console: analytics (#/analytics), events per day and per name, and the delivery queue.
"use strict";

(function () {
  const S = window.SuiteConsole;
  const {
    h, replace, numCell, tableWrap, headRow, formatCount, api, errorBox, Charts, chartWidth, state, busy, pageHeading,
    daysSelect, shortDay,
  } = S;

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

  Object.assign(S, { renderAnalytics });
})();
