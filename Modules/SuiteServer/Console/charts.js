// Suite console: small inline-SVG charts, no libraries. Loaded before console.js; defines window.SuiteCharts.
//
// SuiteCharts.bars({labels, series: [{name, values}], stacked, ariaLabel, format, labelFormat, width, height})
//   vertical bars, a `g[data-label]` per label, series stacked (default) or grouped, a legend for several series.
// SuiteCharts.hbars({items: [{label, value, title, attrs, series}], ariaLabel, format, width})
//   horizontal bars with labels, a `g` per item carrying item.attrs (e.g. data-category).
// Every chart is an <svg> with a viewBox, width 100%, role="img" and an aria-label, and a <title> per bar (tooltips).
// Colours come from CSS classes (series-0 …) so the themes apply. `width` is the drawing's width in CSS pixels (the
// container's), so text keeps a readable size on a phone.
"use strict";

(function () {
  const NS = "http://www.w3.org/2000/svg";

  /// Fills `node` with attributes and text or node children.
  function fill(node, attrs, children) {
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value !== undefined && value !== null && value !== false) node.setAttribute(key, String(value));
    }
    for (const child of children.flat()) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  /// An HTML element with attributes and text or node children.
  function html(name, attrs, ...children) {
    return fill(document.createElement(name), attrs, children);
  }

  /// An SVG element with attributes and text or node children.
  function svg(name, attrs, ...children) {
    return fill(document.createElementNS(NS, name), attrs, children);
  }

  function niceMax(value) {
    if (!(value > 0)) return 1;
    const power = Math.pow(10, Math.floor(Math.log10(value)));
    for (const step of [1, 2, 2.5, 5, 10]) {
      if (value <= step * power * (1 + 1e-9)) return step * power;
    }
    return 10 * power;
  }

  const round = (value) => Math.round(value * 100) / 100;

  /// The drawing width: the container's, so text keeps its size on a phone.
  function drawingWidth(width) {
    const value = Number(width) || 720;
    return Math.max(300, Math.min(1100, Math.round(value)));
  }

  function legend(series) {
    if (series.length < 2) return null;
    return html(
      "ul",
      { class: "chart-legend" },
      series.map((entry, index) => html("li", {}, html("span", { class: `swatch series-${index}`, "aria-hidden": "true" }), entry.name))
    );
  }

  /// Vertical bars, a `g[data-label]` per label; series stacked (default) or grouped.
  function bars(options) {
    const labels = options.labels || [];
    const series = options.series || [];
    const stacked = options.stacked !== false;
    const format = options.format || ((value) => String(value));
    const labelFormat = options.labelFormat || ((label) => String(label));
    const width = drawingWidth(options.width);
    const height = options.height || 220;
    const left = 56;
    const right = 10;
    const top = 12;
    const bottom = 30;
    const plotWidth = width - left - right;
    const plotHeight = height - top - bottom;
    const count = labels.length;
    const valueAt = (entry, index) => Math.max(0, Number(entry.values[index]) || 0);
    const peaks = labels.map((_, index) =>
      stacked
        ? series.reduce((sum, entry) => sum + valueAt(entry, index), 0)
        : series.reduce((peak, entry) => Math.max(peak, valueAt(entry, index)), 0)
    );
    const max = niceMax(Math.max(0, ...peaks));
    const scale = (value) => (value / max) * plotHeight;

    const root = svg("svg", {
      viewBox: `0 0 ${width} ${height}`,
      width: "100%",
      role: "img",
      "aria-label": options.ariaLabel || "Bar chart",
      class: "chart chart-bars",
      preserveAspectRatio: "xMinYMin meet",
    });
    const grid = svg("g", { class: "chart-grid", "aria-hidden": "true" });
    for (const fraction of [0, 0.5, 1]) {
      const y = round(top + plotHeight - fraction * plotHeight);
      grid.append(svg("line", { x1: left, x2: width - right, y1: y, y2: y }));
      grid.append(svg("text", { x: left - 6, y: y + 4, "text-anchor": "end", class: "chart-axis" }, format(max * fraction)));
    }
    root.append(grid);
    if (count === 0 || Math.max(0, ...peaks) === 0) {
      root.append(
        svg(
          "text",
          { x: left + plotWidth / 2, y: top + plotHeight / 2, "text-anchor": "middle", class: "chart-empty" },
          options.emptyText || "Nothing in this period"
        )
      );
    }
    const slot = plotWidth / Math.max(count, 1);
    const groupWidth = Math.max(1, slot * 0.72);
    const barWidth = stacked ? groupWidth : groupWidth / Math.max(series.length, 1);
    const labelEvery = Math.max(1, Math.ceil(count / Math.max(2, Math.floor(plotWidth / 58))));
    labels.forEach((label, index) => {
      const x0 = left + index * slot + (slot - groupWidth) / 2;
      const summary = series.map((entry) => `${entry.name} ${format(valueAt(entry, index))}`).join(", ");
      const group = svg(
        "g",
        { "data-label": label, class: "chart-group" },
        svg("rect", { x: round(left + index * slot), y: top, width: round(slot), height: plotHeight, class: "chart-hit" },
          svg("title", {}, `${labelFormat(label, true)}: ${summary}`))
      );
      let base = top + plotHeight;
      series.forEach((entry, seriesIndex) => {
        const value = valueAt(entry, index);
        const barHeight = scale(value);
        const x = stacked ? x0 : x0 + seriesIndex * barWidth;
        const y = stacked ? base - barHeight : top + plotHeight - barHeight;
        if (stacked) base -= barHeight;
        group.append(
          svg(
            "rect",
            {
              x: round(x),
              y: round(y),
              width: round(Math.max(barWidth - (stacked ? 0 : 1), 0.5)),
              height: round(barHeight),
              class: `bar series-${seriesIndex}`,
              "data-series": entry.name,
              "data-value": value,
            },
            svg("title", {}, `${labelFormat(label, true)} · ${entry.name}: ${format(value)}`)
          )
        );
      });
      if (index % labelEvery === 0) {
        group.append(
          svg(
            "text",
            { x: round(left + index * slot + slot / 2), y: height - bottom + 17, "text-anchor": "middle", class: "chart-axis" },
            labelFormat(label, false)
          )
        );
      }
      root.append(group);
    });
    return html("div", { class: "chart-box" }, root, legend(series));
  }

  /// Horizontal bars with labels, a `g` per item carrying item.attrs (e.g. data-category).
  function hbars(options) {
    const items = options.items || [];
    const format = options.format || ((value) => String(value));
    const width = drawingWidth(options.width);
    const rowHeight = 30;
    const top = 6;
    const longest = Math.max(0, ...items.map((item) => String(item.label).length));
    const labelWidth = Math.min(180, Math.round(width * 0.3), Math.max(48, Math.round(longest * 7.2) + 8));
    const valueWidth = Math.min(120, Math.round(width * 0.24));
    const plotLeft = labelWidth + 10;
    const plotWidth = Math.max(40, width - plotLeft - valueWidth);
    const height = top * 2 + Math.max(items.length, 1) * rowHeight;
    const max = Math.max(0, ...items.map((item) => Number(item.value) || 0)) || 1;
    const root = svg("svg", {
      viewBox: `0 0 ${width} ${height}`,
      width: "100%",
      role: "img",
      "aria-label": options.ariaLabel || "Bar chart",
      class: "chart chart-hbars",
      preserveAspectRatio: "xMinYMin meet",
    });
    if (items.length === 0) {
      root.append(svg("text", { x: width / 2, y: top + rowHeight / 2 + 4, "text-anchor": "middle", class: "chart-empty" }, options.emptyText || "Nothing yet"));
    }
    const maxLabel = Math.max(6, Math.floor(labelWidth / 7.2));
    items.forEach((item, index) => {
      const value = Math.max(0, Number(item.value) || 0);
      const y = top + index * rowHeight;
      const label = String(item.label);
      const shown = label.length > maxLabel ? label.slice(0, maxLabel - 1) + "…" : label;
      const title = item.title || `${label}: ${format(value)}`;
      root.append(
        svg(
          "g",
          Object.assign({ class: "chart-row" }, item.attrs || {}),
          svg("title", {}, title),
          svg("text", { x: labelWidth, y: y + rowHeight / 2 + 4, "text-anchor": "end", class: "chart-label" }, shown),
          svg("rect", { x: plotLeft, y: y + 6, width: plotWidth, height: rowHeight - 12, rx: 3, class: "bar-track" }),
          svg(
            "rect",
            {
              x: plotLeft,
              y: y + 6,
              width: round(value > 0 ? Math.max((value / max) * plotWidth, 1.5) : 0),
              height: rowHeight - 12,
              rx: 3,
              class: `bar series-${item.series || 0}`,
              "data-value": value,
            },
            svg("title", {}, title)
          ),
          svg("text", { x: plotLeft + plotWidth + 6, y: y + rowHeight / 2 + 4, class: "chart-value" }, format(value))
        )
      );
    });
    return html("div", { class: "chart-box" }, root);
  }

  window.SuiteCharts = { bars, hbars, niceMax };
})();
