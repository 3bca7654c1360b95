// What a journal written before the rules were cited by their public text holds, and what the display shows for it
// (docs/alarms.md, "Rules in older journals"). The journal, the feed, `table-runtime recall` and the floor keep an
// alarm's `rule` and `message` as they were journaled (the record is never rewritten); the banner reads an older
// citation as the one the code gives today, so an old alarm shows today's words in the page's language.
//
// This file alone may hold the older forms: a line of the regulation's text as the project first received it
// ("000:26"), of a house's text ("002:31"), or a section of the project's first statement of the rules and of the
// table's checks ("RULES.md ...", "TABLE.md ..."), none of which ships. tests/test_citations.py checks that each maps
// to a rule of the catalogue (i18n.js RULES) and that no other file cites them.

// An older rule string (a "{name}" is filled in by the code) -> the rule the code cites today.
export const OLD_RULES = [
  ["000:12",
   "arrêté du 14 mai 2007, art. 55-4 « Déroulement de la partie »: a player content with his total stands"],
  ["000:2",
   "arrêté du 14 mai 2007, art. 55-4 (« sept joueurs assis »): seven boxes, a second free box for a seated player"],
  ["000:25 (insurance on the bank's ace, in a round)",
   "arrêté du 14 mai 2007, art. 55-4 « Assurance »: insurance on the dealer's first card, an ace, in a round"],
  ["000:26 (half the initial stake)",
   "arrêté du 14 mai 2007, art. 55-4 « Assurance »: half the initial stake"],
  ["000:3 (seated + behind within the maximum)",
   "arrêté du 14 mai 2007, art. 55-4 (« les joueurs debout »): seated + behind within the table's maximum per hand"],
  ["000:30, 000:35 (an equal stake is added)",
   "arrêté du 14 mai 2007, art. 55-4 « Les paires », « Double-down »: a stake equal to the initial stake is added"],
  ["002:29 (option min_boxes_to_deal)",
   "house option min_boxes_to_deal, docs/rules.md « Options »: the fewest boxes with a bet to deal"],
  ["002:31 (posted minimum)",
   "table check, docs/rules.md « Bet limits »: a seated stake at least the posted minimum"],
  ["RULES.md Equipment and seats (a new shoe only after the round); 001:5",
   "table check, docs/rules.md « The shoe »: a new shoe only after the round"],
  ["RULES.md Equipment and seats: a player behind bets on a seated player's box (000:3)",
   "arrêté du 14 mai 2007, art. 55-4 (« les joueurs debout »): a player behind bets on a seated player's box, with his consent"],
  ["RULES.md Equipment and seats: the total on one box (seated + behind) is within the posted minimum and maximum (000:3, 002:31)",
   "arrêté du 14 mai 2007, art. 55-4 (« les joueurs debout »): seated + behind within the table's maximum per hand"],
  ["RULES.md Equipment: each rank-suit exactly {decks} times (000:1)",
   "arrêté du 14 mai 2007, art. 55-4 (« six jeux de cinquante-deux cartes »): each card exactly {decks} times in the shoe"],
  ["RULES.md Player decisions (Double); 000:35",
   "arrêté du 14 mai 2007, art. 55-4 « Double-down »: on the first two cards, one card only"],
  ["RULES.md Player decisions (Split); 000:30-32",
   "arrêté du 14 mai 2007, art. 55-4 « Les paires »: two cards of the same value; split aces take one card each"],
  ["RULES.md Player decisions: a double or a split adds a stake equal to the original (000:30, 000:35); insurance is half the original bet (000:26)",
   "arrêté du 14 mai 2007, art. 55-4 « Les paires », « Double-down », « Assurance »: a double or a split adds a stake equal to the initial stake; insurance is half of it"],
  ["RULES.md The bank; 000:15, 000:17",
   "arrêté du 14 mai 2007, art. 55-4 « Déroulement de la partie »: the bank stands on 17 or more; an ace counts 11 whenever that makes 17 to 21"],
  ["RULES.md The bank; 000:16",
   "arrêté du 14 mai 2007, art. 55-4 « Déroulement de la partie »: the bank draws to 17 or more"],
  ["RULES.md The deal",
   "table check, docs/rules.md « The shoe »: a round is dealt from a shuffled shoe, a new one after the cut card"],
  ["TABLE.md A round",
   "table check, docs/rules.md « A round »"],
  ["TABLE.md A round step 1",
   "table check, docs/rules.md « A round », step 1: the bets are locked (NO MORE BETS, or the first card)"],
  ["TABLE.md A round step 3; 000:25",
   "table check, docs/rules.md « A round », step 3; arrêté du 14 mai 2007, art. 55-4 « Assurance »: insurance only on the bank's ace, closed by CONFIRM"],
  ["TABLE.md A round step 4",
   "table check, docs/rules.md « A round », step 4: the boxes play in turn"],
  ["TABLE.md Corrections and recall",
   "table check, docs/rules.md « Corrections and recall »"],
  ["TABLE.md Corrections and recall: play stops on a broken journal until the supervisor clears it",
   "table check, docs/rules.md « Corrections and recall »: play stops on a broken journal until the supervisor clears it"],
  ["TABLE.md Corrections and recall (only a supervisor voids a round)",
   "table check, docs/rules.md « Corrections and recall »: only a supervisor voids a round"],
  ["TABLE.md Power loss; past-posting",
   "table check, docs/rules.md « Past-posting »"],
  ["TABLE.md Power loss: the table acts only on what is journaled",
   "table check, docs/rules.md « Power loss »: the table acts only on what is journaled"],
  ["TABLE.md Shoe integrity",
   "table check, docs/rules.md « Shoe integrity »"],
  ["TABLE.md What the controller must catch",
   "table check, docs/rules.md « What the table catches »"],
  ["TABLE.md What the controller must catch: chip integrity",
   "table check, docs/rules.md « Chip integrity »: every chip checked against the casino's chip registry"],
  ["TABLE.md What the controller must catch: dealer draw errors",
   "table check, docs/rules.md « Dealer draw errors »: a card drawn when no hand can take one"],
  ["TABLE.md What the controller must catch: shoe integrity",
   "table check, docs/rules.md « Shoe integrity »"],
  ["TABLE.md chip integrity: a chip the registry marks stolen is refused",
   "table check, docs/rules.md « Chip integrity »: a chip the registry marks stolen is refused"],
  ["TABLE.md chip integrity: a chip the registry marks void is refused",
   "table check, docs/rules.md « Chip integrity »: a chip the registry marks void is refused"],
  ["TABLE.md chip integrity: a chip's UID must be in the casino's chip registry",
   "table check, docs/rules.md « Chip integrity »: a chip's UID must be in the casino's chip registry"],
  ["TABLE.md chip integrity: only this casino's chips are played",
   "table check, docs/rules.md « Chip integrity »: only this casino's chips are played"],
  ["TABLE.md chip integrity: the denomination and casino in the tag must agree with the registry",
   "table check, docs/rules.md « Chip integrity »: the denomination and casino in the tag must agree with the registry"],
  ["TABLE.md past-posting",
   "table check, docs/rules.md « Past-posting »"],
  ["TABLE.md past-posting: no chip is added to or removed from a locked zone outside a double, split or insurance window",
   "table check, docs/rules.md « Past-posting »: no chip is added to or removed from a locked zone outside a double, split or insurance window"],
  ["TABLE.md settlement: lost stakes collected (zone empty), winners' zones equal stake + payout, pushes unchanged; a blackjack paid at once is stake + 3:2 (002:62)",
   "table check, docs/rules.md « Wrong payout »: lost stakes collected (zone empty), winners' zones equal stake + payout, pushes unchanged; a blackjack paid at once (house option pay_blackjack_before_bank) is stake + 3:2"],
  ["TABLE.md chip integrity",
   "table check, docs/rules.md « Chip integrity »"],
  ["TABLE.md shoe integrity: shoe or reader disconnected",
   "table check, docs/rules.md « Shoe integrity »: shoe or reader disconnected"],
  ["TABLE.md: every zone is read by its antenna several times a second",
   "table check, docs/rules.md « Devices »: every zone is read by its antenna several times a second"],
  ["TABLE.md: the insurance line holds chips only inside the insurance window",
   "table check, docs/rules.md « A round », step 3: the insurance line holds chips only inside the insurance window"],
  ["55-4 1° as amended on 6 May 2020 (« abandon »: on the first two cards, the bank showing no ace, half the initial stake back)",
   "arrêté du 14 mai 2007, art. 55-4 1°, modifié par l'arrêté du 6 mai 2020 (« abandon »): on the first two cards, the bank showing no ace, half the initial stake back"],
  ["55-4 as amended on 6 May 2020: the director may « interdire de jouer debout lorsque des places assises sont vacantes » (option no_behind_while_seat_vacant)",
   "arrêté du 14 mai 2007, art. 55-4 1°, modifié par l'arrêté du 6 mai 2020: the director may « interdire de jouer debout lorsque des places assises sont vacantes » (option no_behind_while_seat_vacant)"],
  ["55-4 as amended on 6 May 2020: the director may « limiter le nombre de cases sur lesquelles peut miser un joueur » (option max_boxes_per_player)",
   "arrêté du 14 mai 2007, art. 55-4 1°, modifié par l'arrêté du 6 mai 2020: the director may « limiter le nombre de cases sur lesquelles peut miser un joueur » (option max_boxes_per_player)"],
  ["TABLE.md Devices: a player card reader at the table identifies a rated player at a box",
   "table check, docs/rules.md « Devices »: a player card reader at the table identifies a rated player at a box"],
  ["55-4 6° (arrêté of 14 May 2007 as amended): the hyper black jack field",
   "arrêté du 14 mai 2007, art. 55-4 6° (« le black jack avec l'option hyper black jack »)"],
  ["55-4 6° (arrêté of 14 May 2007 as amended): the hyper black jack field (the director's minimum)",
   "arrêté du 14 mai 2007, art. 55-4 6° (« le black jack avec l'option hyper black jack »): the director's minimum"],
  ["55-4 6° (arrêté of 14 May 2007 as amended): the hyper black jack field (the director's maximum)",
   "arrêté du 14 mai 2007, art. 55-4 6° (« le black jack avec l'option hyper black jack »): the director's maximum"],
  ["55-4 6° (arrêté of 14 May 2007 as amended): the hyper black jack field: settled on the bank's final result; 000:16",
   "arrêté du 14 mai 2007, art. 55-4 6° (« le black jack avec l'option hyper black jack »): settled on « le résultat final de la banque »; art. 55-4 « Déroulement de la partie »: the bank draws to 17 or more"],
  ["55-4 6° (arrêté of 14 May 2007 as amended): the hyper black jack field: « avant la distribution des cartes », after the main bet",
   "arrêté du 14 mai 2007, art. 55-4 6° (« le black jack avec l'option hyper black jack »): « avant la distribution des cartes », after the main bet"],
  ["55-4 6° (arrêté of 14 May 2007 as amended): the hyper black jack field: « ramasse les mises perdantes de l'hyper black jack puis du black jack et paie les mises gagnantes du black jack puis de l'hyper black jack »",
   "arrêté du 14 mai 2007, art. 55-4 6° (« le black jack avec l'option hyper black jack »): « ramasse les mises perdantes de l'hyper black jack puis du black jack et paie les mises gagnantes du black jack puis de l'hyper black jack »"],
  ["issue 23, docs/rating.md: advantage-play detection, advice to the supervisor only (never an action on the game): stake follows the true count",
   "docs/rating.md « Reading the flags »: advantage-play detection, advice to the supervisor only (never an action on the game): stake follows the true count"],
  ["issue 23, docs/rating.md: advantage-play detection, advice to the supervisor only (never an action on the game): boxes played follow the true count",
   "docs/rating.md « Reading the flags »: advantage-play detection, advice to the supervisor only (never an action on the game): boxes played follow the true count"],
  ["issue 23, docs/rating.md: advantage-play detection, advice to the supervisor only (never an action on the game): departures from the chart follow the count",
   "docs/rating.md « Reading the flags »: advantage-play detection, advice to the supervisor only (never an action on the game): departures from the chart follow the count"],
  ["issue 23, docs/rating.md: advantage-play detection, advice to the supervisor only (never an action on the game): BLACK JACK case bet when positive",
   "docs/rating.md « Reading the flags »: advantage-play detection, advice to the supervisor only (never an action on the game): BLACK JACK case bet when positive"],
];

