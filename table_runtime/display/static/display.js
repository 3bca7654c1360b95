// The dealer display: keeps the connection to the controller, renders the snapshots it pushes and
// sends the dealer's touch commands. The server decides roles and checks every command; this page
// only mirrors what it is told. Protocol and snapshot shape: docs/display.md.
import { $, el } from "./dom.js";
import { refusal } from "./alarm.js";
import { buildBuyInDialog } from "./buy_in.js";
import { REFUSAL_KEYS } from "./i18n.js";
import { renderRecallBar } from "./recall.js";
import { buildRatingsDialog, showRatings } from "./ratings.js";
import { hyperTouch } from "./hyper.js";
import { placingCard } from "./player_card.js";
import { buildLoginDialog, credential, renderShift } from "./staff.js";
import { RANKS, cardNode, normalize, renderActions, renderTable } from "./table.js";
import { SUIT_SYMBOL, applyStaticText, lang, setLanguage, t } from "./text.js";

const BACKOFF_MIN_MS = 250;
const BACKOFF_MAX_MS = 4000;
const params = new URLSearchParams(location.search);

const state = {
  role: null,
  supervisor: false,
  staff: false, // a staff registry rules the table: logins, the supervisors' own PINs (the server's hello says)
  live: null, // newest live snapshot
  recall: null, // {rounds, round, step} while in recall mode
  socket: null,
  connected: false,
  attempt: 0,
  nextRequest: 1,
  pending: new Map(), // request id -> callback(result)
  manual: { rank: null, suit: null },
  seat: { box: null, player: null },
  pin: "",
  pinFor: null, // what the PIN dialog sends: {name, args} (VOID, or ACK_ALARM of an alarm that needs the supervisor)
  busy: false, // a command is on its way to the table
  keepalive: 5, // seconds; the server says in its hello
  lastHeard: 0,
  watchdogTrips: 0,
};

// --- rendering ------------------------------------------------------------------------------
function view() {
  return { role: state.role, recall: !!state.recall, connected: state.connected, busy: state.busy, supervisor: state.supervisor };
}

function shown() {
  if (state.recall) {
    const round = state.recall.rounds[state.recall.round];
    const step = round.steps[state.recall.step];
    // A step's snapshot may carry only the game part: the round and the step fill in the rest
    // (the round's alarms raised up to this step).
    const seq = step.snapshot.seq ?? step.seq;
    const alarms = (round.alarms || []).filter((alarm) => alarm.seq <= seq);
    return { table_id: round.table_id, alarms, ...step.snapshot, seq };
  }
  return state.live;
}

function render() {
  applyStaticText();
  document.body.dataset.mode = state.recall ? "recall" : "live";
  document.body.dataset.role = state.role || "";
  renderConnection();
  renderRecallBar(state.recall);
  const snapshot = shown() && normalize(shown());
  if (!snapshot) return;
  renderTable(snapshot, view());
  renderShift(snapshot, state.staff);
  document.body.dataset.shownSeq = String(snapshot.seq);
  if (!state.recall) document.body.dataset.seq = String(snapshot.seq);
}

// Snapshots that arrive faster than the screen refreshes are rendered once, the newest.
let renderScheduled = false;
function scheduleRender() {
  if (renderScheduled) return;
  renderScheduled = true;
  requestAnimationFrame(() => {
    renderScheduled = false;
    render();
  });
}

function renderConnection() {
  const banner = $("connection-banner");
  document.body.dataset.connection = state.connected ? "connected" : state.live ? "disconnected" : "connecting";
  banner.textContent = state.connected ? "" : state.live ? t("disconnected") : t("connecting");
}

// --- recall navigation ---------------------------------------------------------------------------
function recallMove(roundDelta, stepDelta) {
  const recall = state.recall;
  if (!recall) return;
  if (roundDelta) {
    recall.round = Math.max(0, Math.min(recall.rounds.length - 1, recall.round + roundDelta));
    recall.step = 0;
  } else if (stepDelta > 0) {
    if (recall.step < recall.rounds[recall.round].steps.length - 1) recall.step += 1;
    else if (recall.round < recall.rounds.length - 1) { recall.round += 1; recall.step = 0; }
  } else if (stepDelta < 0) {
    if (recall.step > 0) recall.step -= 1;
    else if (recall.round > 0) { recall.round -= 1; recall.step = recall.rounds[recall.round].steps.length - 1; }
  }
  render();
}

