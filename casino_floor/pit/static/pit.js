// The pit overview: every table at a glance, the pit's open alarms, the shift's figures. Read-only.
import { $, el, runPage, withQuery } from "./dom.js";
import { renderDealers } from "./dealers.js";
import { renderRated, sortOnClick } from "./rated.js";
import { applyStaticText, hold, lang, money, t, tableText } from "./text.js";

const params = new URLSearchParams(location.search);
const state = { overview: null, connection: "connecting" };

function status(table) {
  if (table.online === true) return "online";
  if (table.online === false) return "offline";
  return "unknown";
}

// A screen that changes several times a second keeps its nodes and changes their text only: a card rebuilt
// between a press and a release would swallow the click that opens the table.
function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

function setData(node, name, value) {
  if (node.dataset[name] !== value) node.dataset[name] = value;
}

// The shift's money as finance names it (casino_floor/money.py): handle (every stake), drop (the buy-ins: cash and
// markers exchanged for chips at the table), win (the house's), hold (win / drop) and win / handle.
const FIGURES = [
  ["handle", "handle", (item) => money(item.handle_cents)],
  ["drop", "drop", (item) => money(item.drop_cents)],
  ["win", "win", (item) => money(item.win_cents)],
  ["hold", "hold", (item) => hold(item.hold_pct)],
  ["win_handle", "win-handle", (item) => hold(item.win_to_handle_pct)],
];

function figuresNode() {
  return el(
    "dl",
    { class: "figures" },
    ...FIGURES.map(([label, name]) => el("div", { class: "figure" }, el("dt", { "data-text": label }), el("dd", { class: name }))),
  );
}

function showFigures(node, item) {
  for (const [, name, text] of FIGURES) setText(node.querySelector("." + name), text(item));
}

function alarmRow(alarm) {
  return el(
    "li",
    { class: "alarm", "data-table": alarm.table_id, "data-kind": alarm.kind, "data-supervisor": alarm.supervisor ? "yes" : "no",
      "data-acknowledged": alarm.acknowledged ? "yes" : "no" },
    el("a", { class: "alarm-table", href: withQuery(`/table/${encodeURIComponent(alarm.table_id)}`, params),
              text: t("alarm_table", { table: alarm.table_id }) }),
    el("b", { class: "alarm-kind", text: alarm.source === "floor" ? t("floor_alarm_" + alarm.kind)
                                                                   : tableText("alarm_" + alarm.kind, alarm.kind) }),
    alarm.box ? el("span", { class: "alarm-box", text: t("alarm_box", { box: alarm.box }) }) : null,
    alarm.supervisor ? el("span", { class: "badge supervisor", text: t("supervisor") }) : null,
    alarm.acknowledged ? el("span", { class: "badge", text: t("acknowledged") }) : null,
    Object.entries(alarm.amounts || {}).map(([name, value]) =>
      el("span", { class: "amount" }, `${tableText("amount_" + name, name)} `,
        el("b", { text: name.endsWith("_cents") ? money(value) : String(value) }))),
  );
}

function shoeText(shoe) {
  if (!shoe || !shoe.shoe_id) return t("shoe_none");
  const parts = [t("shoe", { left: shoe.cards_left })];
  if (shoe.cut_card_reached) parts.push(t("shoe_cut"));
  if (shoe.online === false) parts.push(t("shoe_offline"));
  return parts.join(" · ");
}

const cards = new Map(); // table id -> its card, made once

function cardOf(tableId) {
  let card = cards.get(tableId);
  if (!card) {
    card = el(
      "a",
      { class: "table", href: withQuery(`/table/${encodeURIComponent(tableId)}`, params), "data-table": tableId },
      el("div", { class: "table-head" }, el("span", { class: "table-id", text: tableId }), el("span", { class: "table-status" })),
      el("div", { class: "table-round" }, el("span", { class: "round" }), el("span", { class: "phase" })),
      el("div", { class: "limits small" }),
      el("div", { class: "boxes-in-play" }),
      el("div", { class: "shoe small" }),
      el("div", { class: "devices small" }),
      el("div", { class: "table-alarms" }),
      figuresNode(),
    );
    cards.set(tableId, card);
  }
  return card;
}

function showTable(table) {
  const card = cardOf(table.table_id);
  const devices = Object.entries(table.devices || {});
  const open = (table.alarms || []).filter((alarm) => !alarm.acknowledged);
  setData(card, "status", status(table));
  setData(card, "seq", String(table.seq));
  setData(card, "phase", table.phase || "");
  setData(card, "alarms", String(open.length));
  setData(card, "supervisorAlarm", open.some((alarm) => alarm.supervisor) ? "yes" : "no");
  setText(card.querySelector(".table-status"), t(status(table)));
  setText(card.querySelector(".round"), table.round ? t("round", { round: table.round }) : t("no_round"));
  const phase = card.querySelector(".phase");
  phase.hidden = !table.phase;
  setText(phase, table.phase ? tableText("phase_" + table.phase, table.phase) : "");
  setText(card.querySelector(".limits"),
    table.limits ? t("limits", { min: money(table.limits.min_cents), max: money(table.limits.max_cents) }) : "");
  setText(card.querySelector(".boxes-in-play"), t("boxes_in_play", { n: table.boxes_in_play }));
  setText(card.querySelector(".shoe"), shoeText(table.shoe));
  const shown = card.querySelector(".devices");
  const signature = lang() + JSON.stringify(devices);
  if (shown.dataset.signature !== signature) {
    shown.dataset.signature = signature;
    shown.replaceChildren(
      el("span", { text: t("devices", { online: table.devices_online, total: devices.length }) }),
      ...devices.map(([name, value]) => el("span", { class: "device", "data-device": name, "data-status": value, text: t("device_" + name) })),
    );
  }
  setText(card.querySelector(".table-alarms"), open.length ? t("alarms_count", { n: open.length }) : "");
  showFigures(card, table);
  return card;
}

let shownAlarms = "";

function render() {
  applyStaticText();
  document.title = t("title");
  document.body.dataset.connection = state.connection;
  $("connection-banner").textContent = state.connection === "connected" ? "" : t(state.connection);
  const overview = state.overview;
  if (!overview) return;
  const pit = overview.pit;
  if (!$("pit-totals").firstChild) $("pit-totals").append(el("span", { class: "label", "data-text": "shift" }), figuresNode());
  showFigures($("pit-totals"), pit);
  setText($("tables-online"), t("tables_online", { online: pit.online, total: pit.tables }));
  const alarms = lang() + JSON.stringify(overview.alarms);
  if (alarms !== shownAlarms) {
    shownAlarms = alarms;
    $("alarms").replaceChildren(...(overview.alarms.length ? overview.alarms.map(alarmRow)
      : [el("li", { class: "none", text: t("no_alarms") })]));
  }
  const list = $("tables");
  const shown = overview.tables.map(showTable);
  if (shown.length === 0) list.replaceChildren(el("p", { class: "none", text: t("no_tables") }));
  else if (shown.some((card, index) => list.children[index] !== card) || list.children.length !== shown.length) {
    list.replaceChildren(...shown);
  }
  renderDealers(overview.dealers || []);
  renderRated(overview.rated || []);
  applyStaticText();
  document.body.dataset.tables = String(overview.tables.length);
}

function receive(message) {
  if (message.type !== "overview") return false;
  state.overview = message.overview;
  document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
  return true;
}

sortOnClick(render);
runPage(params, null, state, receive, render);
