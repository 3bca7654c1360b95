// Text of the dealer display: the language in use, strings, money and totals as the dealer reads them.
import { STRINGS } from "./i18n.js";

let chosen = null; // the language this screen chose (FR/EN buttons, ?lang=)
let fallback = "fr"; // the table's default, from the server's hello

export function setLanguage({ choice, table }) {
  if (choice !== undefined) chosen = choice;
  if (table !== undefined) fallback = table;
}

// --- text ------------------------------------------------------------------------------------
export function lang() {
  const code = chosen || fallback;
  return STRINGS[code] ? code : "fr";
}

export function t(key, vars) {
  const table = STRINGS[lang()];
  return fill(key in table ? table[key] : key in STRINGS.en ? STRINGS.en[key] : key, vars);
}

// `text` with each "{name}" in it replaced by vars[name].
export function fill(text, vars) {
  if (vars) {
    for (const [name, value] of Object.entries(vars)) text = text.split("{" + name + "}").join(String(value));
  }
  return text;
}

export function has(key) {
  return key in STRINGS[lang()];
}

export function tOr(key, fallback) {
  return key in STRINGS[lang()] ? STRINGS[lang()][key] : fallback;
}

export function money(cents, signed) {
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

// The page's fixed words: each node's data-i18n key (or the key in data-<attribute>, read with `translate`:
// the pit page's own words), and the FR/EN buttons.
export function applyStaticText(attribute = "i18n", translate = t) {
  document.documentElement.lang = lang();
  for (const node of document.querySelectorAll(`[data-${attribute}]`)) {
    const text = translate(node.dataset[attribute]);
    if (node.textContent !== text) node.textContent = text;
  }
  for (const button of document.querySelectorAll("#lang button")) {
    button.classList.toggle("selected", button.dataset.lang === lang());
  }
}

// A soft total reads "7/17" (ace as 1 / ace as 11) while the hand may still draw; once it has
// stood (or the bank stands) only the total that counts is shown. A soft 21 is just 21.
export function totalText(total, soft, blackjack, cardCount, open) {
  if (!cardCount) return "";
  if (blackjack) return "BJ";
  if (soft && open && total < 21) return `${total - 10}/${total}`;
  return String(total);
}


export const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };

// A card in running text: "8♣", "10♥".
export function cardText(code) {
  return (code[0] === "T" ? "10" : code[0]) + (SUIT_SYMBOL[code[1]] || "?");
}

// A player as the dealer names them. The runtime names the players it only knows by their zone
// ("box3", "box3.behind"): those read "Seated" / "Behind" / "Insurance", since the box number is already on
// screen; a player with a name keeps it ("Behind Ann" for a player behind).
export function ownerName(owner, box, role) {
  const zone = /^box\d+(\.behind|\.insurance)?$/.exec(owner || "");
  if (zone) return zone[1] === ".behind" ? t("behind") : zone[1] === ".insurance" ? t("insurance") : t("seated_player");
  return role === "behind" ? t("behind_player", { name: owner }) : owner;
}

// A clock time of the journal (seconds since the epoch), as the table's clock shows it.
export function clock(ts) {
  return new Date(ts * 1000).toLocaleTimeString(lang() === "fr" ? "fr-FR" : "en-GB", { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}