function openRecall() {
  send({ type: "recall", last: 10 }, (reply) => {
    const rounds = (reply.rounds || []).filter((r) => r.steps && r.steps.length > 0);
    if (rounds.length === 0) {
      if (reply.reason || reply.message) toast(refusalText("recall", reply), false, reply.message, reply.reason);
      else toast(t("recall_empty"), false);
      return;
    }
    state.recall = { rounds, round: rounds.length - 1, step: 0 };
    render();
  });
}

// --- the socket ----------------------------------------------------------------------------------
function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const query = params.get("pit") ? `?pit=${encodeURIComponent(params.get("pit"))}` : "";
  const socket = new WebSocket(`${scheme}//${location.host}/ws${query}`);
  state.socket = socket;
  socket.onopen = () => {
    state.connected = true;
    state.attempt = 0;
    state.lastHeard = Date.now();
  };
  socket.onmessage = (event) => {
    state.lastHeard = Date.now();
    receive(JSON.parse(event.data));
  };
  socket.onclose = () => lost(socket);
}

// The server speaks at least every keepalive_s; silence for three times that means a frozen
// controller or a dead network path: give up on this socket and reconnect.
function watchdog() {
  if (!state.socket || !state.connected) return;
  if (Date.now() - state.lastHeard > 3000 * state.keepalive) {
    state.watchdogTrips += 1;
    document.body.dataset.watchdogTrips = String(state.watchdogTrips);
    const socket = state.socket;
    lost(socket);
    socket.close();
  }
}

function lost(socket) {
  if (state.socket !== socket) return;
  state.connected = false;
  state.socket = null;
  for (const callback of state.pending.values()) callback({ ok: false, reason: "disconnected" });
  state.pending.clear();
  closeDialogs();
  render();
  // Capped, jittered exponential backoff: the controller may take a few seconds to come back.
  const base = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** state.attempt);
  state.attempt += 1;
  setTimeout(connect, base * (0.75 + Math.random() * 0.5));
}

function receive(message) {
  if (message.type === "hello") {
    state.role = message.role;
    state.supervisor = !!message.supervisor;
    $("ratings-open").hidden = !(state.supervisor || state.role === "pit"); // the rated players: supervisor, pit
    state.staff = !!message.staff;
    $("login-open").hidden = !(state.staff && state.role === "dealer");
    $("pin-employee-row").hidden = !state.staff;
    $("pin-badge").hidden = !state.staff;
    state.keepalive = message.keepalive_s || 5;
    setLanguage({ table: message.language || "fr" });
    render();
  } else if (message.type === "snapshot") {
    state.live = message.snapshot;
    if (!state.recall) scheduleRender();
  } else if (["result", "recall", "ratings", "login", "logout"].includes(message.type)) {
    const callback = state.pending.get(message.request);
    state.pending.delete(message.request);
    if (callback) callback(message);
  } else if (message.type === "keepalive") {
    // only here to be heard (see watchdog)
  } else if (message.type === "error") {
    toast(t("protocol_error"), false, message.message);
  }
}

function send(message, callback) {
  if (!state.socket || !state.connected) {
    if (callback) callback({ ok: false, reason: "disconnected" });
    return;
  }
  const request = state.nextRequest++;
  if (callback) state.pending.set(request, callback);
  state.socket.send(JSON.stringify({ ...message, request }));
}

// One command at a time: the buttons stay disabled until the table has answered, so a double
// tap on NEXT cannot stand two boxes.
function command(name, args, extra, onResult) {
  if (state.busy) return;
  state.busy = true;
  renderBusy();
  send({ type: "command", name, args: args || {}, ...(extra || {}) }, (result) => {
    state.busy = false;
    renderBusy();
    if (result.ok) toast(t("done", { command: t("cmd_" + name) }), true);
    else toast(refusalText("cmd_" + name, result), false, result.message, result.reason);
    if (onResult) onResult(result);
  });
}

