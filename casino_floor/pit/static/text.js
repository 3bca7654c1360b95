// Text of the pit page: the language in use, its strings, money and hold as the pit reads them.
import { STRINGS } from "./i18n.js";
import { STRINGS as TABLE_STRINGS } from "/display/i18n.js";

let chosen = null; // the language this screen chose (FR/EN buttons, ?lang=)
let fallback = "fr"; // the floor's default, from the server's hello

export function setLanguage({ choice, floor }) {
  if (choice !== undefined) chosen = choice;
  if (floor !== undefined) fallback = floor;
}

export function lang() {
  const code = chosen || fallback;
  return STRINGS[code] ? code : "fr";
}

function fill(text, vars) {
  if (vars) for (const [name, value] of Object.entries(vars)) text = text.split("{" + name + "}").join(String(value));
  return text;
}

export function t(key, vars) {
  const table = STRINGS[lang()];
  return fill(key in table ? table[key] : key, vars);
}

// A name the table's own catalogue holds (an alarm kind, a phase); an unknown one is shown as its id.
export function tableText(key, fallbackText) {
  const table = TABLE_STRINGS[lang()] || {};
  return key in table ? table[key] : fallbackText;
}

export function money(cents) {
  const negative = cents < 0;
  const absolute = Math.abs(cents);
  const units = Math.floor(absolute / 100);
  const rest = String(absolute % 100).padStart(2, "0");
  const sep = lang() === "fr" ? "\u202f" : ",";
  const grouped = String(units).replace(/\B(?=(\d{3})+(?!\d))/g, sep);
  const body = lang() === "fr" ? `${grouped},${rest}\u00a0€` : `€${grouped}.${rest}`;
  return (negative ? "−" : "") + body;
}

// The hold (win over drop, in percent) with one decimal: 12.34 -> "12,3 %" / "12.3%"; no drop yet -> "—".
export function hold(percent) {
  if (percent === null || percent === undefined) return "—";
  const text = Math.abs(percent).toFixed(1);
  const sign = percent < 0 ? "−" : "";
  return sign + (lang() === "fr" ? `${text.replace(".", ",")}\u00a0%` : `${text}%`);
}

export function applyStaticText() {
  document.documentElement.lang = lang();
  for (const node of document.querySelectorAll("[data-text]")) {
    const text = t(node.dataset.text);
    if (node.textContent !== text) node.textContent = text;
  }
  for (const button of document.querySelectorAll("#lang button")) {
    button.classList.toggle("selected", button.dataset.lang === lang());
  }
}
