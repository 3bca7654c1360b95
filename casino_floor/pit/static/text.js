// Text of the pit page: its own strings and the hold as the pit reads them. The language in use, money and the
// table's names (alarm kinds, phases) are the dealer display's (/display/text.js): one choice of language
// serves the pit's words and a table's live view alike.
import { STRINGS } from "./i18n.js";
import { applyStaticText as applyText, fill, lang, setLanguage as setTableLanguage } from "/display/text.js";

// tableText(key, fallback): a name the table's own catalogue holds; an unknown one is shown as `fallback`.
export { lang, money, tOr as tableText } from "/display/text.js";

export function setLanguage({ choice, floor }) {
  setTableLanguage({ choice, table: floor });
}

export function t(key, vars) {
  const table = STRINGS[lang()];
  return fill(key in table ? table[key] : key, vars);
}

// A percentage of the shift's money (the hold: win / drop; win / handle) with one decimal: 12.34 -> "12,3 %" /
// "12.3%"; none (no drop, or no handle, yet) -> "—".
export function hold(percent) {
  if (percent === null || percent === undefined) return "—";
  const text = Math.abs(percent).toFixed(1);
  const sign = percent < 0 ? "−" : "";
  return sign + (lang() === "fr" ? `${text.replace(".", ",")}\u00a0%` : `${text}%`);
}

export function applyStaticText() {
  applyText("text", t);
}