// The citations an older refusal's message ends with -> today's words (the message is matched against REASONS after).
export const OLD_WORDS = [
  ["(000:35)", "(art. 55-4 « Double-down »)"],
  ["(000:32)", "(art. 55-4 « Les paires »)"],
  ["(000:30)", "(art. 55-4 « Les paires »)"],
  ["(001:34, 002:48)", "(house option double_on)"],
  ["(002:54)", "(house option split_match)"],
  ["(001:5)", "(house option cut_card_depth)"],
  ["(004:9)", "(house option shuffle_every_round)"],
  ["(000:10)", "(art. 55-4 « Déroulement de la partie »)"],
];

const OLD_LINE = /\b(\d{3}):\d+(?:-\d+)?\b/g;
const OLD_FILE = /\b(RULES|TABLE)\.md\b/g;

function matcher(pattern) {
  const names = [...pattern.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
  const source = pattern.split(/\{\w+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, "\\$&")).join("(.+?)");
  return { names, regexp: new RegExp(`^${source}$`) };
}

const MATCHERS = OLD_RULES.map(([old, current]) => ({ ...matcher(old), current }));

// The rule the code cites today for `rule` (an older citation), or `rule` itself.
export function currentRule(rule) {
  for (const { names, regexp, current } of MATCHERS) {
    const match = regexp.exec(rule || "");
    if (match) return names.reduce((text, name, index) => text.replace(`{${name}}`, match[index + 1]), current);
  }
  return rule;
}

// An older refusal's message in today's words.
export function currentWords(message) {
  return OLD_WORDS.reduce((text, [old, current]) => text.split(old).join(current), message || "");
}

// Whom an older rule no table of this file knows cites, as catalogue keys: the regulation (a line of 000, or the
// project's first statement of the game), a house option (a line of a house's text), or the table's own check.
export function oldCitations(rule) {
  const keys = new Set();
  for (const [, text] of (rule || "").matchAll(OLD_LINE)) keys.add(text === "000" ? "rule_regulation" : "rule_house_option");
  for (const [, file] of (rule || "").matchAll(OLD_FILE)) keys.add(file === "RULES" ? "rule_regulation" : "rule_table_check");
  return [...keys];
}
