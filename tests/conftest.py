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
    if not c.closed:
        c.close()


@pytest.fixture
def db_path(tmp_path):
    return str(tmp_path / "test.swingdb")


@pytest.fixture
def small_disk(tmp_path):
    """A 64 MiB tmpfs mounted for the test (needs root): a disk that fills up."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root")
    mount = tmp_path / "mnt"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mount)], check=True)
    try:
        yield str(mount)
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


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
