// The séance view (docs/accounts.md): the open séance's figures as the table's snapshot has them (opener, fills,
// credits, drop in cash and markers, tips into the tronc, orphan chips, the tray the table expects), the slips
// that wait for the supervisor (each confirmed with the supervisor's PIN: the second role), and the dealer's
// actions: the tray counted by denomination to open or close the séance, a fill of the initial advance (art. 49),
// a tip into the tronc for a box. The table decides (table_runtime/core/seance.py); a refusal is one line here.
import { $, el } from "./dom.js";
import { money, t } from "./text.js";

const DENOMINATIONS = [50000, 10000, 2500, 500, 100, 50]; // the tray's rows
const BOXES = 7;

let actions = null; // {command(name, args, onResult), confirm(number), refusal(name, result)}
let tipBox = null;

function count() {
  const chips = {};
  for (const input of $("seance-count").querySelectorAll("input")) {
    const number = Number(input.value || "0");
    if (number > 0) chips[input.dataset.denomination] = Math.floor(number);
  }
  return chips;
}

function countedCents() {
  return Object.entries(count()).reduce((sum, [denomination, number]) => sum + Number(denomination) * number, 0);
}

function figure(key, cents) {
  return el("tr", { "data-figure": key }, [el("th", { text: t("seance_" + key) }), el("td", { text: money(cents) })]);
}

// `seance`: the snapshot's {"required", "open", "current"?, "last"?} (absent before the first séance).
export function renderSeance(seance) {
  if (!actions) return;
  const current = seance && seance.current;
  $("seance-dialog").dataset.open = current ? "yes" : "no";
  $("seance-heading").textContent = current ? t("seance_title", { number: current.seance }) : t("seance_none");
  $("seance-required").hidden = !(seance && seance.required && !current);
  const last = seance && seance.last;
  $("seance-last").hidden = !last;
  if (last) $("seance-last").textContent = t("seance_last", { number: last.seance, win: money(last.win_cents, true) });
  $("seance-figures").replaceChildren(...(current ? [
    figure("opener", current.opener_cents), figure("fills", current.fills_cents),
    figure("credits", current.credits_cents), figure("drop_cash", current.drop_cash_cents),
    figure("drop_marker", current.drop_marker_cents), figure("tips", current.tips_cents),
    figure("orphans", current.orphans_cents), figure("tray", current.expected_tray_cents),
  ] : []));
  const waiting = current ? current.slips.filter((slip) => !slip.confirmed_by) : [];
  $("seance-slips").replaceChildren(...waiting.map((slip) => el("p", { class: "seance-slip", "data-slip": String(slip.number) }, [
    el("span", { text: t("seance_slip", { number: slip.number, kind: t("slip_" + slip.kind), amount: money(slip.cents) }) }),
    el("button", { type: "button", class: "primary", "data-confirm": String(slip.number), text: t("seance_confirm") }),
  ])));
  $("seance-slips-empty").hidden = waiting.length > 0 || !current;
  $("seance-do-open").hidden = !!current;
  $("seance-do-close").hidden = !current;
  $("seance-do-fill").hidden = !current;
  $("seance-do-fill").dataset.cents = current ? String(current.opener_cents) : "";
  $("seance-tip").hidden = !current;
  $("seance-do-fill").dataset.opener = current ? JSON.stringify(current.opener.chips) : "";
  $("seance-counted").textContent = money(countedCents());
  for (const label of $("seance-count").querySelectorAll("span")) label.textContent = money(Number(label.dataset.cents));
}

function run(name, args) {
  $("seance-error").textContent = "";
  actions.command(name, args, (result) => {
    if (!result.ok) $("seance-error").textContent = actions.refusal(name, result);
  });
}

// `command(name, args, onResult)` sends a command; `confirm(number)` asks the PIN for SLIP_CONFIRM; `refusal(name,
// result)` words a refusal; `seance()` is the live snapshot's séance.
export function buildSeanceDialog({ command, confirm, refusal, seance }) {
  actions = { command, confirm, refusal };
  $("seance-count").replaceChildren(...DENOMINATIONS.map((denomination) => el("label", { class: "seance-row" }, [
    el("span", { "data-cents": String(denomination), text: money(denomination) }),
    el("input", { type: "number", min: "0", step: "1", inputmode: "numeric", "data-denomination": String(denomination) }),
  ])));
  $("seance-count").addEventListener("input", () => { $("seance-counted").textContent = money(countedCents()); });
  $("seance-tip-boxes").replaceChildren(...Array.from({ length: BOXES }, (_, index) =>
    el("button", { type: "button", "data-box": String(index + 1), text: String(index + 1) })));
  $("seance-tip-boxes").addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (!button) return;
    tipBox = Number(button.dataset.box);
    for (const b of $("seance-tip-boxes").children) b.classList.toggle("selected", b === button);
  });
  $("seance-slips").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-confirm]");
    if (button) confirm(Number(button.dataset.confirm));
  });
  $("seance-do-open").addEventListener("click", () => run("SEANCE_OPEN", { chips: count(), source: "manual" }));
  $("seance-do-close").addEventListener("click", () => run("SEANCE_CLOSE", { chips: count(), source: "manual" }));
  $("seance-do-fill").addEventListener("click", () => run("FILL", { chips: JSON.parse($("seance-do-fill").dataset.opener || "{}") }));
  $("seance-tip-send").addEventListener("click", () => {
    const euros = Number($("seance-tip-amount").value || "0");
    run("TIP", { box: tipBox, cents: Math.round(euros * 100) });
  });
  $("seance-close").addEventListener("click", () => $("seance-dialog").close());
  $("seance-open").addEventListener("click", () => {
    $("seance-error").textContent = "";
    renderSeance(seance());
    $("seance-dialog").showModal();
  });
}
