// Suite console: storage (#/storage), a group (#/storage/group/ID) and the cleanup form.
"use strict";

(function () {
  const S = window.SuiteConsole;
  const {
    h, replace, numCell, tableWrap, headRow, plural, formatBytes, formatCount, links, api, errorBox, Charts,
    chartWidth, confirmDialog, setReady, pageHeading,
  } = S;

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

  Object.assign(S, { renderStorage, renderGroup });
})();
