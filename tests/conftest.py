import os
import subprocess
import sys
import textwrap

import pytest

import swingdb


@pytest.fixture
def con():
    c = swingdb.connect()
    yield c
    c.close()


@pytest.fixture
def db_path(tmp_path):
    return str(tmp_path / "test.swingdb")


def run_python(code: str, *args, check=True, timeout=120):
    """Runs `code` in a fresh Python process (real process boundaries for
    lifetime, crash and concurrency tests)."""
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"subprocess failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc
