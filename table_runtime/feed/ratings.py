"""The `ratings` channel: the rated sessions' messages, from the fold of the journal (docs/feed/README.md).

`RatingFeed.messages(entries)` gives, for each journal entry the publisher is about to send, the messages of
`{prefix}/tables/{tableId}/ratings` that row caused (rating/session_fold.py: the row through the one fold,
then the sessions' fold), so a replay of the journal gives the same messages and a resend after a
reconnection sends the same ones again. It reads the rules from the journal's terms (the rules it was
written under); a journal without terms (no table wrote it) has no ratings. It folds every row from the
first: the first call catches up from row 1 to where the publisher starts (a start costs a replay of the
journal, in the publisher's reader thread, never on the event loop). The messages of the last rows are
kept for the publisher's resends. A row the fold refuses stops the ratings with one log line; the feed goes on.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Sequence

from table_runtime.errors import TableError
from table_runtime.feed.messages import FeedMessage
from table_runtime.feed.settings import FeedSettings
from table_runtime.journal import Journal, JournalEntry
from table_runtime.rating.session_fold import SessionFold
from table_runtime.runtime.terms import journal_terms

logger = logging.getLogger("table_runtime.feed")

CATCH_UP_CHUNK = 2000  # rows read at a time while catching up


class RatingFeed:
    """The rated sessions of one journal, fed its rows in order; the `ratings` messages of each row."""

    def __init__(self, journal: Journal, settings: FeedSettings, *, enabled: bool = True) -> None:
        self._journal = journal
        self._topics = settings.topics
        # A reconnection resends from `resend_on_connect` rows before the cursor, which lags the rows read by
        # up to a batch and the messages in flight: keep the messages of that many rows.
        keep = settings.resend_on_connect + settings.batch_size + settings.max_inflight
        self._fold: SessionFold | None = None
        self._stopped = not enabled
        self._sent: deque[tuple[int, list[FeedMessage]]] = deque(maxlen=keep)

    def read(self, after_seq: int, limit: int) -> list[tuple[JournalEntry, list[FeedMessage]]]:
        """The journal's entries after `after_seq` (at most `limit`), each with its `ratings` messages: what the
        publisher sends (blocking: call it off the event loop)."""
        entries = list(self._journal.entries(after_seq, limit))
        return list(zip(entries, self.messages(entries), strict=True))

    def messages(self, entries: Sequence[JournalEntry]) -> list[list[FeedMessage]]:
        """The `ratings` messages of each entry, in order (blocking: call it where the journal is read)."""
        return [self._of(entry) for entry in entries]

    def _of(self, entry: JournalEntry) -> list[FeedMessage]:
        fold = self._ready()
        if fold is None:
            return []
        if entry.seq <= fold.last_seq:  # sent again after a reconnection: the same messages
            return next((sent for seq, sent in self._sent if seq == entry.seq), [])
        try:
            while fold.last_seq < entry.seq - 1:  # rows before it the fold has not seen (the start)
                rows = list(self._journal.entries(fold.last_seq, min(CATCH_UP_CHUNK, entry.seq - 1 - fold.last_seq)))
                if not rows:
                    break
                for row in rows:
                    fold.take(row.seq, row.ts, row.kind, row.body)
            payloads = fold.take(entry.seq, entry.ts, entry.kind, entry.body)
        except (TableError, KeyError, TypeError, ValueError) as error:
            logger.error("ratings stopped: row %s does not fold: %s", fold.last_seq + 1, error)
            self._fold, self._stopped = None, True
            return []
        sent = [FeedMessage(self._topics.ratings, payload, entry.seq) for payload in payloads]
        self._sent.append((entry.seq, sent))
        return sent

    def _ready(self) -> SessionFold | None:
        if self._fold is None and not self._stopped:
            terms = journal_terms(self._journal, at=0)  # the terms its first row is read under (runtime/terms.py)
            if terms is not None:
                self._fold = SessionFold(self._topics.table_id, terms.rules, terms.limits, zones=terms.zones)
        return self._fold
