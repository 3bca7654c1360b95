// The séance of one table for the pit (docs/accounts.md): its figures as the table's snapshots give them, and a
// chart of its win and its float (the tray the table expects) through the séance, one point a round. The page folds
// the snapshots it receives (`SeanceTrail.see`): a point per round closed in the séance, the newest figures of that
// round; a new séance starts a new chart. The chart is an inline SVG drawn here, no library: two bands, the float
// above, the win below, each scaled to its own range.
import { el } from "./dom.js";
import { money, t } from "./text.js";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 480;
const BAND = 90; // each series' band, in the SVG's units
const PAD = 8;
const LABEL = 14; // the band's label above its plot

function svg(name, attributes = {}) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  return node;
}

// What the pit shows of the séance's figures, in order: [label, figure].
const FIGURES = [
  ["seance_opener", "opener_cents"],
  ["seance_fills", "fills_cents"],
  ["seance_credits", "credits_cents"],
  ["seance_drop", "drop_cents"],
  ["seance_tips", "tips_cents"],
  ["seance_float", "expected_tray_cents"],
  ["seance_win", "win_so_far"],
];

export class SeanceTrail {
  constructor() {
    this.number = null; // the séance followed
    this.figures = null; // its newest figures
    this.open = false;
    this.points = new Map(); // rounds closed in the séance -> { win, float }
  }

  // One snapshot of the table: the open séance (`seance.current`) or the last one closed (`seance.last`).
  see(snapshot) {
    const seance = snapshot && snapshot.seance;
    const figures = seance && (seance.current || seance.last);
    if (!figures) return;
    if (figures.seance !== this.number) {
      this.number = figures.seance;
      this.points = new Map();
    }
    this.open = Boolean(seance.current);
    // Until the close the win is the house's result by settlement so far (−the players' net): the closer, counted
    // right, makes win_cents that very figure (closer − opener + credits − fills + drop).
    const win = figures.win_cents ?? -figures.players_net_cents;
    this.figures = { ...figures, win_so_far: win };
    this.points.set(figures.rounds, { win, float: figures.expected_tray_cents });
  }

  get series() {
    const rounds = [...this.points.keys()].sort((a, b) => a - b);
    return {
      rounds,
      win: rounds.map((round) => this.points.get(round).win),
      float: rounds.map((round) => this.points.get(round).float),
    };
  }
}

function band(name, rounds, values, top) {
  const group = svg("g", { class: "series", "data-series": name });
  // The win on a scale through 0 (its sign is the point); the float on its own range, a 1.00 € span at least.
  const low = name === "win" ? Math.min(0, ...values) : Math.min(...values, Infinity);
  const high = Math.max(low + 100, name === "win" ? 0 : -Infinity, ...values);
  const last = Math.max(1, rounds[rounds.length - 1] ?? 1);
  const x = (round) => PAD + ((WIDTH - 2 * PAD) * round) / last;
  const y = (cents) => top + BAND - PAD - ((BAND - LABEL - 2 * PAD) * (cents - low)) / (high - low);
  group.append(svg("rect", { class: "band", x: 0, y: top, width: WIDTH, height: BAND }));
  if (low < 0) group.append(svg("line", { class: "zero", x1: PAD, x2: WIDTH - PAD, y1: y(0), y2: y(0) }));
  const label = svg("text", { class: "label", x: PAD, y: top + 14 });
  label.textContent = `${t("chart_" + name)} ${values.length ? money(values[values.length - 1]) : ""}`;
  group.append(label);
  const points = rounds.map((round, index) => `${x(round).toFixed(1)},${y(values[index]).toFixed(1)}`);
  group.append(svg("polyline", { class: "line", points: points.join(" ") }));
  rounds.forEach((round, index) => {
    group.append(svg("circle", { class: "point", cx: x(round).toFixed(1), cy: y(values[index]).toFixed(1), r: 2.5,
                                 "data-round": round, "data-cents": values[index] }));
  });
  return group;
}

// The séance panel of the table's page: hidden while the table keeps no séance.
export function renderSeance(panel, trail) {
  panel.hidden = trail.figures === null;
  if (trail.figures === null) return;
  const figures = trail.figures;
  panel.dataset.seance = String(trail.number);
  panel.dataset.open = trail.open ? "yes" : "no";
  const heading = el("h2", { text: t(trail.open ? "seance_heading" : "seance_closed", { number: trail.number,
                                                                                        rounds: figures.rounds }) });
  const table = el("table", { class: "seance-figures" },
    ...FIGURES.map(([label, key]) => el("tr", { "data-figure": key },
      el("th", { text: t(label) }), el("td", { text: figures[key] === null ? "—" : money(figures[key]) }))));
  const { rounds, win, float } = trail.series;
  const chart = svg("svg", { id: "seance-chart", viewBox: `0 0 ${WIDTH} ${2 * BAND + PAD}`, role: "img",
                             "data-points": String(rounds.length) });
  const title = svg("title");
  title.textContent = t("chart_title", { number: trail.number });
  chart.append(title, band("float", rounds, float, 0), band("win", rounds, win, BAND + PAD));
  panel.replaceChildren(heading, table, chart);
}
