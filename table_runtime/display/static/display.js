// The dealer display: renders table snapshots pushed over the WebSocket and sends touch commands.
// The server decides roles and checks every command; this page only mirrors what it is told.
// Protocol and snapshot shape: docs/display.md.
"use strict";
(() => {
  const STRINGS = window.DISPLAY_STRINGS;
  const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"];
  const MAIN_COMMANDS = ["NEXT", "DOUBLE", "SPLIT", "UNDO", "CONFIRM"];
  const OPEN_STATUSES = new Set(["waiting", "playing"]); // hands that may still take a card
  const DEVICE_IDLE = new Set(["disabled", "not configured"]); // not a fault: shown grey, not red
  const BACKOFF_MIN_MS = 250;
  const BACKOFF_MAX_MS = 4000;
  const params = new URLSearchParams(location.search);

  const state = {
    language: params.get("lang") || localStorage.getItem("display.language") || null,
    defaultLanguage: "fr",
    role: null,
    supervisor: false,
    live: null, // newest live snapshot
    recall: null, // {rounds, round, step} while in recall mode
    socket: null,
    connected: false,
    attempt: 0,
    nextRequest: 1,
    pending: new Map(), // request id -> callback(result)
    manual: { rank: null, suit: null },
    pin: "",
    busy: false, // a command is on its way to the table
    keepalive: 5, // seconds; the server says in its hello
    lastHeard: 0,
    watchdogTrips: 0,
  };

  const $ = (id) => document.getElementById(id);

  // --- text ------------------------------------------------------------------------------------
  function lang() {
    const chosen = state.language || state.defaultLanguage;
    return STRINGS[chosen] ? chosen : "fr";
  }

  function t(key, vars) {
    const table = STRINGS[lang()];
    let text = key in table ? table[key] : key in STRINGS.en ? STRINGS.en[key] : key;
    if (vars) {
      for (const [name, value] of Object.entries(vars)) text = text.split("{" + name + "}").join(String(value));
    }
    return text;
  }

  function tOr(key, fallback) {
    return key in STRINGS[lang()] ? STRINGS[lang()][key] : fallback;
  }

  function money(cents, signed) {
    const negative = cents < 0;
    const absolute = Math.abs(cents);
    const units = Math.floor(absolute / 100);
    const rest = String(absolute % 100).padStart(2, "0");
    const sep = lang() === "fr" ? "\u202f" : ",";
    const grouped = String(units).replace(/\B(?=(\d{3})+(?!\d))/g, sep);
    const body = lang() === "fr" ? `${grouped},${rest}\u00a0€` : `€${grouped}.${rest}`;
    const sign = negative ? "−" : signed && cents > 0 ? "+" : "";
    return sign + body;
  }

  function applyStaticText() {
    document.documentElement.lang = lang();
    for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
    for (const button of document.querySelectorAll("#lang button")) {
      button.classList.toggle("selected", button.dataset.lang === lang());
    }
  }

  // --- DOM helpers -------------------------------------------------------------------------------
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name === "class") node.className = value;
      else if (name === "text") node.textContent = value;
      else if (name.startsWith("data-")) node.setAttribute(name, value === true ? "" : String(value));
      else node.setAttribute(name, String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  // Like node.replaceChildren, but skips null/false (which the DOM would print as "null").
  function replaceChildren(node, ...children) {
    node.replaceChildren(...children.flat().filter((child) => child !== null && child !== undefined && child !== false));
  }

  function cardNode(code) {
    const rank = code[0] === "T" ? "10" : code[0];
    const suit = code[1];
    const red = suit === "H" || suit === "D";
    return el(
      "span",
      { class: red ? "card red" : "card", "data-card": code },
      el("span", { class: "rank", text: rank }),
      el("span", { class: "suit", text: SUIT_SYMBOL[suit] || "?" }),
    );
  }

  function cardsNode(codes, extraClass) {
    const many = codes.length > 4 ? " many" : codes.length > 2 ? " some" : "";
    return el("div", { class: "cards" + many + (extraClass ? " " + extraClass : "") }, codes.map(cardNode));
  }

  // A soft total reads "7/17" (ace as 1 / ace as 11) while the hand may still draw; once it has
  // stood (or the bank stands) only the total that counts is shown. A soft 21 is just 21.
  function totalText(total, soft, blackjack, cardCount, open) {
    if (!cardCount) return "";
    if (blackjack) return "BJ";
    if (soft && open && total < 21) return `${total - 10}/${total}`;
    return String(total);
  }

  // --- rendering ------------------------------------------------------------------------------
  function shown() {
    if (state.recall) {
      const round = state.recall.rounds[state.recall.round];
      const step = round.steps[state.recall.step];
      // A step's snapshot may carry only the game part: the round and the step fill in the rest.
      return { table_id: round.table_id, alarms: [], ...step.snapshot, seq: step.snapshot.seq ?? step.seq };
    }
    return state.live;
  }

  // Defaults for anything a snapshot leaves out, so a partial snapshot shows what it has.
  function normalize(s) {
    const bank = { cards: [], total: 0, soft: false, blackjack: false, busted: false, must_draw: false, ...(s.bank || {}) };
    const boxes = (s.boxes || []).map((b) => ({
      ...openBox(b.box),
      ...b,
      hands: b.hands || [],
      behind: b.behind || [],
      payouts: b.payouts || [],
    }));
    const defaults = { allowed: [], alarms: [], held_cards: [], devices: {}, shoe: {}, next_card: "none", turn: null };
    return { ...defaults, ...s, bank, boxes };
  }

  function render() {
    applyStaticText();
    document.body.dataset.mode = state.recall ? "recall" : "live";
    document.body.dataset.role = state.role || "";
    renderConnection();
    renderRecallBar();
    const snapshot = shown() && normalize(shown());
    if (!snapshot) return;
    document.title = t("title", { table: snapshot.table_id });
    renderTop(snapshot);
    renderAlarms(snapshot);
    renderBank(snapshot);
    renderBoxes(snapshot);
    renderActions(snapshot);
    $("recovered").hidden = !snapshot.recovered;
    $("recovered").textContent = t("recovered", { round: snapshot.round });
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

  function renderTop(s) {
    $("table-id").textContent = s.table_id;
    $("round").textContent = String(s.round);
    const phase = $("phase");
    phase.textContent = tOr("phase_" + s.phase, s.phase);
    phase.dataset.phase = s.phase;
    $("limits").textContent = s.limits ? t("limits", { min: money(s.limits.min_cents), max: money(s.limits.max_cents) }) : "";

    const turn = $("turn");
    if (s.turn) {
      const box = s.boxes.find((b) => b.box === s.turn.box);
      const split = box && box.hands.length > 1;
      turn.textContent = split
        ? t("turn_hand", { box: s.turn.box, hand: s.turn.hand + 1 })
        : t("turn", { box: s.turn.box });
      turn.dataset.box = String(s.turn.box);
    } else {
      turn.textContent = t("no_turn");
      delete turn.dataset.box;
    }
    $("next-card").textContent = `${t("next_card")} → ${nextCardText(s)}`;
    $("next-card").dataset.next = s.next_card;
    // The pit has no buttons to read the allowed actions from: they are spelled out for it.
    const allowed = (s.allowed || []).map((name) => t("cmd_" + name));
    $("allowed").textContent = allowed.length ? `${t("allowed")} : ${allowed.join(" · ")}` : "";

    const shoe = s.shoe || {};
    const shoeNode = $("shoe");
    replaceChildren(
      shoeNode,
      el("span", { class: "label", text: `${t("shoe")} ${shoe.shoe_id || ""}` }),
      el("span", { class: "big", id: "cards-left", text: String(shoe.cards_left ?? "–") }),
      el("span", { class: "label", text: t("cards_left") }),
      shoe.burns_left ? el("span", { class: "badge amber", text: t("burns_left", { n: shoe.burns_left }) }) : null,
      shoe.cut_card_reached ? el("span", { class: "badge red", id: "cut-card", text: t("cut_card") }) : null,
      shoe.online === false ? el("span", { class: "badge red", text: t("shoe_offline") }) : null,
    );
    shoeNode.dataset.cut = shoe.cut_card_reached ? "yes" : "no";

    const devices = s.devices || {};
    $("devices").replaceChildren(
      ...Object.entries(devices).map(([name, status]) =>
        el(
          "span",
          { class: DEVICE_IDLE.has(status) ? "device idle" : "device", "data-device": name, "data-status": status },
          el("span", { class: "dot" }),
          tOr("device_" + name, name),
          status === "online" ? null : el("small", { text: " " + tOr("device_status_" + status, status) }),
        ),
      ),
    );
  }

  function nextCardText(s) {
    const next = s.next_card || "none";
    if (next === "bank") return t("next_bank");
    if (next === "burn") return t("next_burn");
    const match = /^box(\d+)\.hand(\d+)$/.exec(next);
    if (match) {
      const box = s.boxes.find((b) => b.box === Number(match[1]));
      if (box && box.hands.length > 1) return t("next_box_hand", { box: match[1], hand: Number(match[2]) + 1 });
      return t("next_box", { box: match[1] });
    }
    return t("next_none");
  }

  function renderAlarms(s) {
    const section = $("alarms");
    const open = (s.alarms || []).filter((a) => !a.acknowledged);
    const acknowledged = (s.alarms || []).length - open.length;
    section.hidden = open.length === 0;
    const rows = open.map((alarm) => {
      const amounts = Object.entries(alarm.amounts || {}).map(([key, cents]) =>
        el("span", { class: "amount" }, `${tOr("amount_" + key, key.replace(/_cents$/, ""))} `, el("b", { text: money(cents) })),
      );
      return el(
        "div",
        { class: "alarm", "data-alarm": alarm.id, "data-kind": alarm.kind },
        el("span", { class: "alarm-icon", text: "⚠" }),
        el(
          "div",
          { class: "alarm-body" },
          el(
            "div",
            { class: "alarm-head" },
            el("b", { class: "alarm-kind", text: tOr("alarm_" + alarm.kind, alarm.kind.replace(/_/g, " ")) }),
            alarm.box ? el("span", { class: "alarm-box", text: t("alarm_box", { box: alarm.box }) }) : null,
            amounts,
          ),
          el("div", { class: "alarm-message", text: alarm.message }),
          el("div", { class: "alarm-rule", text: alarm.rule }),
        ),
        state.role === "dealer" && !state.recall
          ? el("button", { type: "button", class: "ack", "data-ack": alarm.id, text: t("ack") })
          : null,
      );
    });
    replaceChildren(section, rows, acknowledged ? el("div", { class: "small", text: t("alarms_acknowledged", { n: acknowledged }) }) : null);
  }

  function renderBank(s) {
    const bank = s.bank || { cards: [] };
    $("bank-cards").replaceChildren(...bank.cards.map(cardNode));
    $("bank-cards").className = "cards" + (bank.cards.length > 2 ? " some" : ""); // the bank has room
    const bankOpen = bank.must_draw || bank.cards.length < 2;
    $("bank-total").textContent = totalText(bank.total, bank.soft, bank.blackjack, bank.cards.length, bankOpen);
    const stateNode = $("bank-state");
    let key = "";
    if (bank.busted) key = "bank_bust";
    else if (bank.blackjack) key = "blackjack";
    else if (bank.must_draw) key = "must_draw";
    else if (bank.cards.length >= 2 || s.phase === "settlement" || s.phase === "closed") key = bank.cards.length ? "stands" : "";
    stateNode.textContent = key ? t(key) : "";
    stateNode.dataset.state = key;
    $("bank").dataset.mustDraw = bank.must_draw ? "yes" : "no";
    const held = s.held_cards || [];
    $("held").hidden = held.length === 0;
    $("held-cards").replaceChildren(...held.map(cardNode));
  }

  function renderBoxes(s) {
    const container = $("boxes");
    // Always the seven boxes of the table; a box the snapshot leaves out is shown open.
    const given = new Map((s.boxes || []).map((box) => [box.box, box]));
    const boxes = [1, 2, 3, 4, 5, 6, 7].map((number) => given.get(number) || openBox(number));
    container.replaceChildren(...boxes.map((box) => boxNode(box, s)));
  }

  function openBox(number) {
    return { box: number, owner: null, seated_cents: 0, behind: [], insurance_cents: 0, insurance_offered: false, hands: [], payouts: [], net_cents: null };
  }

  function boxNode(box, s) {
    const behind = box.behind || [];
    const empty = !box.seated_cents && behind.length === 0 && box.hands.length === 0;
    const isTurn = s.turn && s.turn.box === box.box;
    const stakes = el(
      "div",
      { class: "stakes" },
      el("div", { class: "stake seated" }, el("span", { class: "label", text: t("seated") }), el("b", { class: "seated-cents", text: money(box.seated_cents || 0) })),
      behind.map((b) =>
        el("div", { class: "stake behind", "data-owner": b.owner }, el("span", { class: "label", text: `${t("behind")} ${b.owner}` }), el("b", { text: money(b.cents) })),
      ),
    );
    let insurance = null;
    if (box.insurance_cents) {
      insurance = el("div", { class: "insurance" }, el("span", { class: "label", text: t("insurance") }), el("b", { text: money(box.insurance_cents) }));
    } else if (box.insurance_offered) {
      insurance = el("div", { class: "insurance offered", text: t("insurance_offered") });
    }
    const hands = box.hands.map((hand, index) => {
      const handTurn = isTurn && s.turn.hand === index;
      return el(
        "div",
        { class: "hand", "data-hand": index, "data-status": hand.status, "data-turn": handTurn },
        cardsNode(hand.cards),
        el(
          "div",
          { class: "hand-foot" },
          el("span", { class: "total", "data-total": hand.total, "data-soft": hand.soft ? "yes" : "no", text: totalText(hand.total, hand.soft, hand.status === "blackjack", hand.cards.length, OPEN_STATUSES.has(hand.status)) }),
          el(
            "div",
            { class: "hand-side" },
            el(
              "span",
              { class: "status" },
              box.hands.length > 1 ? el("span", { class: "hand-label", text: `${t("hand")} ${index + 1} · ` }) : null,
              tOr("status_" + hand.status, hand.status),
            ),
            el(
              "span",
              { class: "hand-stake" },
              hand.doubled ? el("span", { class: "tag", text: t("doubled") }) : null,
              hand.from_split ? el("span", { class: "tag", text: t("from_split") }) : null,
              money(hand.stakes_cents),
            ),
          ),
        ),
      );
    });
    let payouts = null;
    if ((box.payouts || []).length > 0) {
      payouts = el(
        "div",
        { class: "payouts" },
        box.payouts.map((p) =>
          el(
            "div",
            { class: "payout", "data-outcome": p.outcome, "data-net": p.net_cents },
            el(
              "span",
              { class: "payout-who" },
              el("span", { class: "payout-outcome", text: tOr("outcome_" + p.outcome, p.outcome) }),
              el("span", {
                class: "payout-owner",
                text:
                  // The seated player's own payouts need no name; players behind are named.
                  [p.owner === box.owner ? "" : p.owner, box.hands.length > 1 ? `${t("hand")} ${p.hand + 1}` : ""]
                    .filter(Boolean)
                    .join(" · ") +
                  (p.kind === "double" ? ` · ${tOr("kind_" + p.kind, p.kind)}` : ""),
              }),
            ),
            el("b", { class: "payout-net", text: money(p.net_cents, true) }),
            // The runtime explains any rounding of a payout (RULES.md Money): the dealer must see it.
            p.note ? el("div", { class: "payout-note", text: p.note }) : null,
          ),
        ),
      );
    }
    const net =
      box.net_cents === null || box.net_cents === undefined
        ? null
        : el("div", { class: "net", "data-net": box.net_cents }, el("span", { class: "label", text: t("net") }), el("b", { text: money(box.net_cents, true) }));
    return el(
      "article",
      { class: box.hands.length > 1 ? "box split" : "box", "data-box": box.box, "data-turn": isTurn, "data-empty": empty },
      el("header", {}, el("span", { class: "box-no", text: String(box.box) }), el("span", { class: "owner", text: box.owner || t("open_box") })),
      empty ? null : stakes,
      insurance,
      el("div", { class: "hands" }, hands),
      payouts,
      net,
    );
  }

  function renderActions(s) {
    const allowed = new Set(s.allowed || []);
    const live = !state.recall && state.connected && state.role === "dealer" && !state.busy;
    for (const button of document.querySelectorAll("button.command")) {
      const name = button.dataset.command;
      let enabled = live;
      if (MAIN_COMMANDS.includes(name) || name === "VOID") enabled = live && allowed.has(name);
      if (name === "VOID") enabled = enabled && state.supervisor;
      button.disabled = !enabled;
      button.dataset.allowed = allowed.has(name) ? "yes" : "no";
    }
    $("recall-open").disabled = !!state.recall || !state.connected;
  }

  function renderRecallBar() {
    const bar = $("recall-bar");
    bar.hidden = !state.recall;
    if (!state.recall) return;
    const round = state.recall.rounds[state.recall.round];
    const step = round.steps[state.recall.step];
    const time = new Date(step.ts * 1000).toLocaleTimeString(lang() === "fr" ? "fr-FR" : "en-GB");
    $("recall-title").textContent =
      `${t("recall_round", { round: round.round })} (${tOr("result_" + round.result, round.result)}) · ` +
      t("recall_step", { step: state.recall.step + 1, steps: round.steps.length });
    $("recall-step-text").textContent = `${time} · ${step.type} — ${step.text}`;
    $("recall-bar").dataset.round = String(round.round);
    $("recall-bar").dataset.step = String(state.recall.step);
    $("recall-prev-round").disabled = state.recall.round === 0;
    $("recall-next-round").disabled = state.recall.round === state.recall.rounds.length - 1;
    $("recall-prev-step").disabled = state.recall.step === 0 && state.recall.round === 0;
    $("recall-next-step").disabled =
      state.recall.step === round.steps.length - 1 && state.recall.round === state.recall.rounds.length - 1;
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
        toast(t("recall_empty"), false);
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
    for (const callback of state.pending.values()) callback({ ok: false, message: t("disconnected") });
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
      state.keepalive = message.keepalive_s || 5;
      state.defaultLanguage = message.language || "fr";
      render();
    } else if (message.type === "snapshot") {
      state.live = message.snapshot;
      if (!state.recall) scheduleRender();
    } else if (message.type === "result" || message.type === "recall") {
      const callback = state.pending.get(message.request);
      state.pending.delete(message.request);
      if (callback) callback(message);
    } else if (message.type === "keepalive") {
      // only here to be heard (see watchdog)
    } else if (message.type === "error") {
      toast(message.message, false);
    }
  }

  function send(message, callback) {
    if (!state.socket || !state.connected) {
      if (callback) callback({ ok: false, message: t("disconnected") });
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
      toast(result.ok ? t("done", { command: t("cmd_" + name) }) : t("refused", { message: result.message }), result.ok);
      if (onResult) onResult(result);
    });
  }

  function renderBusy() {
    document.body.dataset.busy = state.busy ? "yes" : "no";
    const snapshot = shown();
    if (snapshot) renderActions(normalize(snapshot));
  }

  let toastTimer = null;
  function toast(text, ok) {
    const node = $("toast");
    node.textContent = text;
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
      command("VOID", {}, { pin }, (result) => {
        if (result.ok) $("pin-dialog").close();
        else $("pin-error").textContent = t("refused", { message: result.message });
      });
    });
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
        state.pin = "";
        updatePin();
        $("pin-error").textContent = "";
        $("pin-dialog").showModal();
      } else {
        command(name);
      }
    });
    $("held").addEventListener("click", (event) => {
      const button = event.target.closest("button.command");
      if (button && !button.disabled) command(button.dataset.command);
    });
    $("alarms").addEventListener("click", (event) => {
      const button = event.target.closest("button.ack");
      if (button) command("ACK_ALARM", { id: Number(button.dataset.ack) });
    });
    $("lang").addEventListener("click", (event) => {
      const choice = event.target.closest("button")?.dataset.lang;
      if (!choice) return;
      state.language = choice;
      localStorage.setItem("display.language", choice);
      render();
    });
    $("recall-open").addEventListener("click", openRecall);
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
    buildPinDialog();
  }

  wire();
  render();
  connect();
  setInterval(watchdog, 500);
})();
