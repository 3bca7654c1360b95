// The buy-in dialog: the dealer records cash or a marker exchanged for chips at the table (the table's drop; not a
// bet, so it is open in a round and between rounds). The amount is typed in euros on a keypad (a comma for the
// cents), paid in cash or by a marker, for a box or none. The table checks it (table_runtime/core/buy_ins.py):
// an amount it refuses (0, over the table's maximum) comes back as one line under the amount, in the page's
// language, and the dialog stays open.
import { $, el } from "./dom.js";
import { money, t } from "./text.js";

const KEYS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", ",", "0", "⌫"];
const MAX_UNITS = 9; // digits before the comma: the table's maximum refuses the large ones, in its own words
const BOXES = 7;

const entry = { text: "", tender: "cash", box: null };

// The cents an entry means: "1250,5" -> 125050 (exact: no floating point); "" -> null.
export function centsOf(text) {
  if (!text) return null;
  const [units, decimals = ""] = text.split(",");
  return Number(units || "0") * 100 + Number((decimals + "00").slice(0, 2));
}

function type(key) {
  if (key === "⌫") entry.text = entry.text.slice(0, -1);
  else if (key === ",") { if (!entry.text.includes(",")) entry.text = (entry.text || "0") + ","; }
  else if (entry.text.includes(",")) { if (entry.text.split(",")[1].length < 2) entry.text += key; }
  else if (entry.text.replace(/^0+/, "").length < MAX_UNITS) entry.text = entry.text === "0" ? key : entry.text + key;
}

function update() {
  const cents = centsOf(entry.text);
  $("buy-in-amount").textContent = cents === null ? "—" : money(cents);
  $("buy-in-amount").dataset.cents = cents === null ? "" : String(cents);
  for (const b of $("buy-in-tender").children) b.classList.toggle("selected", b.dataset.tender === entry.tender);
  for (const b of $("buy-in-boxes").children) b.classList.toggle("selected", (b.dataset.box || null) === (entry.box === null ? null : String(entry.box)));
  $("buy-in-send").disabled = cents === null;
}

function openBuyIn() {
  Object.assign(entry, { text: "", tender: "cash", box: null });
  $("buy-in-error").textContent = "";
  update();
  $("buy-in-dialog").showModal();
}

// `send(args, onResult)` sends BUY_IN; `refusal(result)` words a refusal; `done(text)` shows a line to the dealer.
export function buildBuyInDialog({ send, refusal, done }) {
  $("buy-in-keys").replaceChildren(...KEYS.map((key) => el("button", { type: "button", "data-key": key, text: key })));
  $("buy-in-tender").replaceChildren(
    ...["cash", "marker"].map((tender) => el("button", { type: "button", "data-tender": tender, "data-i18n": "tender_" + tender })),
  );
  $("buy-in-boxes").replaceChildren(
    el("button", { type: "button", "data-box": "", "data-i18n": "buy_in_no_box" }),
    ...Array.from({ length: BOXES }, (_, index) => el("button", { type: "button", "data-box": String(index + 1), text: String(index + 1) })),
  );
  $("buy-in-keys").addEventListener("click", (event) => {
    const key = event.target.closest("button")?.dataset.key;
    if (key) { type(key); update(); }
  });
  $("buy-in-tender").addEventListener("click", (event) => {
    const tender = event.target.closest("button")?.dataset.tender;
    if (tender) { entry.tender = tender; update(); }
  });
  $("buy-in-boxes").addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (button) { entry.box = button.dataset.box ? Number(button.dataset.box) : null; update(); }
  });
  $("desk").addEventListener("click", (event) => {
    const button = event.target.closest("button.command");
    if (button && !button.disabled) openBuyIn();
  });
  $("buy-in-cancel").addEventListener("click", () => $("buy-in-dialog").close());
  $("buy-in-send").addEventListener("click", () => {
    const cents = centsOf(entry.text);
    const tender = entry.tender;
    const args = { cents, tender, ...(entry.box === null ? {} : { box: entry.box }) };
    $("buy-in-error").textContent = "";
    send(args, (result) => {
      if (result.ok) {
        $("buy-in-dialog").close();
        done(t("buy_in_done", { amount: money(cents), tender: t("tender_" + tender) }));
      } else {
        $("buy-in-error").textContent = refusal(result);
      }
    });
  });
}
