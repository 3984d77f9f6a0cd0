// Suite console: one document, its fields, the JSON editor, delete, its subcollections and live changes.
"use strict";

(function () {
  const S = window.SuiteConsole;
  const {
    h, replace, tableWrap, headRow, timeElement, encodePath, lastSegment, parentPath, links, api, errorBox, localError,
    confirmDialog, setReady, pageHeading, liveSection, startLive, refreshLater, fieldType, valueNode, breadcrumbs,
    flash,
  } = S;

  // ---------------------------------------------------------------------------------------------------------------
  // A document

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

  Object.assign(S, { renderDocument });
})();