function renderBusy() {
  document.body.dataset.busy = state.busy ? "yes" : "no";
  const snapshot = shown();
  if (snapshot) renderActions(normalize(snapshot), view());
}

let toastTimer = null;
// A refusal in the page's language: the command and, when the server names it (`reason`), why. The table's
// own refusals come back as alarms, which the banner explains; their English message is the details line.
// The table's own refusals carry a RefusalReason code (REFUSAL_KEYS), worded by the code; the display's own
// (a wrong PIN, recall busy, disconnected...) are its keys, with the reply's facts (the seconds of a lockout).
function refusalText(commandKey, result) {
  const command = t(commandKey);
  if (result.reason && !(result.reason in REFUSAL_KEYS)) {
    return t("refused_because", { command, reason: t("reason_" + result.reason, result) });
  }
  const said = refusal(result.message, result.reason);
  return said && said.reason ? t("refused_because", { command, reason: said.reason }) : t("refused_command", { command });
}

// The English details of a refusal the catalogue could not word, on an English screen only.
function details(message, code) {
  const said = refusal(message, code);
  if (lang() !== "en" || !message || (said && said.reason)) return null;
  return el("span", { class: "toast-details details", text: message });
}

function toast(text, ok, message, code) {
  const node = $("toast");
  const more = details(message, code);
  node.replaceChildren(el("span", { class: "toast-text", text }), ...(more ? [more] : []));
  node.dataset.ok = ok ? "yes" : "no";
  node.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { node.hidden = true; }, ok ? 1500 : 5000);
}

// --- dialogs -------------------------------------------------------------------------------------
function closeDialogs() {
  for (const dialog of document.querySelectorAll("dialog")) if (dialog.open) dialog.close();
}

function buildManualDialog() {
  $("manual-ranks").replaceChildren(
    ...RANKS.map((rank) => el("button", { type: "button", "data-rank": rank, text: rank === "T" ? "10" : rank })),
  );
  $("manual-suits").replaceChildren(
    ...Object.entries(SUIT_SYMBOL).map(([suit, symbol]) =>
      el("button", { type: "button", "data-suit": suit, class: suit === "H" || suit === "D" ? "red" : "", text: symbol }),
    ),
  );
  $("manual-ranks").addEventListener("click", (event) => {
    const rank = event.target.closest("button")?.dataset.rank;
    if (rank) { state.manual.rank = rank; updateManual(); }
  });
  $("manual-suits").addEventListener("click", (event) => {
    const suit = event.target.closest("button")?.dataset.suit;
    if (suit) { state.manual.suit = suit; updateManual(); }
  });
  $("manual-cancel").addEventListener("click", () => $("manual-dialog").close());
  $("manual-send").addEventListener("click", () => {
    const card = state.manual.rank + state.manual.suit;
    $("manual-dialog").close();
    command("MANUAL_CARD", { card });
  });
}

function updateManual() {
  const { rank, suit } = state.manual;
  for (const b of $("manual-ranks").children) b.classList.toggle("selected", b.dataset.rank === rank);
  for (const b of $("manual-suits").children) b.classList.toggle("selected", b.dataset.suit === suit);
  $("manual-preview").replaceChildren(...(rank && suit ? [cardNode(rank + suit)] : []));
  $("manual-send").disabled = !(rank && suit);
}

