// Suite console: usage and cost (#/usage), and the period select the analytics page shares.
"use strict";

(function () {
  const S = window.SuiteConsole;
  const {
    h, replace, $, numCell, tableWrap, headRow, formatCount, formatCost, api, errorBox, Charts, chartWidth, state,
    busy, pageHeading,
  } = S;

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
    const collectionChart = h("div", { id: "usage-collections-chart", class: "chart-container" });
    const tableSlot = h("div", { id: "usage-table-slot" });
    const errors = h("div", { id: "usage-error" });
    const quotaSlot = h("div", { id: "usage-quotas-slot" });
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
      h("section", { class: "card", "aria-labelledby": "usage-table-title" }, h("h2", { id: "usage-table-title" }, "Per collection"), collectionChart, prices, tableSlot),
      h("section", { class: "card", "aria-labelledby": "usage-quotas-title" }, h("h2", { id: "usage-quotas-title" }, "Quotas (current minute and day)"), quotaSlot)
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
        replace(collectionChart);
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

      const names = collections.map((collection) => collection.collection);
      replace(
        collectionChart,
        collections.length
          ? Charts.bars({
              labels: names,
              series: ["reads", "writes", "deletes"].map((kind) => ({ name: kind, values: collections.map((c) => Number(c[kind]) || 0) })),
              stacked: true,
              width: chartWidth(collectionChart),
              format: formatCount,
              ariaLabel: `Reads, writes and deletes per collection: ${collections.map((c) => `${c.collection} ${c.reads || 0} reads, ${c.writes || 0} writes, ${c.deletes || 0} deletes`).join("; ")}`,
            })
          : null
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

    // Per-user use of the current windows against server.quotas (GET /v1/quotas).
    async function loadQuotas() {
      let quotas;
      try {
        quotas = await api("GET", "/v1/quotas");
      } catch (error) {
        if (context.alive()) replace(quotaSlot, errorBox(error));
        return;
      }
      if (!context.alive()) return;
      if (!quotas.enabled) {
        replace(quotaSlot, h("p", { class: "muted" }, "No quotas are configured (server.quotas)."));
        return;
      }
      const kinds = ["reads", "writes", "deletes"];
      const cell = (entry) => {
        if (!entry) return numCell("—");
        const full = entry.remaining === 0;
        return numCell(`${formatCount(entry.used)} / ${formatCount(entry.limit)}`, full ? { class: "quota-full" } : {});
      };
      const rows = [];
      for (const user of quotas.users || []) {
        for (const window of ["minute", "day"]) {
          rows.push(
            h(
              "tr",
              { dataset: { uid: user.uid, window } },
              h("th", { scope: "row" }, user.uid),
              h("td", {}, `per ${window} (resets in ${(quotas.windows[window] || {}).resetsIn} s)`),
              kinds.map((kind) => cell((user[window] || {})[kind]))
            )
          );
        }
      }
      const table = h(
        "table",
        { id: "usage-quotas-table", class: "data-table" },
        h("caption", { class: "visually-hidden" }, "Documents used and allowed per user in the current windows"),
        headRow(["User", "Window", { label: "Reads", num: true }, { label: "Writes", num: true }, { label: "Deletes", num: true }]),
        h("tbody", {}, rows)
      );
      replace(
        quotaSlot,
        h("p", { class: "muted" }, `Admins are ${quotas.admins}. Used / allowed documents; a 429 answers past the limit.`),
        rows.length ? tableWrap(table, "Quotas per user") : h("p", { class: "muted" }, "No user has used a quota in these windows.")
      );
    }

    await Promise.all([load(), loadQuotas()]);
  }

  Object.assign(S, { daysSelect, shortDay, renderUsage });
})();
