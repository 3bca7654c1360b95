"""`table-runtime release bundle` and `table-runtime update`: signed releases installed and rolled back.

    table-runtime release bundle --key KEY --wheels DIR --release NAME [--root DIR] [--requirement REQ] -o BUNDLE
    table-runtime update BUNDLE --config FILE [--root DIR]          # installed only if its signature verifies
    table-runtime update --rollback --config FILE [--root DIR]      # back to the previous release

`update` takes the release key's public half from the table's configuration (`[release] public_key_file`) and
journals the change (a `status` row, `SoftwareUpdated`) in the table's journal, which it claims as its one writer:
a table that runs refuses it (stop the service first). A bundle not signed by that key, altered, or whose
installation is not its signed manifest is refused in one line and nothing changes (exit 2). Layout and rules:
release/releases.py, release/bundle.py; docs/deployment.md "Updating".
"""

from __future__ import annotations

import argparse
import contextlib
import time
from pathlib import Path
from typing import Any

from table_runtime.config import load_config
from table_runtime.core.row_kinds import RowKind
from table_runtime.errors import ConfigError
from table_runtime.game.inputs import SCHEMA_VERSION
from table_runtime.journal import Journal
from table_runtime.release.bundle import make_bundle
from table_runtime.release.manifest import file_sha256
from table_runtime.release.releases import RELEASES, Change, install_bundle, rollback
from table_runtime.version import DISTRIBUTION

DEFAULT_ROOT = Path("/opt/table-runtime")
UPDATED_TYPE = "SoftwareUpdated"


def register_bundle(actions: Any) -> None:
    bundle = actions.add_parser("bundle", help="build a release at its prefix from wheels, sign it, pack the bundle")
    bundle.add_argument("--key", type=Path, required=True, help="the private release key")
    bundle.add_argument("--wheels", type=Path, required=True, help="a directory of every wheel the release runs on, "
                                                                    "pip's among them")
    bundle.add_argument("--release", required=True, help="the release's name (its directory under releases/)")
    bundle.add_argument("--root", type=Path, default=DEFAULT_ROOT, help=f"the tables' root (default {DEFAULT_ROOT})")
    bundle.add_argument("--requirement", default=DISTRIBUTION, help="what to install from the wheels")
    bundle.add_argument("-o", "--output", type=Path, required=True)
    bundle.set_defaults(handler=run_bundle)


def register(subparsers: Any) -> None:
    update = subparsers.add_parser("update", help="install a signed release bundle, or roll back to the previous")
    update.add_argument("bundle", type=Path, nargs="?", help="the release bundle (table-runtime release bundle)")
    update.add_argument("--rollback", action="store_true", help="make the previous release current again")
    update.add_argument("--config", type=Path, required=True, help="the table's configuration ([release] key)")
    update.add_argument("--root", type=Path, default=DEFAULT_ROOT, help=f"the table's root (default {DEFAULT_ROOT})")
    update.set_defaults(handler=run_update)


def run_bundle(args: argparse.Namespace) -> int:
    root = args.root.resolve()
    release = make_bundle(args.output, key=args.key, wheels=args.wheels, prefix=root / RELEASES / args.release,
                          name=args.release, requirement=args.requirement)
    print(f"bundle {args.output}: release {release.name} for {release.prefix}, {len(release.wheels)} wheels, "
          f"manifest of {len(release.manifest.digests)} files (sha256 {release.manifest.digest})")
    return 0


def run_update(args: argparse.Namespace) -> int:
    if (args.bundle is None) == (not args.rollback):
        raise ConfigError("update", "give a BUNDLE to install, or --rollback (not both)")
    config = load_config(args.config)
    key = config.release.public_key
    if key is None:
        raise ConfigError("release.public_key_file", f"{args.config}: no release key: a table installs only "
                                                     "releases its key verifies")
    root = args.root.resolve()
    with _journal(config.journal_path) as journal:  # claimed first: a running table refuses, nothing changed
        if args.rollback:
            change, body = rollback(root), {"by": "rollback"}
        else:
            change = install_bundle(args.bundle, root, key)
            body = {"by": "update", "bundle_sha256": file_sha256(args.bundle)}
        _journal_change(journal, change, body)
    print(f"release {change.after} is current (was {change.before or 'none'}); restart the table to run it"
          + ("" if journal is not None else "; no journal yet"))
    return 0


@contextlib.contextmanager
def _journal(path: Path) -> Any:
    if not path.exists():
        yield None
        return
    with Journal.open(path) as journal:
        journal.claim_writer()
        yield journal


def _journal_change(journal: Journal | None, change: Change, body: dict[str, Any]) -> None:
    if journal is not None:
        journal.append(RowKind.STATUS, {"type": UPDATED_TYPE, "from": change.before, "to": change.after, **body,
                                        "schema_version": SCHEMA_VERSION}, ts=time.time())