// Who sits where (SEAT / SEAT_CLEAR, core/seating.py): a box, then a player's label the dealer picks.
const SEAT_PLAYERS = ["A", "B", "C", "D", "E", "F", "G", "H"];
function buildSeatDialog() {
  $("seat-boxes").replaceChildren(...[1, 2, 3, 4, 5, 6, 7].map((box) => el("button", { type: "button", "data-box": box, text: String(box) })));
  $("seat-players").replaceChildren(...SEAT_PLAYERS.map((name) => el("button", { type: "button", "data-player": name, text: name })));
  $("seat-boxes").addEventListener("click", (event) => {
    const box = event.target.closest("button")?.dataset.box;
    if (box) { state.seat.box = Number(box); updateSeat(); }
  });
  $("seat-players").addEventListener("click", (event) => {
    const player = event.target.closest("button")?.dataset.player;
    if (player) { state.seat.player = player; updateSeat(); }
  });
  $("seat-cancel").addEventListener("click", () => $("seat-dialog").close());
  $("seat-send").addEventListener("click", () => {
    $("seat-dialog").close();
    command("SEAT", { box: state.seat.box, player: state.seat.player });
  });
  $("seat-clear").addEventListener("click", () => {
    $("seat-dialog").close();
    command("SEAT_CLEAR", { box: state.seat.box });
  });
  // A rated session's seat changes (core/seat_changes.py): the seated player pauses or is back, moves to a free
  // box (the same session), a player bets behind the box or leaves it.
  $("seat-move").replaceChildren(...[1, 2, 3, 4, 5, 6, 7].map((box) => el("button", { type: "button", "data-box": box, text: String(box) })));
  $("seat-move").addEventListener("click", (event) => {
    const to = event.target.closest("button");
    if (!to || to.disabled) return;
    $("seat-dialog").close();
    command("MOVE", { from_box: state.seat.box, to_box: Number(to.dataset.box) });
  });
  $("seat-pause").addEventListener("click", () => {
    $("seat-dialog").close();
    command($("seat-pause").dataset.i18n === "cmd_RESUME" ? "RESUME" : "PAUSE", { box: state.seat.box });
  });
  $("seat-behind").addEventListener("click", () => {
    $("seat-dialog").close();
    command("BEHIND", { box: state.seat.box, player: state.seat.player });
  });
  $("seat-behind-clear").addEventListener("click", () => {
    $("seat-dialog").close();
    command("BEHIND_CLEAR", { box: state.seat.box });
  });
}

function updateSeat() {
  const { box, player } = state.seat;
  for (const b of $("seat-boxes").children) b.classList.toggle("selected", Number(b.dataset.box) === box);
  for (const b of $("seat-players").children) b.classList.toggle("selected", b.dataset.player === player);
  $("seat-send").disabled = !(box && player);
  $("seat-clear").disabled = !box;
  const seats = state.live?.seats || {};
  const seated = box !== null && String(box) in seats;
  const paused = seated && (state.live?.seats_paused || []).includes(box);
  $("seat-pause").dataset.i18n = paused ? "cmd_RESUME" : "cmd_PAUSE";
  $("seat-pause").textContent = t($("seat-pause").dataset.i18n);
  $("seat-pause").disabled = !seated;
  $("seat-behind").disabled = !(box && player);
  $("seat-behind-clear").disabled = !(box !== null && String(box) in (state.live?.behind_players || {}));
  for (const b of $("seat-move").children) b.disabled = !seated || b.dataset.box in seats;
}

function buildPinDialog() {
  const keys = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0"];
  $("pin-keys").replaceChildren(...keys.map((key) => el("button", { type: "button", "data-key": key, text: key })));
  $("pin-keys").addEventListener("click", (event) => {
    const key = event.target.closest("button")?.dataset.key;
    if (key && state.pin.length < 12) { state.pin += key; updatePin(); }
  });
  $("pin-clear").addEventListener("click", () => { state.pin = ""; updatePin(); });
  $("pin-cancel").addEventListener("click", () => $("pin-dialog").close());
  $("pin-send").addEventListener("click", () => {
    const pin = state.pin;
    state.pin = "";
    updatePin();
    const { name, args } = state.pinFor;
    sendCredential(name, args, credential(state.staff, pin));
  });
  $("pin-badge").addEventListener("click", () => sendCredential(state.pinFor.name, state.pinFor.args, { badge: true }));
}

// The supervisor's command (or view) with what proves who he is: the shared PIN, or his own id and PIN, or his badge.
function sendCredential(name, args, proof) {
  if (name === "RATINGS") { // not a command: the supervisor's view, shown once the server has checked the PIN
    send({ type: "ratings", ...proof }, (result) => {
      if (result.ok) { $("pin-dialog").close(); showRatings(result); }
      else $("pin-error").replaceChildren(refusalText("ratings_open", result));
    });
    return;
  }
  command(name, args, proof, (result) => {
    if (result.ok) $("pin-dialog").close();
    else $("pin-error").replaceChildren(refusalText("cmd_" + name, result), ...(details(result.message, result.reason) ? [details(result.message, result.reason)] : []));
  });
}

