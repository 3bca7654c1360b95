// The dealer on shift at each table (the tables' `events` channel, casino_floor/pit/dealers_on_shift.py): his
// employee id (the floor holds no name), his stint's time, rounds, rounds per hour and errors per 100 rounds.
import { $, el } from "./dom.js";
import { lang, t } from "./text.js";

let shown = "";

function duration(seconds) {
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return t("duration_minutes", { m: minutes });
  return t("duration_hours", { h: Math.floor(minutes / 60), mm: String(minutes % 60).padStart(2, "0") });
}

function row(dealer) {
  return el("tr", { "data-table": dealer.table_id, "data-employee": dealer.employee },
    el("td", { class: "table", text: dealer.table_id }),
    el("td", { class: "employee", text: dealer.employee }),
    el("td", { class: "time", text: duration(dealer.seconds) }),
    el("td", { class: "rounds", text: String(dealer.rounds) }),
    el("td", { class: "rounds-per-hour", text: dealer.rounds_per_hour.toFixed(1) }),
    el("td", { class: "errors-per-100", text: dealer.errors_per_100_rounds.toFixed(1) }));
}

export function renderDealers(dealers) {
  const signature = lang() + JSON.stringify(dealers);
  if (signature === shown) return;
  shown = signature;
  if (dealers.length === 0) {
    $("dealers").replaceChildren(el("p", { class: "none", text: t("dealers_none") }));
    return;
  }
  const heads = ["dealers_table", "dealers_employee", "dealers_time", "dealers_rounds", "dealers_rounds_per_hour",
    "dealers_errors_per_100"].map((label) => el("th", { text: t(label) }));
  $("dealers").replaceChildren(el("table", {}, el("thead", {}, el("tr", {}, ...heads)),
    el("tbody", {}, ...dealers.map(row))));
}
