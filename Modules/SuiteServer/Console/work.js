// Suite console: work (#/work/UID/MONTH), the month's totals and calendar, the week and the team.
"use strict";

(function () {
  const S = window.SuiteConsole;
  const {
    h, replace, numCell, tableWrap, headRow, formatDuration, pad, localDate, localMonth, formatClock, links, api,
    errorBox, Charts, chartWidth, state, pageHeading,
  } = S;

  // ---------------------------------------------------------------------------------------------------------------
  // Work

  function validMonth(text) {
    return typeof text === "string" && /^\d{4}-(0[1-9]|1[0-2])$/.test(text);
  }

  async function renderWork(context, root, uidParam, monthParam) {
    const now = new Date();
    const uid = uidParam || state.session.uid;
    const month = validMonth(monthParam) ? monthParam : localMonth(now);
    const userInput = h("input", { id: "work-user", type: "text", autocomplete: "off", spellcheck: "false", value: uid });
    const monthInput = h("input", { id: "work-month", type: "month", value: month, pattern: "\\d{4}-\\d{2}" });
    const form = h(
      "form",
      { class: "toolbar", id: "work-form" },
      h("div", { class: "field" }, h("label", { for: "work-user" }, "User"), userInput),
      h("div", { class: "field" }, h("label", { for: "work-month" }, "Month"), monthInput),
      h("div", { class: "field" }, h("button", { type: "submit", id: "work-show" }, "Show"))
    );
    const totals = h("section", { id: "work-month-totals", class: "card totals", "aria-live": "polite" });
    const calendarSlot = h("div", { id: "work-calendar-slot" });
    const week = h("section", { id: "work-week", class: "card" });
    const team = h("div", { id: "work-team-slot" });
    root.append(
      pageHeading("Work", `${uid} · ${month}`),
      form,
      totals,
      h("section", { class: "card", "aria-labelledby": "calendar-title" }, h("h2", { id: "calendar-title" }, "Month"), calendarSlot),
      week,
      h("section", { class: "card", "aria-labelledby": "team-title" }, h("h2", { id: "team-title" }, `Team · ${month}`), team)
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const nextUid = userInput.value.trim() || state.session.uid;
      const nextMonth = validMonth(monthInput.value) ? monthInput.value : month;
      // Navigate at once (not on the next hashchange), so the page is never "ready" with the old month.
      const target = links.work(nextUid, nextMonth);
      if (location.hash !== target) history.pushState(null, "", target);
      S.route();
    });

    const [year, monthNumber] = month.split("-").map(Number);
    const isCurrent = month === localMonth(now);
    const weekDay = isCurrent ? localDate(now) : `${month}-01`;
    const [monthResult, weekResult, teamResult] = await Promise.allSettled([
      api("GET", `/v1/work/${encodeURIComponent(uid)}/month/${month}`),
      api("GET", `/v1/work/${encodeURIComponent(uid)}/week/${weekDay}`),
      api("GET", `/v1/work/team/${month}`),
    ]);
    if (!context.alive()) return;

    // Month: totals and the calendar.
    if (monthResult.status === "fulfilled") {
      const report = monthResult.value;
      totals.dataset.worked = String(report.workedSeconds || 0);
      totals.dataset.planned = String(report.plannedSeconds || 0);
      totals.dataset.overtime = String(report.overtimeSeconds || 0);
      totals.dataset.break = String(report.breakSeconds || 0);
      const stat = (label, value, cls) => h("div", { class: `stat ${cls}` }, h("dt", {}, label), h("dd", {}, value));
      replace(
        totals,
        h("h2", { class: "visually-hidden" }, "Month totals"),
        h(
          "dl",
          { class: "stats" },
          stat("Worked", formatDuration(report.workedSeconds), "worked"),
          stat("Planned", formatDuration(report.plannedSeconds), "planned"),
          stat("Overtime", formatDuration(report.overtimeSeconds, true), `overtime ${report.overtimeSeconds < 0 ? "negative" : "positive"}`),
          stat("Breaks", formatDuration(report.breakSeconds), "breaks"),
          stat("Days worked", String(report.daysWorked || 0), "days")
        ),
        report.timeZone ? h("p", { class: "muted" }, `Times in ${report.timeZone}.`) : null
      );
      replace(calendarSlot, tableWrap(calendar(year, monthNumber, report), `Work calendar ${month}`));
    } else {
      replace(totals, errorBox(monthResult.reason));
      replace(calendarSlot, h("p", { class: "muted" }, "No calendar without the month's report."));
    }

    // Week: worked against planned.
    if (weekResult.status === "fulfilled") {
      const report = weekResult.value;
      week.dataset.worked = String(report.workedSeconds || 0);
      week.dataset.planned = String(report.plannedSeconds || 0);
      const worked = Number(report.workedSeconds) || 0;
      const planned = Number(report.plannedSeconds) || 0;
      const scale = Math.max(worked, planned, 1);
      const chartBox = h("div", { class: "chart-container", id: "work-week-chart" });
      replace(
        week,
        h("h2", {}, `Week ${report.from || ""} – ${report.through || ""}`),
        h("p", {}, `Worked ${formatDuration(worked)} of ${formatDuration(planned)} planned (${formatDuration(worked - planned, true)}).`),
        h(
          "div",
          { class: "versus", role: "img", "aria-label": `Worked ${formatDuration(worked)} against ${formatDuration(planned)} planned` },
          h("div", { class: "versus-row" }, h("span", { class: "versus-label" }, "Worked"), h("span", { class: "versus-track" }, barSpan("versus-bar series-0", worked / scale)), h("span", { class: "versus-value" }, formatDuration(worked))),
          h("div", { class: "versus-row" }, h("span", { class: "versus-label" }, "Planned"), h("span", { class: "versus-track" }, barSpan("versus-bar series-1", planned / scale)), h("span", { class: "versus-value" }, formatDuration(planned)))
        ),
        chartBox
      );
      const days = report.days || [];
      if (days.length) {
        replace(
          chartBox,
          Charts.bars({
            labels: days.map((day) => day.date),
            series: [
              { name: "worked (h)", values: days.map((day) => (Number(day.workedSeconds) || 0) / 3600) },
              { name: "planned (h)", values: days.map((day) => (Number(day.plannedSeconds) || 0) / 3600) },
            ],
            stacked: false,
            height: 180,
            width: chartWidth(chartBox),
            labelFormat: (label, full) => (full ? label : weekdayName(label)),
            format: (hours) => formatDuration(hours * 3600),
            ariaLabel: `Hours worked and planned per day of the week from ${report.from}: ${formatDuration(worked)} worked, ${formatDuration(planned)} planned`,
          })
        );
      }
    } else {
      replace(week, h("h2", {}, "Week"), errorBox(weekResult.reason));
    }

    // Team (admins; others see the 403 here).
    if (teamResult.status === "fulfilled") {
      const users = teamResult.value.users || [];
      replace(
        team,
        tableWrap(
          h(
            "table",
            { id: "work-team", class: "data-table" },
            h("caption", { class: "visually-hidden" }, `Team work in ${month}`),
            headRow(["User", { label: "Worked", num: true }, { label: "Breaks", num: true }, { label: "Planned", num: true }, { label: "Overtime", num: true }, { label: "Days", num: true }]),
            h(
              "tbody",
              {},
              users.map((user) =>
                h(
                  "tr",
                  { dataset: { uid: user.uid } },
                  h("th", { scope: "row" }, h("a", { href: links.work(user.uid, month) }, user.uid)),
                  numCell(formatDuration(user.workedSeconds), { class: "worked", dataset: { seconds: user.workedSeconds || 0 } }),
                  numCell(formatDuration(user.breakSeconds), { class: "break", dataset: { seconds: user.breakSeconds || 0 } }),
                  numCell(formatDuration(user.plannedSeconds), { class: "planned", dataset: { seconds: user.plannedSeconds || 0 } }),
                  numCell(formatDuration(user.overtimeSeconds, true), { class: "overtime", dataset: { seconds: user.overtimeSeconds || 0 } }),
                  numCell(String(user.daysWorked || 0), { class: "days" })
                )
              )
            )
          ),
          "Team work"
        ),
        users.length ? null : h("p", { class: "muted" }, "No one recorded work this month.")
      );
    } else {
      replace(team, h("div", { id: "work-team", class: "error-slot" }, errorBox(teamResult.reason)));
    }
  }

  function barSpan(className, fraction) {
    const bar = h("span", { class: className });
    bar.style.width = `${Math.max(0, Math.min(1, fraction)) * 100}%`;
    return bar;
  }

  const weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

  function weekdayName(date) {
    const parsed = new Date(`${date}T12:00:00Z`);
    if (Number.isNaN(parsed.getTime())) return date;
    return weekdayNames[(parsed.getUTCDay() + 6) % 7];
  }

  /// The month as weeks (Monday first), a `td[data-date]` per day with worked and break time and a bar.
  function calendar(year, month, report) {
    const byDate = new Map((report.days || []).map((day) => [String(day.date), day]));
    const first = new Date(year, month - 1, 1);
    const daysInMonth = new Date(year, month, 0).getDate();
    const lead = (first.getDay() + 6) % 7;
    const today = localDate(new Date());
    const scale = Math.max(1, ...(report.days || []).map((day) => Math.max(Number(day.workedSeconds) || 0, Number(day.plannedSeconds) || 0)));
    const rows = [];
    let cells = [];
    for (let index = 0; index < lead; index += 1) cells.push(h("td", { class: "outside", "aria-hidden": "true" }));
    for (let day = 1; day <= daysInMonth; day += 1) {
      const date = `${year}-${pad(month)}-${pad(day)}`;
      const row = byDate.get(date) || {};
      const worked = Number(row.workedSeconds) || 0;
      const breaks = Number(row.breakSeconds) || 0;
      const planned = Number(row.plannedSeconds) || 0;
      const details = [date];
      if (row.status) details.push(`status ${row.status}`);
      if (row.start) details.push(`${formatClock(row.start, report.timeZone)}–${row.end ? formatClock(row.end, report.timeZone) : "…"}`);
      details.push(`worked ${formatDuration(worked)}`, `breaks ${formatDuration(breaks)}`, `planned ${formatDuration(planned)}`);
      if (Array.isArray(row.notes) && row.notes.length) details.push(`notes: ${row.notes.join("; ")}`);
      const weekday = (lead + day - 1) % 7;
      const classes = ["day"];
      if (weekday >= 5) classes.push("weekend");
      if (date === today) classes.push("today");
      if (worked > 0) classes.push("worked");
      const bar = h("span", { class: "day-bar", "aria-hidden": "true" }, barSpan("day-bar-fill", worked / scale));
      if (planned > 0) {
        const mark = h("span", { class: "day-bar-plan" });
        mark.style.left = `${Math.min(1, planned / scale) * 100}%`;
        bar.append(mark);
      }
      cells.push(
        h(
          "td",
          {
            class: classes.join(" "),
            dataset: { date, worked, break: breaks, planned, status: row.status || null },
            title: details.join(" · "),
            "aria-current": date === today ? "date" : null,
          },
          h("span", { class: "day-number" }, String(day)),
          worked > 0 || planned > 0 ? h("span", { class: "day-worked" }, formatDuration(worked)) : h("span", { class: "day-worked muted" }, "–"),
          breaks > 0 ? h("span", { class: "day-break" }, `break ${formatDuration(breaks)}`) : null,
          bar,
          h("span", { class: "visually-hidden" }, details.slice(1).join(", "))
        )
      );
      if (cells.length === 7) {
        rows.push(h("tr", {}, cells));
        cells = [];
      }
    }
    if (cells.length) {
      while (cells.length < 7) cells.push(h("td", { class: "outside", "aria-hidden": "true" }));
      rows.push(h("tr", {}, cells));
    }
    return h(
      "table",
      { id: "work-calendar", class: "calendar" },
      h("caption", { class: "visually-hidden" }, `Work of ${report.uid || ""} in ${year}-${pad(month)}, weeks from Monday`),
      h("thead", {}, h("tr", {}, weekdayNames.map((name) => h("th", { scope: "col" }, name)))),
      h("tbody", {}, rows)
    );
  }

  Object.assign(S, { renderWork });
})();
