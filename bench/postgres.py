"""A throw-away local PostgreSQL server (Debian's package) for benchmarks: a
fresh cluster in a temporary directory, listening on a Unix socket (and on
127.0.0.1 for clients that need TCP, such as JDBC)."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile


def _bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not found:
        subprocess.run(["apt-get", "install", "-y", "-q", "postgresql"], check=True)
        found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1]


class LocalPostgres:
    """`with LocalPostgres() as pg:` gives `pg.dsn` (psycopg) and `pg.uri` (ADBC).
    Commits are not synced to disk unless `durable` (benchmarks of reading
    and loading need no durability; those of commits do). With `tcp`, it also
    listens on 127.0.0.1."""

    def __init__(self, port: int = 54329, durable: bool = False, tcp: bool = False):
        self.port = port
        self.durable = durable
        self.tcp = tcp
        self.dir = tempfile.mkdtemp(prefix="swingdb-bench-pg-")
        self.data = os.path.join(self.dir, "data")
        self.user = "postgres"

    def _run(self, *cmd):
        as_user = ["runuser", "-u", self.user, "--"] if os.geteuid() == 0 else []
        subprocess.run(as_user + list(cmd), check=True, stdout=subprocess.DEVNULL)

    def __enter__(self):
        if os.geteuid() == 0:
            pw = pwd.getpwnam(self.user)
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        self._run(_bin("initdb"), "-D", self.data, "-U", self.user, "--auth=trust", "-E", "UTF8")
        fsync = "on" if self.durable else "off"
        listen = "127.0.0.1" if self.tcp else ""
        options = f"-k {self.dir} -p {self.port} -c listen_addresses='{listen}' -c fsync={fsync} -c shared_buffers=1GB"
        self._run(_bin("pg_ctl"), "-D", self.data, "-o", options, "-w", "-l", os.path.join(self.dir, "log"), "start")
        self.dsn = f"host={self.dir} port={self.port} user={self.user} dbname=postgres"
        self.uri = f"postgresql://{self.user}@/postgres?host={self.dir}&port={self.port}"
        return self

    def restart(self) -> None:
        """Stops and starts the server: its shared buffers start empty."""
        self._run(_bin("pg_ctl"), "-D", self.data, "-m", "fast", "-w", "restart")

    def __exit__(self, *exc):
        try:
            self._run(_bin("pg_ctl"), "-D", self.data, "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
