// The pit overview: every table at a glance, the pit's open alarms, the shift's figures. Read-only.
import { $, el, follow, withQuery } from "./dom.js";
import { applyStaticText, hold, money, setLanguage, t, tableText } from "./text.js";

const params = new URLSearchParams(location.search);
const state = { overview: null, connection: "connecting" };

function status(table) {
  if (table.online === true) return "online";
  if (table.online === false) return "offline";
  return "unknown";
}

function figures(item) {
  return el(
    "dl",
    { class: "figures" },
    el("dt", { text: t("drop") }), el("dd", { class: "drop", text: money(item.drop_cents) }),
    el("dt", { text: t("win") }), el("dd", { class: "win", text: money(item.win_cents) }),
    el("dt", { text: t("hold") }), el("dd", { class: "hold", text: hold(item.hold_pct) }),
  );
}

function alarmRow(alarm) {
  return el(
    "li",
    { class: "alarm", "data-table": alarm.table_id, "data-kind": alarm.kind, "data-supervisor": alarm.supervisor ? "yes" : "no",
      "data-acknowledged": alarm.acknowledged ? "yes" : "no" },
    el("a", { class: "alarm-table", href: withQuery(`/table/${encodeURIComponent(alarm.table_id)}`, params),
              text: t("alarm_table", { table: alarm.table_id }) }),
    el("b", { class: "alarm-kind", text: tableText("alarm_" + alarm.kind, alarm.kind) }),
    alarm.box ? el("span", { class: "alarm-box", text: t("alarm_box", { box: alarm.box }) }) : null,
    alarm.supervisor ? el("span", { class: "badge supervisor", text: t("supervisor") }) : null,
    alarm.acknowledged ? el("span", { class: "badge", text: t("acknowledged") }) : null,
    Object.entries(alarm.amounts || {}).map(([name, value]) =>
      el("span", { class: "amount", text: name.endsWith("_cents") ? money(value) : String(value) })),
  );
}

function shoeText(shoe) {
  if (!shoe || !shoe.shoe_id) return t("shoe_none");
  const parts = [t("shoe", { left: shoe.cards_left })];
  if (shoe.cut_card_reached) parts.push(t("shoe_cut"));
  if (shoe.online === false) parts.push(t("shoe_offline"));
  return parts.join(" · ");
}

function tableCard(table) {
  const devices = Object.entries(table.devices || {});
  const limits = table.limits ? t("limits", { min: money(table.limits.min_cents), max: money(table.limits.max_cents) }) : "";
  const open = (table.alarms || []).filter((alarm) => !alarm.acknowledged);
  return el(
    "a",
    { class: "table", href: withQuery(`/table/${encodeURIComponent(table.table_id)}`, params), "data-table": table.table_id,
      "data-status": status(table), "data-phase": table.phase || "", "data-alarms": String(open.length),
      "data-supervisor-alarm": open.some((alarm) => alarm.supervisor) ? "yes" : "no" },
    el("div", { class: "table-head" },
      el("span", { class: "table-id", text: table.table_id }),
      el("span", { class: "table-status", text: t(status(table)) })),
    el("div", { class: "table-round" },
      el("span", { class: "round", text: table.round ? t("round", { round: table.round }) : t("no_round") }),
      table.phase ? el("span", { class: "phase", text: tableText("phase_" + table.phase, table.phase) }) : null),
    el("div", { class: "limits small", text: limits }),
    el("div", { class: "boxes-in-play", text: t("boxes_in_play", { n: table.boxes_in_play, total: table.boxes }) }),
    el("div", { class: "shoe small", text: shoeText(table.shoe) }),
    el("div", { class: "devices small" },
      el("span", { text: t("devices", { online: table.devices_online, total: devices.length }) }),
      devices.map(([name, value]) => el("span", { class: "device", "data-device": name, "data-status": value,
                                                 text: t("device_" + name) }))),
    el("div", { class: "table-alarms", text: open.length ? t("alarms_count", { n: open.length }) : "" }),
    figures(table),
  );
}

function render() {
  applyStaticText();
  document.title = t("title");
  document.body.dataset.connection = state.connection;
  $("connection-banner").textContent = state.connection === "connected" ? "" : t(state.connection);
  const overview = state.overview;
  if (!overview) return;
  const pit = overview.pit;
  $("pit-totals").replaceChildren(el("span", { class: "label", text: t("shift") }), figures(pit));
  $("tables-online").textContent = t("tables_online", { online: pit.online, total: pit.tables });
  $("alarms").replaceChildren(...(overview.alarms.length ? overview.alarms.map(alarmRow)
    : [el("li", { class: "none", text: t("no_alarms") })]));
  $("tables").replaceChildren(...(overview.tables.length ? overview.tables.map(tableCard)
    : [el("p", { class: "none", text: t("no_tables") })]));
  document.body.dataset.tables = String(overview.tables.length);
}

function receive(message) {
  if (message.type === "hello") setLanguage({ floor: message.language });
  else if (message.type === "overview") {
    state.overview = message.overview;
    document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
  } else return;
  render();
}

for (const button of document.querySelectorAll("#lang button")) {
  button.addEventListener("click", () => { setLanguage({ choice: button.dataset.lang }); render(); });
}
if (params.get("lang")) setLanguage({ choice: params.get("lang") });
render();
follow(params, null, receive, (connection) => { state.connection = connection; render(); });
