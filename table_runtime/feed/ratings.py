"""The `ratings` channel: the rated sessions' messages, as the journal's `rating` rows hold them (docs/feed/README.md).

The one fold of the rated sessions runs in the rating worker's process (runtime/rating_worker.py), and the runtime
journals each message it makes as a `rating` row (runtime/rating_watch.py). `rating_messages(topics, entry)` is the
message a row of the journal sends on `{prefix}/tables/{tableId}/ratings`: a `rating` row's body, its fields in the
order the fold made them (the same bytes as the message the fold returned), and nothing for any other row. So the
feed folds nothing: `table-runtime feed` running alone, a restart on a journal of a million rows and a resend after
a reconnection all send the rows the journal has, at no cost but reading them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from table_runtime.core.row_kinds import RowKind
from table_runtime.feed.messages import FeedMessage, Topics
from table_runtime.journal import JournalEntry
from table_runtime.rating.sessions import in_message_order


def rating_messages(topics: Topics, entry: JournalEntry) -> list[FeedMessage]:
    """The `ratings` message of a `rating` row (none for another row)."""
    if entry.kind != RowKind.RATING:
        return []
    return [FeedMessage(topics.ratings, in_message_order(entry.body), entry.seq)]


def no_ratings(entry: JournalEntry) -> list[FeedMessage]:
    """What a publisher with the `ratings` channel off sends on it for a row: nothing."""
    return []


def ratings_of(topics: Topics, *, enabled: bool) -> Callable[[JournalEntry], list[FeedMessage]]:
    """The `ratings` messages a publisher sends for each row (`FeedPublisher(..., ratings=False)`: none)."""
    return partial(rating_messages, topics) if enabled else no_ratings
