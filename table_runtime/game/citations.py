"""The rules the alarms cite, in words a supervisor can look up: the public text (the arrêté du 14 mai 2007, art. 55-4,
by its heading, and the amending arrêtés that added its 1° options and its 6° hyper black jack field) or, for what
the table itself checks (its procedure, its devices), the section of docs/rules.md that states it.

An alarm's `rule` is one of these strings: journaled, published on the feed (docs/feed/asyncapi.yaml) and shown by the
display in its language (static/i18n.js, RULES). A journal written before these citations holds older ones; the
display reads them through static/old_citations.js (docs/alarms.md, "Rules in older journals").
tests/test_citations.py checks that each names the public text or a section of docs/rules.md that exists.
"""

from __future__ import annotations

from typing import Final

REGULATION: Final = "arrêté du 14 mai 2007, art. 55-4"
AMENDED_2020: Final = f"{REGULATION} 1°, modifié par l'arrêté du 6 mai 2020"
HYPER_FIELD: Final = f"{REGULATION} 6° (« le black jack avec l'option hyper black jack »)"
TABLE_CHECK: Final = "table check, docs/rules.md"
HOUSE_OPTION: Final = "house option"

# The game (art. 55-4, by the heading of its paragraph; the opening paragraphs, which have none, by their words).
SEVEN_BOXES: Final = f"{REGULATION} (« sept joueurs assis »): seven boxes, a second free box for a seated player"
BEHIND_ON_SEATED: Final = (f"{REGULATION} (« les joueurs debout »): a player behind bets on a seated player's box, "
                           "with his consent")
BEHIND_MAXIMUM: Final = (f"{REGULATION} (« les joueurs debout »): seated + behind within the table's maximum per "
                         "hand")
PLAYER_STANDS: Final = f"{REGULATION} « Déroulement de la partie »: a player content with his total stands"
BANK_DRAWS: Final = f"{REGULATION} « Déroulement de la partie »: the bank draws to 17 or more"
BANK_STANDS: Final = (f"{REGULATION} « Déroulement de la partie »: the bank stands on 17 or more; an ace counts 11 "
                      "whenever that makes 17 to 21")
INSURANCE_IN_ROUND: Final = f"{REGULATION} « Assurance »: insurance on the dealer's first card, an ace, in a round"
INSURANCE_HALF: Final = f"{REGULATION} « Assurance »: half the initial stake"
DOUBLE: Final = f"{REGULATION} « Double-down »: on the first two cards, one card only"
SPLIT: Final = f"{REGULATION} « Les paires »: two cards of the same value; split aces take one card each"
EQUAL_STAKE: Final = f"{REGULATION} « Les paires », « Double-down »: a stake equal to the initial stake is added"
WINDOW_AMOUNTS: Final = (f"{REGULATION} « Les paires », « Double-down », « Assurance »: a double or a split adds a "
                         "stake equal to the initial stake; insurance is half of it")
DECKS_TEMPLATE: Final = (f"{REGULATION} (« six jeux de cinquante-deux cartes »): each card exactly {{decks}} times in "
                         "the shoe")


def decks(count: int) -> str:
    """The shoe's rule for `count` decks (the display's catalogue holds it as `{decks}`)."""
    return DECKS_TEMPLATE.replace("{decks}", str(count))


# The amended text.
SURRENDER: Final = (f"{AMENDED_2020} (« abandon »): on the first two cards, the bank showing no ace, half the initial "
                    "stake back")
NO_BEHIND_WHILE_VACANT: Final = (f"{AMENDED_2020}: the director may « interdire de jouer debout lorsque des places "
                                 "assises sont vacantes » (option no_behind_while_seat_vacant)")
BOXES_PER_PLAYER: Final = (f"{AMENDED_2020}: the director may « limiter le nombre de cases sur lesquelles peut miser "
                           "un joueur » (option max_boxes_per_player)")
HYPER_MINIMUM: Final = f"{HYPER_FIELD}: the director's minimum"
HYPER_MAXIMUM: Final = f"{HYPER_FIELD}: the director's maximum"
HYPER_BANK_DRAWS: Final = (f"{HYPER_FIELD}: settled on « le résultat final de la banque »; art. 55-4 « Déroulement de "
                           "la partie »: the bank draws to 17 or more")
HYPER_BEFORE_DEAL: Final = f"{HYPER_FIELD}: « avant la distribution des cartes », after the main bet"
HYPER_ORDER: Final = (f"{HYPER_FIELD}: « ramasse les mises perdantes de l'hyper black jack puis du black jack et paie "
                      "les mises gagnantes du black jack puis de l'hyper black jack »")

