"""Every key the pit page builds from what a table reports has its words in French and English: each device the
runtime names on its device list (`device_<name>`), read from the runtime's sources, so a device added there
without its words here fails (the pit once showed `device_player_cards` as it is)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
PIT_STRINGS = REPO / "casino_floor" / "pit" / "static" / "i18n.js"


def reported_devices() -> set[str]:
    """The names the runtime passes to `set_device`, literally or through a module constant, called or stepped
    (`controller.step(controller.set_device, NAME, ...)`)."""
    names: set[str] = set()
    for path in sorted((REPO / "table_runtime" / "runtime").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = {target.id: node.value.value for node in ast.walk(tree)
                     if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Constant)
                     for target in ([node.target] if isinstance(node, ast.AnnAssign) else node.targets)
                     if isinstance(target, ast.Name) and isinstance(node.value.value, str)}
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            stepped = (node.func.attr == "step" and len(node.args) > 1 and isinstance(node.args[0], ast.Attribute)
                       and node.args[0].attr == "set_device")
            if stepped or (node.func.attr == "set_device" and node.args):
                first = node.args[1 if stepped else 0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    names.add(first.value)
                elif isinstance(first, ast.Name) and first.id in constants:
                    names.add(constants[first.id])
    return names


def catalogue(language: str) -> set[str]:
    text = PIT_STRINGS.read_text(encoding="utf-8")
    french, english = text.index("\n  fr: {"), text.index("\n  en: {")
    part = text[french:english] if language == "fr" else text[english:]
    return set(re.findall(r"^    (\w+): ", part, flags=re.MULTILINE))


def test_every_device_the_runtime_reports_has_french_and_english_words() -> None:
    devices = reported_devices()
    assert {"shoe", "chips", "broker", "player_cards"} <= devices, devices
    for language in ("fr", "en"):
        missing = sorted(f"device_{name}" for name in devices if f"device_{name}" not in catalogue(language))
        assert missing == [], (language, missing)
