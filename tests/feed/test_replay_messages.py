"""The replay request's MAC and checks (table_runtime/feed/replay_messages.py), shared by the table and the floor."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

import pytest

from table_runtime.feed.replay_messages import (
    MAX_ROWS,
    ReplayRequestError,
    build_request,
    check_range,
    check_request,
    replay_done,
    replay_refused,
    request_mac,
)

SECRET = b"a shared secret of the pit"
JOURNAL = "0123456789abcdef0123456789abcdef"


def request(**changes: Any) -> dict[str, Any]:
    signed = build_request(SECRET, prefix="casino", journal=JOURNAL, from_seq=91, to_seq=100, request_id="r-1",
                           floor_id="floor1")
    signed.update(changes)
    return signed


def test_the_mac_is_hmac_sha256_of_the_sorted_compact_json_without_mac() -> None:
    # Written out by hand, as an auditor without Python would build it.
    canonical = ('{"floor_id":"floor1","from_seq":91,"journal":"0123456789abcdef0123456789abcdef",'
                 '"reply_to":"casino/floor/floor1/replay","request_id":"r-1","to_seq":100,"type":"ReplayRequest"}')
    expected = hmac.new(SECRET, canonical.encode("utf-8"), hashlib.sha256).hexdigest()
    signed = request()
    assert signed["mac"] == expected
    assert request_mac(SECRET, signed) == expected  # the mac field itself is left out
    assert signed["reply_to"] == "casino/floor/floor1/replay"


def test_characters_past_ascii_are_escaped_in_what_the_mac_covers() -> None:
    signed = build_request(SECRET, prefix="casino", journal=JOURNAL, from_seq=1, to_seq=2, request_id="réplique",
                           floor_id="floor1")
    canonical = ('{"floor_id":"floor1","from_seq":1,"journal":"0123456789abcdef0123456789abcdef",'
                 '"reply_to":"casino/floor/floor1/replay","request_id":"r\\u00e9plique","to_seq":2,'
                 '"type":"ReplayRequest"}')
    assert signed["mac"] == hmac.new(SECRET, canonical.encode("ascii"), hashlib.sha256).hexdigest()


def test_a_valid_request_checks() -> None:
    checked = check_request(SECRET, request(), prefix="casino")
    assert (checked.journal, checked.from_seq, checked.to_seq, checked.rows) == (JOURNAL, 91, 100, 10)
    assert checked.reply_to == "casino/floor/floor1/replay"


@pytest.mark.parametrize("tamper", [
    {"to_seq": 101}, {"journal": "f" * 32}, {"reply_to": "casino/floor/evil/replay"}, {"mac": "0" * 64},
])  # fmt: skip
def test_a_changed_field_or_a_wrong_mac_fails_the_mac(tamper: dict[str, Any]) -> None:
    with pytest.raises(ReplayRequestError) as caught:
        check_request(SECRET, request(**tamper), prefix="casino")
    assert not caught.value.mac_ok and caught.value.reason == "wrong mac"


def test_another_secret_fails_the_mac() -> None:
    with pytest.raises(ReplayRequestError, match="wrong mac"):
        check_request(b"another secret of someone else", request(), prefix="casino")


@pytest.mark.parametrize("payload", [None, [], "text", {"type": "ReplayRequest"}, {"type": "Other", "mac": "0" * 64}])
def test_not_a_request_is_refused_without_saying_more(payload: object) -> None:
    with pytest.raises(ReplayRequestError) as caught:
        check_request(SECRET, payload, prefix="casino")
    assert not caught.value.mac_ok


def test_a_signed_request_to_another_reply_topic_is_refused_with_its_reason() -> None:
    forged = request(reply_to="casino/tables/T1/events")
    forged["mac"] = request_mac(SECRET, forged)
    with pytest.raises(ReplayRequestError) as caught:
        check_request(SECRET, forged, prefix="casino")
    assert caught.value.mac_ok and caught.value.request_id == "r-1"
    assert "reply_to must be casino/floor/floor1/replay" in caught.value.reason


def test_the_range_against_the_journal() -> None:
    checked = check_request(SECRET, request(), prefix="casino")
    assert check_range(checked, journal=JOURNAL, last_seq=100) is None
    assert check_range(checked, journal="e" * 32, last_seq=100) == (
        f"journal {JOURNAL} is not this table's journal {'(' + 'e' * 32 + ')'}")
    assert check_range(checked, journal=JOURNAL, last_seq=99) == "to_seq 100 is past the journal's last row 99"
    wide = request(from_seq=1, to_seq=MAX_ROWS + 1)
    wide["mac"] = request_mac(SECRET, wide)
    assert check_range(check_request(SECRET, wide, prefix="casino"), journal=JOURNAL, last_seq=10**6) == (
        f"{MAX_ROWS + 1} rows asked, at most {MAX_ROWS} per request")


def test_done_and_refused() -> None:
    checked = check_request(SECRET, request(), prefix="casino")
    assert replay_done(checked) == {"type": "ReplayDone", "request_id": "r-1", "journal": JOURNAL,
                                    "from_seq": 91, "to_seq": 100}
    assert replay_refused("r-1", "rate limit") == {"type": "ReplayRefused", "request_id": "r-1",
                                                   "reason": "rate limit"}
