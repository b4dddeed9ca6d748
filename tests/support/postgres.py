"""A real PostgreSQL server for tests: Debian's ``postgresql`` binaries, ``initdb`` into a
temporary directory and ``pg_ctl`` on a free loopback port (never a mock).

The server runs as ``nobody`` when the tests run as root (CI), since ``initdb`` and ``postgres``
refuse root. It is tuned to start fast and lose everything on a crash (``fsync=off``): it holds
only what one test session makes. Host connections need the superuser's password, so every URL a
test uses carries one, as a deployment's would.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest

BIN_DIRS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
"""Debian's PostgreSQL binaries, newest major version first."""
INSTALL = "apt-get install postgresql"
USER = "postgres"
PASSWORD = "pg-test-password"
INITDB = ("-U", USER, "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8",
          "--locale=C.UTF-8", "--no-sync", "--no-instructions")  # fmt: skip
SETTINGS = (
    "-F -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=16MB "
    "-c max_connections=50 -c autovacuum=off -c max_wal_senders=0 -c wal_level=minimal"
)


def pg_bin() -> Path | None:
    """The directory holding ``initdb`` and ``pg_ctl``, or None when PostgreSQL is missing."""
    return next(
        (d for d in BIN_DIRS if (d / "initdb").is_file() and (d / "pg_ctl").is_file()), None
    )


class PostgresServer:
    """One running server: ``url(db)`` names a database on it, ``create_database`` makes one."""

    def __init__(self, port: int, host: str = "127.0.0.1") -> None:
        self.port = port
        self.host = host

    def url(self, database: str, password: str = PASSWORD) -> str:
        return f"postgresql://{USER}:{password}@{self.host}:{self.port}/{database}"

    def create_database(self) -> str:
        """A fresh, empty database; its URL."""
        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def query(self, url: str, sql: str) -> list[Any]:
        """The first column of ``sql``'s rows, in the database ``url`` names."""
        with psycopg.connect(url) as db:
            return [row[0] for row in db.execute(sql)]


@contextmanager
def postgres_server(
    bin_dir: Path, host: str = "127.0.0.1", clients: str | None = None
) -> Iterator[PostgresServer]:
    """A server in a fresh temporary directory listening on ``host``, stopped and removed at the
    end; ``clients`` (a CIDR network) may connect from other hosts, with the password."""
    root = Path(tempfile.mkdtemp(prefix="pg-test-"))  # not under pytest's root-only tmp dir
    user = _unprivileged()
    try:
        (root / "password").write_text(PASSWORD)
        if user is not None:
            os.chown(root, user.pw_uid, user.pw_gid)
        data: list[str | Path] = ["-D", root / "data"]
        _run(user, bin_dir / "initdb", *data, *INITDB, "--pwfile", root / "password")
        if clients is not None:
            with (root / "data" / "pg_hba.conf").open("a") as hba:
                hba.write(f"host all all {clients} scram-sha-256\n")
        port = free_port(host)
        options = f"{SETTINGS} -c listen_addresses={host} -p {port} -k {root}"
        _run(user, bin_dir / "pg_ctl", *data, "-l", root / "log", "-o", options, "-w", "start")
        try:
            yield PostgresServer(port, host)
        finally:
            _run(user, bin_dir / "pg_ctl", *data, "-m", "immediate", "-w", "stop")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _unprivileged() -> pwd.struct_passwd | None:
    """``nobody`` when running as root (the server refuses root), else None (run as oneself)."""
    return pwd.getpwnam("nobody") if os.geteuid() == 0 else None


def _run(user: pwd.struct_passwd | None, *argv: str | Path) -> None:
    uid, gid = (user.pw_uid, user.pw_gid) if user else (None, None)
    groups: list[int] | None = [] if user else None
    done = subprocess.run(
        [str(a) for a in argv],
        capture_output=True,
        text=True,
        check=False,
        cwd="/",
        user=uid,
        group=gid,
        extra_groups=groups,
    )
    if done.returncode != 0:
        log = Path(argv[argv.index("-l") + 1]) if "-l" in argv else None
        tail = log.read_text()[-2000:] if log and log.is_file() else ""
        raise RuntimeError(f"{argv[0]} failed ({done.returncode}): {done.stderr.strip()}\n{tail}")


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def require_pg_bin() -> Path:
    """The binaries' directory; without them a test skips locally and fails in CI (``CI`` set)."""
    found = pg_bin()
    if found is None:
        message = f"PostgreSQL's server binaries are not in /usr/lib/postgresql; {INSTALL}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found
