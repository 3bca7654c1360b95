"""Bench: the live demo's chip tray read by RFID over many rounds: false variances, and the séances' accounts.

The live demo (`table-runtime demo`, devices in the process) keeps a séance every `--seance-rounds` rounds with its
tray read by RFID (simulators/demo_tray.py): the real pyusb driver reads the tray's rows beside the boxes, the
readers' edge judges a read whole (every row answered completely, the same chips over 3 consecutive scans:
core/tray.py), and the table reconciles the tray at every round's lock (core/tray_reconciliation.py). Nothing is
taken from the tray, so every `tray_variance` is a false one. Every séance must balance: closer − opener + credits
− fills + drop = −(the players' settled net the demo counted), to the cent, the opener and the closer the table's
reads of the tray.

Run: python -m bench.tray_live [--rounds 1000] [--seance-rounds 20] [--seed 7]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--seance-rounds", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    print("command:", shlex.join([sys.executable, "-m", "bench.tray_live", *(argv or sys.argv[1:])]))
    with tempfile.TemporaryDirectory(prefix="bench-tray-live-") as directory:
        demo = [sys.executable, "-m", "table_runtime.cli", "demo", "--rounds", str(args.rounds), "--seance-rounds",
                str(args.seance_rounds), "--seed", str(args.seed), "--pace", "0", "--http", "off",
                "--devices-in-process", "--data-dir", directory, "--json"]
        started = time.perf_counter()
        done = subprocess.run(demo, capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            print(f"the demo failed ({done.returncode}): {done.stderr.strip().splitlines()[-1:]}")
            return 1
        summary = json.loads(done.stdout)
        accounts = json.loads(subprocess.run(
            [sys.executable, "-m", "table_runtime.cli", "accounts", "--data-dir", directory, "--json"],
            capture_output=True, text=True, check=True).stdout)["seances"]
    seances = summary["seances"]
    balanced = sum(1 for seance in seances if seance["win_cents"] == -seance["players_net_cents"] == (
        seance["closer_cents"] - seance["opener_cents"] + seance["credits_cents"] - seance["fills_cents"]
        + seance["drop_cents"]))
    by_tray = sum(1 for seance in accounts if seance["opener"]["source"] == seance["closer"]["source"] == "tray")
    variances = summary["alarms"].get("tray_variance", 0)
    print(f"rounds={summary['rounds']} in {elapsed:.0f} s ({elapsed / max(1, summary['rounds']):.2f} s a round, "
          f"no pause); {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end")
    print(f"séances={len(seances)}: {balanced} balanced to the cent, {by_tray} counted by the tray's read; "
          f"fills={sum(seance['fills'] for seance in seances)} credits={sum(seance['credits'] for seance in seances)} "
          f"tips={sum(seance['tips'] for seance in seances)}")
    print(f"alarms: {dict(sorted(summary['alarms'].items()))}")
    print(f"tray_variances={variances} (false: nothing was taken from the tray)")
    return 0 if variances == 0 and balanced == len(seances) == by_tray else 1


if __name__ == "__main__":
    sys.exit(main())
