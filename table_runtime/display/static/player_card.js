// A player card read at the table waits for its box (issue 23; table_runtime/core/player_cards.py): a banner
// says so with the player's pseudonym, and the dealer's next touch on a box's header places the card there
// (SEAT_CARD {box}), in a round or between rounds. The snapshot's `card_waiting` is the whole state.
import { $ } from "./dom.js";
import { t } from "./text.js";

// Whether the dealer's touch on a box now places the card waiting.
export function placingCard(s, view) {
  return !!(s && s.card_waiting) && !view.recall && view.connected && view.role === "dealer";
}

export function renderCardWaiting(s, view) {
  const banner = $("card-waiting");
  if (!banner) return; // the pit's read-only live view draws the table without the dealer's card prompt
  const waiting = !view.recall && s.card_waiting;
  banner.hidden = !waiting;
  document.body.dataset.cardWaiting = placingCard(s, view) ? "yes" : "no";
  if (!waiting) return;
  $("card-waiting-text").textContent = t("card_waiting");
  $("card-waiting-player").textContent = t("card_waiting_player", { player: waiting.player });
}
