// Suite console: the query form with its results and plan (on #/documents and #/query).
"use strict";

(function () {
  const S = window.SuiteConsole;
  const {
    h, replace, tableWrap, plural, segments, api, errorBox, localError, page, state, setReady, pageHeading,
    breadcrumbs, documentTable, documentRow,
  } = S;

  // ---------------------------------------------------------------------------------------------------------------
  // The query

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

  Object.assign(S, { querySection, renderQueryPage });
})();