# The houses' options (docs/rules.md "Options").
MIN_BOXES: Final = f"{HOUSE_OPTION} min_boxes_to_deal, docs/rules.md « Options »: the fewest boxes with a bet to deal"

# What the table itself checks: its procedure and its devices (docs/rules.md "The table's procedure").
ROUND: Final = f"{TABLE_CHECK} « A round »"
BETS_LOCKED: Final = f"{TABLE_CHECK} « A round », step 1: the bets are locked (NO MORE BETS, or the first card)"
ROUND_INSURANCE: Final = (f"{TABLE_CHECK} « A round », step 3; {REGULATION} « Assurance »: insurance only on the "
                          "bank's ace, closed by CONFIRM")
INSURANCE_LINE: Final = (f"{TABLE_CHECK} « A round », step 3: the insurance line holds chips only inside the "
                         "insurance window")
IN_TURN: Final = f"{TABLE_CHECK} « A round », step 4: the boxes play in turn"
SHOE_FOR_ROUND: Final = (f"{TABLE_CHECK} « The shoe »: a round is dealt from a shuffled shoe, a new one after the "
                          "cut card")
NEW_SHOE_AFTER_ROUND: Final = f"{TABLE_CHECK} « The shoe »: a new shoe only after the round"
POSTED_MINIMUM: Final = f"{TABLE_CHECK} « Bet limits »: a seated stake at least the posted minimum"
PAST_POSTING: Final = f"{TABLE_CHECK} « Past-posting »"
PAST_POSTING_WINDOW: Final = (f"{TABLE_CHECK} « Past-posting »: no chip is added to or removed from a locked zone "
                              "outside a double, split or insurance window")
PAYOUT: Final = (f"{TABLE_CHECK} « Wrong payout »: lost stakes collected (zone empty), winners' zones equal stake + "
                 "payout, pushes unchanged; a blackjack paid at once (house option pay_blackjack_before_bank) is "
                 "stake + 3:2")
DRAW_ERRORS: Final = f"{TABLE_CHECK} « Dealer draw errors »: a card drawn when no hand can take one"
SHOE_INTEGRITY: Final = f"{TABLE_CHECK} « Shoe integrity »"
DEVICE_DISCONNECTED: Final = f"{TABLE_CHECK} « Shoe integrity »: shoe or reader disconnected"
CHIP_INTEGRITY: Final = f"{TABLE_CHECK} « Chip integrity »"
CHIP_REGISTRY: Final = f"{CHIP_INTEGRITY}: every chip checked against the casino's chip registry"
CHIP_UNKNOWN: Final = f"{CHIP_INTEGRITY}: a chip's UID must be in the casino's chip registry"
CHIP_VOID: Final = f"{CHIP_INTEGRITY}: a chip the registry marks void is refused"
CHIP_STOLEN: Final = f"{CHIP_INTEGRITY}: a chip the registry marks stolen is refused"
CHIP_OTHER_CASINO: Final = f"{CHIP_INTEGRITY}: only this casino's chips are played"
CHIP_TAG: Final = f"{CHIP_INTEGRITY}: the denomination and casino in the tag must agree with the registry"
ANTENNA: Final = f"{TABLE_CHECK} « Devices »: every zone is read by its antenna several times a second"
PLAYER_CARD: Final = f"{TABLE_CHECK} « Devices »: a player card reader at the table identifies a rated player at a box"
CORRECTIONS: Final = f"{TABLE_CHECK} « Corrections and recall »: each correction journaled with who and why"
SUPERVISOR_VOIDS: Final = f"{TABLE_CHECK} « Corrections and recall »: only a supervisor voids a round"
PLAY_STOPPED: Final = (f"{TABLE_CHECK} « Corrections and recall »: play stops on a broken journal until the "
                       "supervisor clears it")
JOURNAL_FIRST: Final = f"{TABLE_CHECK} « Power loss »: the table acts only on what is journaled"
PROGRAM_VERIFICATION: Final = ("table check, docs/verification.md « What the table checks »: the program is "
                               "authenticated before play, at intervals and on demand; a file not as released "
                               "stops play")

# Advice on a rated session: the detection's own page, then what the flag found (rating/detection.py Flag.rule).
ADVANTAGE_PLAY: Final = ("docs/rating.md « Reading the flags »: advantage-play detection, advice to the supervisor "
                         "only (never an action on the game): ")
