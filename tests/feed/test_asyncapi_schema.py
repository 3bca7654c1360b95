"""docs/feed/asyncapi.yaml is a valid AsyncAPI 3.0.0 document by the official JSON Schema of `@asyncapi/specs`.

The hand-written checks of test_messages.py test what we mean (topics, QoS, retain, the payload schema
files); this one tests the document against the specification itself: a misspelt key (``adress``), an
operation without ``action`` or a message in the wrong place fails here even where our own checks pass.
The schema is vendored (tests/feed/asyncapi_specs/README.md) so the check runs offline.
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs in the test environment
import pytest

from .support import asyncapi

SPECS = Path(__file__).with_name("asyncapi_specs")


@pytest.fixture(scope="module")
def validator() -> jsonschema.protocols.Validator:
    schema = json.loads((SPECS / "3.0.0.json").read_text(encoding="utf-8"))
    assert schema["$id"] == "http://asyncapi.com/definitions/3.0.0/asyncapi.json"
    assert schema["$schema"].startswith("http://json-schema.org/draft-07/schema")
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def test_the_vendored_schema_is_the_recorded_release() -> None:
    package, version, name, algorithm, digest = (SPECS / "version.txt").read_text(encoding="utf-8").split()
    assert (package, name, algorithm) == ("@asyncapi/specs", "schemas/3.0.0.json", "sha256")
    assert hashlib.sha256((SPECS / "3.0.0.json").read_bytes()).hexdigest() == digest
    assert version in (SPECS / "README.md").read_text(encoding="utf-8")
    assert (SPECS / "LICENSE").read_text(encoding="utf-8").lstrip().startswith("Apache License")


def test_the_feed_document_validates_against_the_official_asyncapi_3_schema(
        validator: jsonschema.protocols.Validator) -> None:
    errors = sorted(validator.iter_errors(asyncapi()), key=lambda error: list(error.absolute_path))
    assert not errors, "\n".join(f"{'/'.join(map(str, error.absolute_path))}: {error.message[:200]}"
                                 for error in errors)


def _first(mapping: dict[str, Any]) -> str:
    return next(iter(mapping))


@pytest.mark.parametrize("breakage", ["misspelt channel key", "operation without action", "wrong action",
                                      "server without protocol", "version 2"])
def test_the_official_schema_catches_what_a_broken_document_would_do(
        validator: jsonschema.protocols.Validator, breakage: str) -> None:
    """The check above means something: each of these mistakes is refused by the official schema."""
    document = copy.deepcopy(asyncapi())
    if breakage == "misspelt channel key":
        channel = document["channels"][_first(document["channels"])]
        channel["adress"] = channel.pop("address")
    elif breakage == "operation without action":
        del document["operations"][_first(document["operations"])]["action"]
    elif breakage == "wrong action":
        document["operations"][_first(document["operations"])]["action"] = "publish"  # the 2.x verb
    elif breakage == "server without protocol":
        servers = document.setdefault("servers", {"broker": {"host": "broker.pit:8883", "protocol": "mqtts"}})
        del servers[_first(servers)]["protocol"]
    else:
        document["asyncapi"] = "2.6.0"
    assert not validator.is_valid(document)
