"""A throwaway PostgreSQL server for the tests (Debian's ``postgresql`` package, which
``make test`` installs). ``initdb`` and ``postgres`` refuse to run as root, so as root the
server runs as the ``postgres`` user, in a temporary folder it owns, listening on a Unix
socket in that folder only (no TCP port, trust authentication). Each test gets its own
database (:meth:`PgServer.new_database`), empty or of the newest schema."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

__all__ = ["PgServer", "pg_bin"]


def pg_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    assert found, "PostgreSQL is missing: `make test` installs it (make system: apt-get install postgresql)"
    return Path(found[-1]).parent


class PgServer:
    def __init__(self) -> None:
        self.bin = pg_bin()
        self.root = os.geteuid() == 0
        self.dir = Path(tempfile.mkdtemp(prefix="kardinal-pg-"))
        self.data = self.dir / "data"
        self.port = 5432 + (os.getpid() % 1000)  # the socket's name; no TCP
        self._template: str | None = None  # the migrated databases' (new_database)
        if self.root:
            shutil.chown(self.dir, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")
        opts = f"-k {self.dir} -p {self.port} -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self._run("pg_ctl", "-D", str(self.data), "-o", opts, "-l", str(self.dir / "log"), "-w", "start")

    def _run(self, tool: str, *args: str) -> None:
        cmd = [str(self.bin / tool), *args]
        if self.root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, f"{tool}: {p.stdout}\n{p.stderr}"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@/{database}?host={self.dir}&port={self.port}"

    def new_database(self, migrated: bool = False) -> str:
        """A fresh database, empty or (``migrated``) of the newest schema; its SQLAlchemy URL.
        A migrated one is a copy (CREATE DATABASE ... TEMPLATE) of one the migrations made
        once per server: a copy costs half what creating and migrating did."""
        name = "t_" + uuid.uuid4().hex[:12]
        template = self._migrated() if migrated else "template1"
        self._create(name, template)
        return self.url(name)

    def _migrated(self) -> str:
        """The template of migrated databases, made on first use."""
        if self._template is None:
            from kardinal.server.storage import Storage

            self._create("migrated", "template1")
            Storage(self.url("migrated")).close()  # (no connection to it stays: a template must have none)
            self._template = "migrated"
        return self._template

    def _create(self, name: str, template: str) -> None:
        import psycopg

        with psycopg.connect(host=str(self.dir), port=self.port, user="postgres", dbname="postgres", autocommit=True) as c:
            c.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
