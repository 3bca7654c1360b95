// The alarm banner: each alarm in the page's language, built from its structured fields (kind, box,
// amounts, rule), never from the runtime's English `message`. Facts a kind's message holds beyond its
// amounts (the card drawn, the command refused) are read from it when it names them in the runtime's
// fixed form ("card 8C", "DOUBLE refused"); the message itself is shown only on an English screen, as
// the alarm's details. docs/display.md, "What the page shows".
import { REASONS, REFUSAL_KEYS, RULES } from "./i18n.js";
import { currentRule, currentWords, oldCitations } from "./old_citations.js";
import { cardText, has, lang, money, t, tOr } from "./text.js";
import { $, el, replaceChildren } from "./dom.js";

const COMMANDS = new Set(["NEXT", "DOUBLE", "SPLIT", "UNDO", "CONFIRM", "VOID", "DISCARD", "MANUAL_CARD", "ACK_ALARM", "DEAL", "SURRENDER", "SEAT", "SEAT_CLEAR",
  "BUY_IN", "SEAT_CARD", "PAUSE", "RESUME", "MOVE", "BEHIND", "BEHIND_CLEAR"]);

// The facts a reason's wording names, as the runtime's `why` ("the round is in phase playing") states them for
// the catalogue's `key` (REASONS), in the page's language; null when the text is not of that form.
function facts(why, key) {
  for (const [source, found] of REASONS) {
    if (found !== key) continue;
    const match = new RegExp(`^${source}$`).exec(why);
    if (!match) continue;
    const vars = {};
    for (const [name, value] of Object.entries(match.groups || {})) {
      if (name === "phase") vars[name] = tOr("phase_" + value, value);
      else if (name === "cards" || name === "first" || name === "second") vars[name] = value.split(" ").map(cardText).join(" ");
      else if (name.endsWith("_cents")) vars[name] = money(Number(value));
      else vars[name] = value;
    }
    return vars;
  }
  return null;
}

// Why the table refused, from its reason `code` (REFUSAL_KEYS): the words are the code's, the facts of the moment
// the message's when it states them in a form the catalogue knows. null for a code the catalogue does not know.
export function reasonText(code, why) {
  const keys = REFUSAL_KEYS[code];
  if (!keys) return null;
  for (const key of keys) {
    const vars = facts(why || "", key);
    if (vars) return t(key, vars);
  }
  const plain = keys[keys.length - 1];
  return has(plain + "__plain") ? t(plain + "__plain") : t(plain);
}

// A refusal as the runtime words it ("DOUBLE refused: <reason>", "bets refused: <reason>") with its reason `code`
// when it has one (a reply's or an alarm's `reason`): the command and the reason in the page's language, each null
// when the catalogue does not know it. Without a code (an older runtime) the reason is read from the words.
export function refusal(message, code) {
  const match = /^([A-Za-z_]+) (?:refused|not applied): (.+)$/.exec(currentWords(message));
  const known = code && code in REFUSAL_KEYS;
  if (!match && !known) return null;
  const [, what, why] = match || [null, null, message || ""];
  const command = !what ? null : COMMANDS.has(what) && has("cmd_" + what) ? t("cmd_" + what) : has("what_" + what) ? t("what_" + what) : null;
  if (known) return { command, reason: reasonText(code, why) };
  for (const [, key] of REASONS) {
    const vars = facts(why, key);
    if (vars) return { command, reason: t(key, vars) };
  }
  return { command, reason: null };
}

// The fields a body may name: the amounts (money for names ending in _cents, else counts), and what the
// message states in the runtime's fixed form.
function fields(alarm) {
  const vars = {};
  for (const [name, value] of Object.entries(alarm.amounts || {})) vars[name] = name.endsWith("_cents") ? money(value) : String(value);
  const message = alarm.message || "";
  const card = /\bcard ([2-9TJQKA][SHDC])\b/.exec(message);
  if (card) vars.card = cardText(card[1]);
  const file = /^file (\S+) /.exec(message);
  if (file) vars.file = file[1];
  const refused = refusal(message, alarm.reason);
  if (refused && refused.command) vars.command = refused.command;
  if (refused && refused.reason) vars.reason = refused.reason;
  return vars;
}

