// Rendering of a table snapshot into the page: top bar, alarms, bank, the seven boxes, buttons, recall bar.
// Pure DOM work from the snapshot and a `view` ({role, recall, connected, busy, supervisor}); no state here.
import { renderAlarms } from "./alarm.js";
import { $, el, replaceChildren } from "./dom.js";
import { renderHyper } from "./hyper.js";
import { renderCardWaiting } from "./player_card.js";
import { SUIT_SYMBOL, money, ownerName, t, tOr, totalText } from "./text.js";

export const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"];
const MAIN_COMMANDS = ["NEXT", "DOUBLE", "SPLIT", "SURRENDER", "UNDO", "CONFIRM"];
const ROUND_PHASES = new Set(["dealing", "insurance", "playing", "bank", "settlement"]); // a round in play
const OPEN_STATUSES = new Set(["waiting", "playing"]); // hands that may still take a card
const DEVICE_IDLE = new Set(["disabled", "not configured"]); // not a fault: shown grey, not red
// A box's chip zones, in the order they lie on the felt, with the label the page gives each.
const ZONES = [["", "seated"], [".behind", "behind"], [".insurance", "insurance"]];

export function cardNode(code) {
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

// Defaults for anything a snapshot leaves out, so a partial snapshot shows what it has.
export function normalize(s) {
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

function openBox(number) {
  return { box: number, owner: null, seated_cents: 0, behind: [], insurance_cents: 0, insurance_offered: false, hands: [], payouts: [], net_cents: null };
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
  replaceChildren($("next-card"), el("span", { class: "next-label", text: `${t("next_card")} ` }), `→ ${nextCardText(s)}`);
  $("next-card").dataset.next = s.next_card;
  // The pit has no buttons to read the allowed actions from: they are spelled out for it.
  const allowed = (s.allowed || []).map((name) => t("cmd_" + name));
  $("allowed").textContent = allowed.length ? t("allowed_list", { commands: allowed.join(" · ") }) : "";

  const shoe = s.shoe || {};
  const shoeNode = $("shoe");
  replaceChildren(
    shoeNode,
    el("span", { class: "label", text: `${t("shoe")} ${shoe.shoe_id || ""}` }),
    el("span", { class: "big", id: "cards-left", text: String(shoe.cards_left ?? "–") }),
    el("span", { class: "label cards-left-label", text: t("cards_left") }),
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
        el("span", { class: "device-name", text: tOr("device_" + name, name) }),
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
  const more = s.held_cards_hidden || 0; // past the snapshot's cap (a card storm)
  $("held-cards").replaceChildren(...held.map(cardNode), more ? el("span", { class: "held-more", text: `+${more}` }) : "");
}

function renderBoxes(s) {
  const container = $("boxes");
  // Always the seven boxes of the table; a box the snapshot leaves out is shown open.
  const given = new Map((s.boxes || []).map((box) => [box.box, box]));
  const boxes = [1, 2, 3, 4, 5, 6, 7].map((number) => given.get(number) || openBox(number));
  container.replaceChildren(...boxes.map((box) => boxNode(box, s)));
  // Room where it is needed: a box nobody plays is narrow, a split box wide (its hands side by side); with all
  // seven boxes played a split box's hands are one above the other (display.css [data-stacked]) and it takes a
  // seventh like the others.
  const stacked = boxes.every((box) => !isEmpty(box, s));
  container.toggleAttribute("data-stacked", stacked);
  const split = stacked ? 1 : 1.9;
  container.style.gridTemplateColumns = boxes
    .map((box) => `minmax(0, ${box.hands.length > 1 ? split : isEmpty(box, s) ? 0.4 : 1}fr)`)
    .join(" ");
}

// Chips that turn up on an unplayed box at settlement are a wrong payout: the box is not dimmed then.
function isEmpty(box, s) {
  return !box.seated_cents && (box.behind || []).length === 0 && box.hands.length === 0 && !chipCheckNode(box, s);
}

function boxNode(box, s) {
  const behind = box.behind || [];
  const check = chipCheckNode(box, s);
  const empty = isEmpty(box, s);
  const isTurn = s.turn && s.turn.box === box.box;
  const stakes = el(
    "div",
    { class: "stakes" },
    el("div", { class: "stake seated" }, el("span", { class: "label", text: t("seated") }), el("b", { class: "seated-cents", text: money(box.seated_cents || 0) })),
    behind.map((b) =>
      el("div", { class: "stake behind", "data-owner": b.owner }, el("span", { class: "label", text: ownerName(b.owner, box.box, "behind") }), el("b", { text: money(b.cents) })),
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
            // A split box already labels its hands "hand 1", "hand 2": the split tag would only crowd it.
            hand.from_split && box.hands.length < 2 ? el("span", { class: "tag", text: t("from_split") }) : null,
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
      { class: check ? "payouts checked" : "payouts" },
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
                [p.owner === box.owner ? "" : ownerName(p.owner, box.box, "behind"), box.hands.length > 1 ? `${t("hand")} ${p.hand + 1}` : ""]
                  .filter(Boolean)
                  .join(" · ") +
                (p.kind === "double" ? ` · ${tOr("kind_" + p.kind, p.kind)}` : ""),
            }),
          ),
          el("b", { class: "payout-net", text: money(p.net_cents, true) }),
          // The runtime explains any rounding of a payout (docs/rules.md "Money"): the dealer must see it.
          // (its English note says the exact amount; the page words it from the stake and what is paid)
          p.note ? el("div", { class: "payout-note", text: t(p.outcome === "surrender" ? "payout_surrender_rounded" : "payout_rounded", { stake: money(p.staked_cents), paid: money(p.net_cents) }) }) : null,
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
    { class: box.hands.length > 1 ? "box split" : "box", "data-box": box.box, "data-turn": isTurn, "data-empty": empty, "data-checking": !!check, "data-settled": box.payouts.length > 0 },
    el("header", {}, el("span", { class: "box-no", text: String(box.box) }), headerName(box, s) ? el("span", { class: "owner" }, headerName(box, s)) : null),
    empty ? null : stakes,
    insurance,
    el("div", { class: "hands" }, hands),
    payouts,
    check,
    net,
  );
}

// Beside the box number: the seated player's name when the table knows one (the runtime names players by
// their zone, "box3": the number already says it), "open" for a box nobody plays. The player the dealer seated
// there (SEAT, `seats` in the snapshot) is named first: the director's options count boxes per player.
// A player's id (a card's pseudonym, "p-566f5303eafc") is one word on one line, never broken in a narrow box;
// the words around it ("joueur", "derrière") wrap, and a small screen drops "joueur" (the box says it).
function headerName(box, s) {
  const seated = (s.seats || {})[String(box.box)];
  const behind = (s.behind_players || {})[String(box.box)]; // a player betting behind (BEHIND, core/seat_changes.py)
  const after = behind ? [" ", ...named("behind_as", behind)] : [];
  if (seated) {
    const paused = (s.seats_paused || []).includes(box.box) ? " " + t("seat_paused") : "";
    return [...named("seated_as", seated), paused, ...after];
  }
  if (behind) return named("behind_as", behind);
  if (!box.owner) return box.hands.length || box.seated_cents ? null : [t("open_box")];
  const name = ownerName(box.owner, box.box, "seated");
  return name === t("seated_player") ? null : [name];
}

// `key`'s words around a player's id, the id kept whole.
function named(key, name) {
  const [before, after = ""] = t(key, { name: "\u0001" }).split("\u0001");
  return [before ? el("span", { class: "name-words", text: before }) : null,
    el("span", { class: "player-id", text: name }), after];
}

// Settlement: each zone of the box against what it must end at, as the chip readers see it now, so the
// dealer puts a wrong payout right before CONFIRM (docs/rules.md "A round", step 6). `payout_check` is in the
// snapshot only while the chips are being checked. A zone that is right takes one line (what is due is what
// is there); a wrong one says what is due, what is seen and the difference.
function chipCheckNode(box, s) {
  const check = s.phase === "settlement" ? s.payout_check || {} : {};
  const rows = ZONES.filter(([suffix]) => check[`box${box.box}${suffix}`]).map(([suffix, label]) => {
    const zone = `box${box.box}${suffix}`;
    const due = check[zone].due_cents;
    const seen = check[zone].seen_cents;
    const difference = seen - due;
    const attrs = { class: "zone-check", "data-zone": zone, "data-match": difference === 0 ? "yes" : "no", "data-difference": difference };
    const name = el("span", { class: "zone-name", text: t(label) });
    if (difference === 0) {
      return el("div", attrs, el("div", { class: "zone-check-line" }, name, el("span", { class: "zone-verdict", title: t("check_ok") }, "✓ ", el("b", { class: "zone-seen", text: money(seen) }))));
    }
    const verdict = difference < 0 ? t("check_short", { amount: money(-difference) }) : t("check_over", { amount: money(difference) });
    return el(
      "div",
      attrs,
      el("div", { class: "zone-check-line" }, name, el("span", { class: "zone-due" }, `${t("check_due")} `, el("b", { text: money(due) }))),
      el("div", { class: "zone-check-line" }, el("span", { class: "zone-seen" }, `${t("check_seen")} `, el("b", { text: money(seen) })), el("span", { class: "zone-verdict", text: verdict })),
    );
  });
  return rows.length ? el("div", { class: "chip-check" }, el("div", { class: "chip-check-title", text: t("check_title") }), rows) : null;
}

export function renderActions(s, view) {
  const allowed = new Set(s.allowed || []);
  const live = !view.recall && view.connected && view.role === "dealer" && !view.busy;
  for (const button of document.querySelectorAll("button.command")) {
    const name = button.dataset.command;
    let enabled = live;
    if (MAIN_COMMANDS.includes(name) || name === "VOID") enabled = live && allowed.has(name);
    if (name === "VOID") enabled = enabled && view.supervisor;
    button.disabled = !enabled;
    button.dataset.allowed = allowed.has(name) ? "yes" : "no";
    // Shown only while the rules offer it to the hand (55-4 1°, 2020), so the bar keeps its room.
    if (name === "SURRENDER") button.hidden = !allowed.has(name);
  }
  $("recall-open").disabled = !!view.recall || !view.connected;
  // Who sits where is said between rounds, before DEAL: the dealer touches a box's number (display.js).
  document.body.dataset.seating = live && !ROUND_PHASES.has(s.phase) ? "yes" : "no";
}

// Everything that comes from the snapshot; `view` says who looks and how.
export function renderTable(snapshot, view) {
  document.title = t("title", { table: snapshot.table_id });
  renderTop(snapshot);
  renderAlarms(snapshot, view);
  renderBank(snapshot);
  renderBoxes(snapshot);
  renderHyper(snapshot, view);
  renderActions(snapshot, view);
  renderCardWaiting(snapshot, view);
  $("recovered").hidden = !snapshot.recovered;
  $("recovered").textContent = t("recovered", { round: snapshot.round });
  markShortBoxes();
}

// Once everything above the boxes has its size: a box too short for all it holds (seven boxes, the hyper field
// and the alarms) is marked short (display.css .box.short): it keeps the zones to check and each hand's total,
// and drops what says the same twice (the payouts beside the net, the hands' stake lines, the cards while the
// chips are checked).
function markShortBoxes() {
  for (const node of $("boxes").children) {
    if (node.scrollHeight > node.clientHeight) node.classList.add("short");
  }
}
