import os
import re
import shutil
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


def _openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="session")
def certificates(tmp_path_factory):
    """A certificate authority, a server certificate for 127.0.0.1 and a client certificate, all signed by it."""
    if not shutil.which("openssl"):
        pytest.skip("openssl is not installed (make debs installs it)")
    d = tmp_path_factory.mktemp("tls")
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
             "-subj", "/CN=swingdb test CA", cwd=d)
    for name, extension in (("server", "subjectAltName=IP:127.0.0.1,DNS:localhost"), ("client", "extendedKeyUsage=clientAuth")):
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr",
                 "-subj", f"/CN=swingdb test {name}", cwd=d)
        (d / f"{name}.ext").write_text(extension + "\n")
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                 "-out", f"{name}.pem", "-days", "2", "-extfile", f"{name}.ext", cwd=d)
    return d


FLIGHT_TOKEN = "test-token-0123456789abcdef"


def protobuf_field(number: int, data: bytes) -> bytes:
    """A length-delimited protobuf field (bytes, a string or a message),
    written by hand: Flight SQL tests pack commands in a google.protobuf.Any
    (type_url is field 1, value field 2) whose value may then be anything."""

    def varint(n):
        out = b""
        while True:
            low, n = n & 0x7F, n >> 7
            out += bytes([low | (0x80 if n else 0)])
            if not n:
                return out

    return varint(number << 3 | 2) + varint(len(data)) + data


@pytest.fixture
def flight_server(tmp_path):
    """Starts `swingdb serve` on a database of the test, on a free port, with
    FLIGHT_TOKEN and the extra arguments given; returns its grpc:// URI. The
    servers are killed when the test ends."""
    program = shutil.which("swingdb")
    assert program, "the swingdb program is installed into the venv by make build"
    started = []

    def start(*extra, database="served.swingdb"):
        proc = subprocess.Popen(
            [program, "serve", str(tmp_path / database), "--port", "0", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "SWINGDB_TOKEN": FLIGHT_TOKEN},
        )
        started.append(proc)
        line = proc.stdout.readline()
        match = re.search(r"grpc://(\S+)", line)
        assert match, (line, proc.stderr.read() if proc.poll() is not None else "")
        start.process = proc
        return f"grpc://{match.group(1)}"

    yield start
    for proc in started:
        proc.kill()
        proc.wait()


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


def run_python(code: str, *args, check=True, timeout=120, cwd=None):
    """Runs `code` in a fresh Python process (real process boundaries for
    lifetime, crash and concurrency tests), in `cwd` if given (the directory
    `-c` code imports from first, e.g. the repository for `bench`)."""
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"subprocess failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def traced_python(code: str, calls: str, log, *args) -> list[str]:
    """The system calls `calls` (strace's `-e trace=` list) that `code` makes
    in a fresh Python process (args after it), as strace's lines, all threads;
    skips the test where strace is missing (`make test` installs it)."""
    if shutil.which("strace") is None:
        pytest.skip("strace is installed by `make test`")
    subprocess.run(
        ["strace", "-f", "-qq", "-o", str(log), "-e", f"trace={calls}", sys.executable, "-c", code, *map(str, args)],
        check=True,
    )
    return log.read_text().splitlines()
