// Suite console: document values (the tagged JSON of docs/api.md), the collections, a collection's documents and
// the new-document form.
"use strict";

(function () {
  const S = window.SuiteConsole;
  const {
    h, replace, numCell, tableWrap, headRow, plural, formatDateTime, timeElement, segments, encodePath, lastSegment,
    parentPath, isDocumentPath, links, api, errorBox, localError, state, busy, pageHeading, liveSection, startLive,
    refreshLater,
  } = S;

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
  // Documents: the collections, a collection

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
      S.querySection(context, "")
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

  Object.assign(S, {
    fieldType, valueNode, breadcrumbs, renderCollections, documentTable, documentRow, flash, renderCollection,
  });
})();
