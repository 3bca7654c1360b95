"""Bench: what one employee's PIN costs to check, and to guess from a copy of the staff registry (issue 34).

The registry keeps each PIN as an Argon2id hash (table_runtime/staff/registry.py: 19 MiB, 2 passes, 1 lane). Printed:
the median wall and CPU time of one `Employee.pin_matches` (what the display waits for, in a worker thread), and
what that makes of trying every PIN of 4 digits against one stolen hash on one core of this machine, beside a
salted SHA-256 (what a fast hash would cost the thief).

Run: python -m bench.staff_pin [--checks 15]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shlex
import statistics
import sys
import time

from table_runtime.core.staff_roles import StaffRole
from table_runtime.staff.registry import Employee, pin_hash


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checks", type=int, default=15)
    args = parser.parse_args()
    employee = Employee(employee_id="E1", name="E", roles=frozenset({StaffRole.DEALER}), approval="R1",
                        pin_hash=pin_hash("1357"))
    walls, cpus = [], []
    for attempt in range(args.checks):
        wall, cpu = time.perf_counter(), time.process_time()
        employee.pin_matches(f"{attempt:04d}")
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    salt = os.urandom(16)
    start = time.process_time()
    for pin in range(10_000):
        hashlib.sha256(salt + f"{pin:04d}".encode()).digest()
    sha = time.process_time() - start
    cpu = statistics.median(cpus)
    print(f"staff_pin argon2id_check_ms wall={statistics.median(walls) * 1000:.1f} cpu={cpu * 1000:.1f} "
          f"every_4_digit_pin_s={cpu * 10_000:.0f} salted_sha256_every_4_digit_pin_ms={sha * 1000:.1f} "
          f"load={os.getloadavg()[0]:.1f}")
    print("command: python -m bench.staff_pin " + shlex.join(sys.argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
