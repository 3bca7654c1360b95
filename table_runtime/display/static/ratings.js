// The supervisor's view of the rated players (docs/rating.md): the open sessions by box with the time played,
// theo and the theo of the player's own decisions, and the advice on a session (advantage_play alarms). The
// server answers it to the pit, and to a dealer's screen only with the supervisor's PIN; the page shows what it
// is sent, in its language.
import { $, el } from "./dom.js";
import { alarmBody } from "./alarm.js";
import { money, t } from "./text.js";

function duration(seconds) {
  const minutes = Math.floor(seconds / 60);
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, "0")}`;
}

function who(session) {
  const name = session.player === null ? t("ratings_anonymous") : session.player;
  return session.behind ? t("ratings_behind", { player: name }) : name;
}

// The table's lifetime meters (core/meters.py), as the live snapshot has them.
function meters(snapshot) {
  const m = snapshot && snapshot.meters;
  if (!m) return "";
  return t("meters_line", { handle: money(m.handle_cents), win: money(m.win_cents), drop: money(m.drop_cents),
    rounds: m.rounds, hands: m.hands, voids: m.voids });
}

// `reply`: the server's {"type": "ratings", "sessions": [...], "flags": [...]}; `snapshot`: the live table's.
export function showRatings(reply, snapshot) {
  const rows = reply.sessions.map((session) => el("tr", { "data-session": session.session, "data-box": String(session.box) }, [
    el("td", { text: String(session.box) }),
    el("td", { class: "ratings-player", text: who(session) }),
    el("td", { class: "ratings-time", text: duration(session.seconds_played) }),
    el("td", { text: String(session.rounds) }),
    el("td", { class: "ratings-handle", text: money(session.handle_cents) }),
    el("td", { class: "ratings-theo", text: money(session.theo_cents) }),
    el("td", { class: "ratings-skill", text: money(session.theo_skill_cents) }),
  ]));
  $("ratings-rows").replaceChildren(...rows);
  $("ratings-empty").hidden = rows.length > 0;
  $("ratings-flags").replaceChildren(...reply.flags.map((flag) => el("p", { class: "ratings-flag", "data-alarm": String(flag.id) },
    [t("ratings_flag", { box: flag.box, text: alarmBody(flag).text })])));
  showDealers(reply.dealers);
  $("ratings-meters").textContent = meters(snapshot);
  $("ratings-dialog").showModal();
}

// The dealers' stints at this table (where a staff registry rules it): pace, the time shuffling and idle (in % of
// the stint's), errors per 100 rounds.
function share(part, whole) {
  return `${(whole > 0 ? (100 * part) / whole : 0).toFixed(1)} %`;
}

function showDealers(dealers) {
  $("dealers").hidden = !dealers;
  if (!dealers) return;
  $("dealers-rows").replaceChildren(...dealers.map((stint) => el("tr", { "data-employee": stint.employee }, [
    el("td", { class: "dealers-name", text: stint.name || stint.employee }),
    el("td", { text: duration(stint.seconds) }),
    el("td", { text: String(stint.rounds) }),
    el("td", { text: stint.rounds_per_hour.toFixed(1) }),
    el("td", { text: stint.hands_per_hour.toFixed(1) }),
    el("td", { text: stint.box_rounds_per_hour.toFixed(1) }),
    el("td", { class: "dealers-shuffle", text: share(stint.shuffle_seconds || 0, stint.seconds) }),
    el("td", { class: "dealers-idle", text: share(stint.idle_seconds, stint.seconds) }),
    el("td", { class: "dealers-errors", text: stint.errors_per_100_rounds.toFixed(1) }),
  ])));
}

export function buildRatingsDialog() {
  $("ratings-close").addEventListener("click", () => $("ratings-dialog").close());
}
