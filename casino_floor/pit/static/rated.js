// The rated players seated at each table (the tables' `ratings` channel, casino_floor/pit/rated_players.py): the
// pseudonym or "anonymous box N", the box, the time played, the average bet, theo and skill theo. A click on the
// Theo or Skill theo header sorts every table by it, highest first; a second click, lowest first.
import { $, el } from "./dom.js";
import { lang, money, t } from "./text.js";

const COLUMNS = [
  ["player", "rated_player", null],
  ["box", "rated_box", null],
  ["time", "rated_time", null],
  ["average-bet", "rated_average_bet", null],
  ["theo", "rated_theo", "theo_cents"],
  ["theo-skill", "rated_theo_skill", "theo_skill_cents"],
];
const sort = { key: null, descending: true }; // null: by box
const blocks = new Map(); // table id -> its block, made once (its headers keep the clicks)
let shown = "";

function duration(seconds) {
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return t("duration_minutes", { m: minutes });
  return t("duration_hours", { h: Math.floor(minutes / 60), mm: String(minutes % 60).padStart(2, "0") });
}

function header([name, label, key]) {
  if (!key) return el("th", { class: name, "data-text": label });
  return el("th", { class: name, "data-sort-key": key }, el("button", { type: "button", "data-text": label }));
}

function blockOf(tableId) {
  let block = blocks.get(tableId);
  if (!block) {
    block = el("div", { class: "rated-table", "data-table": tableId },
      el("h3", { class: "rated-table-id" }),
      el("table", {}, el("thead", {}, el("tr", {}, ...COLUMNS.map(header))), el("tbody", {})));
    blocks.set(tableId, block);
  }
  return block;
}

function row(player) {
  return el("tr", { "data-session": player.session, "data-player": player.player || "" },
    el("td", { class: "player", text: player.player || t("rated_anonymous", { box: player.box }) }),
    el("td", { class: "box", text: String(player.box) }),
    el("td", { class: "time", text: duration(player.seconds_played) }),
    el("td", { class: "average-bet", text: money(player.average_bet_cents) }),
    el("td", { class: "theo", text: money(player.theo_cents) }),
    el("td", { class: "theo-skill", text: money(player.theo_skill_cents) }));
}

function ordered(players) {
  if (!sort.key) return players;
  const sign = sort.descending ? -1 : 1;
  return [...players].sort((a, b) => sign * (a[sort.key] - b[sort.key]) || a.box - b.box);
}

export function renderRated(rated) {
  const signature = lang() + JSON.stringify(sort) + JSON.stringify(rated);
  if (signature === shown) return;
  shown = signature;
  const list = $("rated");
  const nodes = rated.map((table) => {
    const block = blockOf(table.table_id);
    block.querySelector(".rated-table-id").textContent = t("rated_table", { table: table.table_id });
    block.dataset.sort = sort.key ? `${sort.key}-${sort.descending ? "desc" : "asc"}` : "box";
    for (const th of block.querySelectorAll("th[data-sort-key]")) {
      if (th.dataset.sortKey === sort.key) th.setAttribute("aria-sort", sort.descending ? "descending" : "ascending");
      else th.removeAttribute("aria-sort");
    }
    block.querySelector("tbody").replaceChildren(...ordered(table.players).map(row));
    return block;
  });
  if (nodes.length === 0) list.replaceChildren(el("p", { class: "none", text: t("rated_none") }));
  else if (nodes.some((node, index) => list.children[index] !== node) || list.children.length !== nodes.length) {
    list.replaceChildren(...nodes);
  }
}

// One listener for every table's headers: the blocks keep their nodes, so a click between two pictures lands.
export function sortOnClick(render) {
  $("rated").addEventListener("click", (event) => {
    const th = event.target.closest("th[data-sort-key]");
    if (!th) return;
    sort.descending = sort.key === th.dataset.sortKey ? !sort.descending : true;
    sort.key = th.dataset.sortKey;
    render();
  });
}
