// Suite console: system (#/system), modules, engines, health, the event bus and plugins.
"use strict";

(function () {
  const S = window.SuiteConsole;
  const { h, tableWrap, headRow, plural, ApiError, api, errorBox, pageHeading } = S;

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

  Object.assign(S, { renderSystem });
})();
