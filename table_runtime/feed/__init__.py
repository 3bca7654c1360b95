"""The MQTT feed: the table's journal, published in order, store-and-forward.

- `messages`: the topic tree and the JSON messages (pure);
- `settings`: broker URL, credentials, TLS;
- `publisher`: `FeedPublisher`, from the journal to the broker;
- `consumer`: the reference consumer (dedupe and gap detection by seq).
"""

from __future__ import annotations

from table_runtime.feed.messages import ROUTES, SCHEMA_VERSION, FeedMessage, Topics, messages_for_entry
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.feed.settings import BrokerAddress, FeedSettings, Secret, parse_broker_url

__all__ = [
    "ROUTES",
    "SCHEMA_VERSION",
    "BrokerAddress",
    "FeedMessage",
    "FeedPublisher",
    "FeedSettings",
    "Secret",
    "Topics",
    "messages_for_entry",
    "parse_broker_url",
]
