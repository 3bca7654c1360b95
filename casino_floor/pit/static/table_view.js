// One table's live view for the pit, read-only: the dealer display's own rendering of the snapshot the
// table publishes on the feed, with no command, no acknowledgement and nothing sent back.
import { renderTable } from "/display/table.js";
import { applyStaticText as applyTableText } from "/display/text.js";
import { $, runPage, withQuery } from "./dom.js";
import { renderSeance, SeanceTrail } from "./seance_chart.js";
import { applyStaticText, t } from "./text.js";

const params = new URLSearchParams(location.search);
const tableId = decodeURIComponent(location.pathname.split("/").pop());
const state = { snapshot: null, connection: "connecting", seance: new SeanceTrail() };

function render() {
  applyTableText();
  applyStaticText();
  document.body.dataset.connection = state.connection;
  $("back").textContent = t("back");
  $("back").setAttribute("href", withQuery("/", params));
  $("pit-banner").textContent = t("read_only");
  $("connection-banner").textContent = state.connection === "connected" ? "" : t(state.connection);
  $("waiting").hidden = state.snapshot !== null;
  $("waiting").textContent = t("waiting_table", { table: tableId });
  if (state.snapshot) {
    renderTable(state.snapshot, { role: "pit", recall: null, connected: state.connection === "connected", busy: false, supervisor: false });
  }
  renderSeance($("seance-panel"), state.seance);
  document.title = t("table_title", { table: tableId });
}

function receive(message) {
  if (message.type !== "table" || message.table_id !== tableId) return false;
  state.snapshot = message.snapshot || null;
  state.seance.see(state.snapshot); // the séance's figures and its chart, a point a round
  document.body.dataset.seq = state.snapshot ? String(state.snapshot.seq) : "";
  return true;
}

runPage(params, tableId, state, receive, render);
