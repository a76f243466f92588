"""A seconds-long slice of every torture scenario (`make stress` runs them for
minutes): kill -9 and failpoint aborts, concurrent writers and readers with
failpoint delays, a full and a read-only disk, damaged snapshot records and
sweeps without free descriptors, lying pipe peers, directories planted by another
user, mutated SQL, corrupted files."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# About 80 seconds in all (was 137), so that a warm `make test` stays within 5 minutes
# (issue 45); each scenario still runs several trials, and `make stress` runs them for minutes.
@pytest.mark.parametrize("scenario, seconds", [("crash", 10), ("concurrency", 8), ("keyed", 8), ("faults", 5), ("share", 8), ("pipes", 8), ("records", 6), ("peers", 6), ("others", 5), ("fuzz-sql", 8), ("fuzz-files", 6)])
def test_stress_slice_finds_nothing(scenario, seconds):
    if scenario in ("faults", "others") and os.geteuid() != 0:
        pytest.skip("mounting a tmpfs and acting as another user need root")
    out = subprocess.run(
        [sys.executable, "-m", "stress", "--seconds", str(seconds), "--only", scenario, "--seed", "7"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    trials = [line for line in out.stdout.splitlines() if line.startswith(f"stress: {scenario}:")]
    assert trials and int(trials[0].split()[2]) > 0, out.stdout
