// The recall bar: which round and step is shown, when (the journal's clock), and what the step did, in the
// page's language. A step carries the journaled input's `type` and the `events` it produced (recall.py);
// its English `text` is shown only on an English screen, and only for a step that has no events.
import { $, el, replaceChildren } from "./dom.js";
import { cardText, clock, has, lang, money, t, tOr } from "./text.js";

function target(where, card) {
  if (where === "bank") return t("event_card_to_bank", { card });
  const match = /^box(\d+)\.hand(\d+)$/.exec(where || "");
  if (!match) return t("event_card_held", { card });
  return match[2] === "0" ? t("event_card_to_box", { card, box: match[1] }) : t("event_card_to_hand", { card, box: match[1], hand: Number(match[2]) + 1 });
}

function eventText(event) {
  switch (event.type) {
    case "CardAssigned": return target(event.target, cardText(event.card));
    case "CardBurned": return t("event_card_burned", { card: cardText(event.card) });
    case "CardHeld": return t("event_card_held", { card: cardText(event.card) });
    case "CardsDiscarded": return t("event_cards_discarded", { cards: (event.cards || []).map(cardText).join(" ") });
    case "HandStood": return t("event_stood", { box: event.box });
    case "HandDoubled": return t("event_doubled", { box: event.box, amount: money(event.added_cents) });
    case "HandSplit": return t("event_split", { box: event.box, amount: money(event.added_cents) });
    case "HandSurrendered": return t("event_surrendered", { box: event.box, amount: money(event.returned_cents) });
    case "InsuranceTaken": return t("event_insured", { box: event.box, amount: money(event.cents) });
    case "ActionUndone": {
      const box = /^box(\d+)/.exec(event.target || "");
      return box ? t("event_undone", { box: box[1] }) : t("event_undone_bank");
    }
    case "RoundSettled": return event.bank_blackjack ? t("event_settled_blackjack") : t("event_settled", { bank_total: event.bank_total });
    case "RoundVoided": return t("event_voided", voidWords(event));
    case "RoundClosed": return t("event_closed");
    case "HyperFieldSettled": return t("event_hyper_settled", { result: event.result === "blackjack" ? "BLACK JACK" : String(event.result).toUpperCase() });
    case "Alarm": return t("event_alarm", { kind: tOr("alarm_" + event.kind, event.kind) });
    case "BuyInRecorded": {
      const words = { amount: money(event.cents), tender: tOr("tender_" + event.tender, event.tender), box: event.box };
      return event.box ? t("event_buy_in_box", words) : t("event_buy_in", words);
    }
    default: return null; // phase and turn changes: the step's snapshot shows them
  }
}

// Who voided a round and why, in the page's language where the catalogue knows the words (a role, "misdeal").
function voidWords(void_) {
  return { by: tOr("void_by_" + void_.by, void_.by || "?"), reason: tOr("void_reason_" + void_.reason, void_.reason || "?") };
}

function resultText(round) {
  const result = tOr("result_" + round.result, round.result);
  return round.void ? t("result_voided_because", { result, ...voidWords(round.void) }) : result;
}

// The bets of a BetsLocked step, read from its snapshot (the input itself is not in the step).
function betsText(snapshot) {
  return (snapshot.boxes || [])
    .filter((box) => box.seated_cents)
    .map((box) => {
      const behind = (box.behind || []).reduce((sum, b) => sum + b.cents, 0);
      const amount = money(box.seated_cents);
      return behind ? t("event_bet_behind", { box: box.box, amount, behind: money(behind) }) : t("event_bet", { box: box.box, amount });
    });
}

export function stepText(step) {
  const label = has("step_" + step.type) ? t("step_" + step.type) : t("step_unknown");
  const parts = step.type === "BetsLocked" ? betsText(step.snapshot || {}) : [];
  for (const event of step.events || []) {
    const text = eventText(event);
    if (text) parts.push(text);
  }
  return parts.length ? `${label} — ${parts.join(" · ")}` : label;
}

function roundTimes(round) {
  const steps = round.steps;
  const start = clock(steps[0].ts);
  if (round.result === "in_progress") return t("recall_since", { start });
  return t("recall_times", { start, end: clock(steps[steps.length - 1].ts) });
}

export function renderRecallBar(recall) {
  const bar = $("recall-bar");
  bar.hidden = !recall;
  if (!recall) return;
  const round = recall.rounds[recall.round];
  const step = round.steps[recall.step];
  $("recall-title").textContent =
    `${t("recall_round", { round: round.round })} (${resultText(round)}) · ` +
    t("recall_step", { step: recall.step + 1, steps: round.steps.length });
  $("recall-times").textContent = roundTimes(round);
  replaceChildren(
    $("recall-step-text"),
    el("time", { class: "recall-clock", text: clock(step.ts) }),
    el("span", { class: "recall-what", text: stepText(step) }),
    step.employee ? el("span", { class: "recall-author", text: t("recall_by", { name: step.name || step.employee }) }) : null,
    lang() === "en" && !(step.events || []).length && step.text ? el("span", { class: "recall-details details", text: step.text }) : null,
  );
  bar.dataset.round = String(round.round);
  bar.dataset.step = String(recall.step);
  $("recall-prev-round").disabled = recall.round === 0;
  $("recall-next-round").disabled = recall.round === recall.rounds.length - 1;
  $("recall-prev-step").disabled = recall.step === 0 && recall.round === 0;
  $("recall-next-step").disabled = recall.step === round.steps.length - 1 && recall.round === recall.rounds.length - 1;
}
