"""No file of the repository cites a path outside it: the user's documents the rules were first written from are
not shipped, so a citation of `shared/...` or `seeds/...`, or a relative link out of the repository, is a citation
nobody can open. The rules are cited by the public text (docs/rules.md "Citations")."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = re.compile(r"(?<![\w.-])(?:/?shared/|seeds/)")
LINK = re.compile(r"\]\((\.\./[^)#\s]+)")  # a markdown link to a relative path going up


def tracked_text_files() -> list[Path]:
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.split(b"\0")
    files = []
    for name in filter(None, names):
        path = ROOT / name.decode()
        if path.suffix in {".png", ".jpg", ".ico", ".gz", ".db"} or not path.is_file():
            continue
        files.append(path)
    return files


def test_no_file_cites_a_path_outside_the_repository() -> None:
    here = Path(__file__).resolve()
    found = []
    for path in tracked_text_files():
        if path == here:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
            for link in LINK.findall(line):
                target = (path.parent / link).resolve()
                if not target.is_relative_to(ROOT):
                    found.append(f"{path.relative_to(ROOT)}:{number}: links outside: {link}")
    assert found == []


def test_the_check_finds_both_kinds() -> None:
    assert OUTSIDE.search("the regulation (`shared/seeds/000`)") and OUTSIDE.search("seeds/001 line 5")
    assert LINK.findall("see [the rules](../../RULES.md)") == ["../../RULES.md"]