// The one PIN dialog serves every supervisor command: VOID, and acknowledging an alarm that needs
// the supervisor. The server checks the PIN; the page only asks for it.
function askPin(name, args, title, send) {
  state.pinFor = { name, args };
  state.pin = "";
  updatePin();
  document.querySelector("#pin-dialog h2").dataset.i18n = title;
  $("pin-send").dataset.i18n = send;
  applyStaticText();
  $("pin-error").textContent = "";
  $("pin-dialog").showModal();
}

function updatePin() {
  $("pin-dots").textContent = "●".repeat(state.pin.length) || "\u00a0";
  $("pin-dots").dataset.length = String(state.pin.length);
  $("pin-send").disabled = state.pin.length < 4;
}

// --- wiring --------------------------------------------------------------------------------------
function wire() {
  $("actions").addEventListener("click", (event) => {
    const button = event.target.closest("button.command");
    if (!button || button.disabled) return;
    const name = button.dataset.command;
    if (name === "MANUAL_CARD") {
      state.manual = { rank: null, suit: null };
      updateManual();
      $("manual-dialog").showModal();
    } else if (name === "VOID") {
      askPin("VOID", {}, "pin_title", "pin_send");
    } else {
      command(name);
    }
  });
  $("hyper").addEventListener("click", (event) => hyperTouch(event, command));
  // Who sits where (SEAT): between rounds, the dealer touches a box's header to seat a player there or clear it.
  $("boxes").addEventListener("click", (event) => {
    const box = event.target.closest(".box header")?.parentElement?.dataset.box;
    // A player card read waits (player_card.js): the touched box is the player's, in a round or between rounds.
    if (box && !state.busy && placingCard(shown(), view())) { command("SEAT_CARD", { box: Number(box) }); return; }
    if (!box || document.body.dataset.seating !== "yes") return;
    state.seat = { box: Number(box), player: null };
    updateSeat();
    $("seat-dialog").showModal();
  });
  $("held").addEventListener("click", (event) => {
    const button = event.target.closest("button.command");
    if (button && !button.disabled) command(button.dataset.command);
  });
  $("alarms").addEventListener("click", (event) => {
    const button = event.target.closest("button.ack");
    if (!button) return;
    const args = { id: Number(button.dataset.ack) };
    if (button.dataset.supervisor === "yes") askPin("ACK_ALARM", args, "pin_title_ack", "pin_send_ack");
    else command("ACK_ALARM", args);
  });
  $("lang").addEventListener("click", (event) => {
    const choice = event.target.closest("button")?.dataset.lang;
    if (!choice) return;
    setLanguage({ choice });
    localStorage.setItem("display.language", choice);
    render();
  });
  $("recall-open").addEventListener("click", openRecall);
  $("ratings-open").addEventListener("click", () => {
    if (state.role === "pit") send({ type: "ratings" }, (result) => { if (result.ok) showRatings(result); });
    else askPin("RATINGS", {}, "pin_title_ratings", "pin_send_ratings");
  });
  $("recall-exit").addEventListener("click", () => { state.recall = null; render(); });
  $("recall-prev-round").addEventListener("click", () => recallMove(-1, 0));
  $("recall-next-round").addEventListener("click", () => recallMove(1, 0));
  $("recall-prev-step").addEventListener("click", () => recallMove(0, -1));
  $("recall-next-step").addEventListener("click", () => recallMove(0, 1));
  document.addEventListener("keydown", (event) => {
    if (!state.recall) return;
    if (event.key === "ArrowRight") recallMove(0, 1);
    else if (event.key === "ArrowLeft") recallMove(0, -1);
    else if (event.key === "Escape") { state.recall = null; render(); }
  });
  buildManualDialog();
  buildSeatDialog();
  buildPinDialog();
  buildLoginDialog(send, () => {});
  buildRatingsDialog();
  buildBuyInDialog({
    send: (args, onResult) => command("BUY_IN", args, null, onResult),
    refusal: (result) => refusalText("cmd_BUY_IN", result),
    done: (text) => toast(text, true),
  });
}

setLanguage({ choice: params.get("lang") || localStorage.getItem("display.language") || null });
wire();
render();
connect();
setInterval(watchdog, 500);
