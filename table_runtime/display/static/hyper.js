// The hyper black jack field (art. 55-4 6°): seven shared cases along the insurance line, on the dealer's side.
// Before the deal the dealer says whose each case's chips are (HYPER_ASSIGN): the amount still to assign, a
// button per box with a main bet to give it to, the assigned stakes (a tap takes one back). In play: each
// case's stakes by box; settled: the bank's final result, each stake's payout, the payout check of each case's
// zone (due, seen) and the four steps of the text's settlement order. Pure DOM work from the snapshot.
import { $, el, replaceChildren } from "./dom.js";
import { money, t } from "./text.js";

const STEPS = ["collect_hyper", "collect_main", "pay_main", "pay_hyper"];

// The dealer assigns only while bets are open, from the live table.
function assigning(s, view) {
  return s.phase === "betting" || s.phase === "closed" || s.phase === "voided"
    ? !view.recall && view.role === "dealer" && view.connected
    : false;
}

function caseNode(item, s, view) {
  const zone = item.zone;
  const onFelt = (s.zones || {})[zone] || 0;
  const betting = assigning(s, view);
  const stakes = betting ? (s.hyper_assigned || []).filter((stake) => stake.case === item.case) : item.stakes;
  const assigned = stakes.reduce((sum, stake) => sum + stake.cents, 0);
  const check = s.phase === "settlement" ? (s.payout_check || {})[zone] : null;
  const won = s.hyper.result === item.case;
  const attrs = { class: "hyper-case", "data-case": item.case, "data-won": won ? "yes" : null };
  const lines = [
    el("div", { class: "hyper-head" },
      el("b", { class: "hyper-label", text: item.label }),
      el("span", { class: "hyper-odds", text: t("hyper_odds", { odds: item.odds }) })),
  ];
  for (const stake of stakes) {
    const who = `${t("hyper_box", { box: stake.box })}${stake.owner.endsWith(".behind") ? " " + t("zone_behind") : ""}`;
    const text = `${who} ${money(stake.cents)}`;
    const payout = item.payouts.find((p) => p.box === stake.box && p.owner === stake.owner);
    if (betting) {
      lines.push(el("button", { type: "button", class: "hyper-stake", "data-unassign": `${item.case}:${stake.box}:${stake.owner.endsWith(".behind") ? 1 : 0}`, text: text + " ×" }));
    } else {
      // Settled, a small screen shows who and the payout only (the stake is in the payout's tooltip).
      lines.push(el("div", { class: payout ? "hyper-stake paid" : "hyper-stake", "data-box": stake.box, title: text },
        el("span", { text: who }), el("span", { class: "hyper-stake-amount", text: money(stake.cents) }),
        payout ? el("b", { class: "hyper-payout", "data-outcome": payout.outcome, text: money(payout.net_cents, true) }) : null));
    }
  }
  if (betting && onFelt !== assigned) {
    const left = onFelt - assigned;
    lines.push(el("div", { class: "hyper-unassigned", "data-left": left, text: t(left > 0 ? "hyper_to_assign" : "hyper_over_assigned", { amount: money(Math.abs(left)) }) }));
    if (left > 0) {
      const boxes = (s.zones ? Object.keys(s.zones) : []).filter((name) => /^box[1-7]$/.test(name) && s.zones[name] > 0);
      lines.push(el("div", { class: "hyper-assign" }, boxes.map((name) => {
        const box = Number(name.slice(3));
        const mine = stakes.find((stake) => stake.box === box && !stake.owner.endsWith(".behind"));
        return el("button", { type: "button", "data-assign": `${item.case}:${box}:${(mine ? mine.cents : 0) + left}`, text: t("hyper_box", { box }) });
      })));
    }
  }
  if (check) {
    const difference = check.seen_cents - check.due_cents;
    lines.push(el("div", { class: "zone-check", "data-zone": zone, "data-match": difference === 0 ? "yes" : "no", "data-difference": difference },
      el("span", { class: "zone-due" }, `${t("check_due")} `, el("b", { text: money(check.due_cents) })),
      el("span", { class: "zone-verdict", text: difference === 0 ? "✓" : difference < 0 ? t("check_short", { amount: money(-difference) }) : t("check_over", { amount: money(difference) }) })));
  }
  return el("div", attrs, lines);
}

function stepsNode(s) {
  const steps = s.hyper.settlement || [];
  if (!steps.length || s.phase !== "settlement") return null;
  return el("ol", { class: "hyper-steps" }, STEPS.map((name) => {
    const step = steps.find((item) => item.step === name) || { cents: 0 };
    return el("li", { "data-step": name, "data-empty": step.cents ? null : "yes" }, `${t("hyper_step_" + name)} ${step.cents ? money(step.cents) : "—"}`);
  }));
}

export function renderHyper(s, view) {
  const section = $("hyper");
  if (!section) return; // a page without the field (the pit's table view)
  if (!s.hyper) {
    section.hidden = true;
    return;
  }
  section.hidden = false;
  const result = s.hyper.result ? s.hyper.cases.find((item) => item.case === s.hyper.result) : null;
  $("hyper-result").textContent = result ? t("hyper_result", { label: result.label }) : "";
  replaceChildren($("hyper-cases"), s.hyper.cases.map((item) => caseNode(item, s, view)));
  replaceChildren($("hyper-steps"), stepsNode(s));
}

// A tap on a box under a case gives it the case's chips; a tap on an assigned stake takes it back.
export function hyperTouch(event, command) {
  const button = event.target.closest("button[data-assign], button[data-unassign]");
  if (!button || button.disabled) return;
  if (button.dataset.assign) {
    const [hyperCase, box, cents] = button.dataset.assign.split(":");
    command("HYPER_ASSIGN", { case: hyperCase, box: Number(box), cents: Number(cents) });
  } else {
    const [hyperCase, box, behind] = button.dataset.unassign.split(":");
    command("HYPER_ASSIGN", { case: hyperCase, box: Number(box), cents: 0, behind: behind === "1" });
  }
}