// The first body of the kind (body_KIND, body_KIND__2, ...) whose every field the alarm has, and the
// fields it names (the amounts it leaves out are shown beside it).
export function alarmBody(alarm) {
  const vars = fields(alarm);
  for (let variant = 1; ; variant += 1) {
    const key = variant === 1 ? `body_${alarm.kind}` : `body_${alarm.kind}__${variant}`;
    if (!has(key)) break;
    const needed = [...t(key).matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
    if (needed.every((name) => name in vars)) return { text: t(key, vars), named: new Set(needed) };
  }
  return { text: t("body_unknown"), named: new Set() };
}

// The rule in the page's language: the catalogue's text of the rule the source cites (an older journal's citation read
// as today's, old_citations.js), else the rule as journaled: a citation of the public text or of docs/rules.md.
export function ruleText(journaled) {
  const rule = currentRule(journaled);
  for (const [pattern, key] of RULES) {
    if (!pattern.includes("{")) {
      if (pattern === rule) return t(key);
      continue;
    }
    const names = [...pattern.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
    const source = pattern.split(/\{\w+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, "\\$&")).join("(.+?)");
    const match = new RegExp(`^${source}$`).exec(rule);
    if (match) return t(key, Object.fromEntries(names.map((name, index) => [name, match[index + 1]])));
  }
  // An older citation no table knows: never its file or line numbers, but whom it cites, in words.
  const cited = oldCitations(rule);
  if (cited.length) return t("rule_unknown", { citations: cited.map((key) => t(key)).join(", ") });
  return rule ? t("rule_unknown", { citations: rule }) : "";
}

export function renderAlarms(s, view) {
  const section = $("alarms");
  const open = (s.alarms || []).filter((a) => !a.acknowledged);
  const acknowledged = (s.alarms || []).length - open.length;
  section.hidden = open.length === 0;
  const rows = open.map((alarm) => {
    const body = alarmBody(alarm);
    const amounts = Object.entries(alarm.amounts || {})
      .filter(([name]) => !body.named.has(name))
      .map(([name, value]) =>
        el("span", { class: "amount" }, `${tOr("amount_" + name, name)} `, el("b", { text: name.endsWith("_cents") ? money(value) : String(value) })),
      );
    return el(
      "div",
      { class: "alarm", "data-alarm": alarm.id, "data-kind": alarm.kind, "data-supervisor": alarm.supervisor ? "yes" : "no" },
      el("span", { class: "alarm-icon", text: "⚠" }),
      el(
        "div",
        { class: "alarm-body" },
        el(
          "div",
          { class: "alarm-head" },
          // An unknown kind is shown as its id: a name the catalogue does not have yet.
          el("b", { class: "alarm-kind", text: tOr("alarm_" + alarm.kind, alarm.kind) }),
          alarm.box ? el("span", { class: "alarm-box", text: t("alarm_box", { box: alarm.box }) }) : null,
          // One open alarm counts a storm of its kind on its box (junk tags, cards no hand can take).
          alarm.count > 1
            ? el("span", { class: "alarm-count", "data-count": alarm.count, title: t("alarm_count_title", { n: alarm.count }), text: t("alarm_count", { n: alarm.count }) })
            : null,
          alarm.supervisor ? el("span", { class: "alarm-supervisor", text: t("alarm_supervisor") }) : null,
          amounts,
        ),
        el("div", { class: "alarm-message", text: body.text }),
        el("div", { class: "alarm-rule", text: ruleText(alarm.rule) }),
        // The runtime's own line, on an English screen, unless the body already says all of it.
        lang() === "en" && alarm.message && !body.named.has("reason") ? el("div", { class: "alarm-details details", text: alarm.message }) : null,
      ),
      view.role === "dealer" && !view.recall
        ? el("button", { type: "button", class: "ack", "data-ack": alarm.id, "data-supervisor": alarm.supervisor ? "yes" : "no", text: t("ack") })
        : null,
    );
  });
  // The oldest alarms first, as many as the screen has room for (CSS: two, one on a small screen); the
  // others are counted and come up as the shown ones are acknowledged.
  rows.forEach((row, index) => row.setAttribute("data-rank", String(index)));
  // Alarms past the snapshot's cap (`alarms_hidden`) are waiting too.
  const beyond = s.alarms_hidden || 0;
  const waiting = (hidden) =>
    open.length + beyond > hidden ? el("div", { class: `alarm-more more-${hidden}`, text: t("alarms_waiting", { n: open.length + beyond - hidden }) }) : null;
  replaceChildren(
    section,
    rows,
    waiting(1),
    waiting(2),
    acknowledged ? el("div", { class: "small", text: t("alarms_acknowledged", { n: acknowledged }) }) : null,
  );
}
