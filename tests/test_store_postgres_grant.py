"""``catalog grant --password-…``: the server receives a SCRAM verifier, never the password, and the login works."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from pathlib import Path

import pytest
from store_worlds import new_schema_url, pg_url  # noqa: F401

from chainret.catalog.load import load_world
from chainret.store import compile_store
from chainret.store import postgres as pgstore
from chainret.store.postgres import grant_login, split_url

psycopg = pytest.importorskip("psycopg")  # the test extra installs it; CI runs these

SEED = Path(__file__).resolve().parents[1] / "fixtures" / "seed"
PASSWORD = "Sesame-7f3a9c-ÿ"  # what must appear in no statement the server sees
LOGIN = "t_scram_login"


def _server_log(dba) -> Path | None:
    """The server's log file, where this test can read it (the embedded server's; None elsewhere)."""
    name = dba.execute("SELECT coalesce(pg_current_logfile(), 'log')").fetchone()[0]
    path = Path(name) if Path(name).is_absolute() else Path(dba.execute("SHOW data_directory").fetchone()[0]) / name
    try:
        path.stat()
    except OSError:
        return None
    return path


def _verifies(verifier: str, password: str) -> bool:
    """RFC 5802's check of a password against PostgreSQL's stored SCRAM-SHA-256 verifier (what the server does)."""
    head, keys = verifier.split("$", 1)[1].split("$")
    iterations, salt = head.split(":")
    stored, server = (base64.b64decode(k) for k in keys.split(":"))
    salted = hashlib.pbkdf2_hmac("sha256", password.encode(), base64.b64decode(salt), int(iterations))
    client_key = hmac.new(salted, b"Client Key", "sha256").digest()
    return hashlib.sha256(client_key).digest() == stored and hmac.new(salted, b"Server Key", "sha256").digest() == server


def test_grant_sends_a_scram_verifier_not_the_password(pg_url, monkeypatch):  # noqa: F811
    url = new_schema_url(pg_url)
    compile_store(load_world(SEED).catalog, url)
    real_connect = pgstore.connect

    def logged(u, *, autocommit=True):  # the grant's own session logs every statement it sends
        conn = real_connect(u, autocommit=autocommit)
        conn.execute("SET log_statement = 'all'")
        return conn

    monkeypatch.setattr(pgstore, "connect", logged)
    dba = psycopg.connect(split_url(url)[0], autocommit=True)
    try:
        log = _server_log(dba)
        start = log.stat().st_size if log is not None else 0
        grant_login(url, "public", LOGIN, password=PASSWORD)
        stored = dba.execute("SELECT rolpassword FROM pg_authid WHERE rolname = %s", (LOGIN,)).fetchone()[0]
        assert stored.startswith("SCRAM-SHA-256$4096:")
        assert _verifies(stored, PASSWORD) and not _verifies(stored, PASSWORD + "x")
        if log is None:
            pytest.skip("the server's log is not readable here: the verifier was checked, not the log")
        with log.open("rb") as fh:
            fh.seek(start)
            written = fh.read().decode("utf-8", "replace")
        assert 'ROLE "t_scram_login"' in written and "PASSWORD 'SCRAM-SHA-256$4096:" in written  # it was logged ...
        assert PASSWORD not in written and PASSWORD.encode().hex() not in written  # ... without the password
    finally:
        dba.close()


def test_the_granted_login_signs_in_with_its_password_and_not_with_another(pg_url):  # noqa: F811
    """A real sign-in over SCRAM: the embedded server trusts every local login, so this test asks it, for this one
    login, for a password (a line of its own in pg_hba.conf, removed afterwards)."""
    url = new_schema_url(pg_url)
    compile_store(load_world(SEED).catalog, url)
    login = LOGIN + "2"
    grant_login(url, "public", login, password=PASSWORD)
    conninfo = split_url(url)[0]
    dba = psycopg.connect(conninfo, autocommit=True)
    hba = Path(dba.execute("SHOW hba_file").fetchone()[0])
    try:
        before = hba.read_text()
    except OSError:
        dba.close()
        pytest.skip("the server's pg_hba.conf is not writable here")
    try:
        hba.write_text(f"local all {login} scram-sha-256\nhost all {login} all scram-sha-256\n{before}")
        dba.execute("SELECT pg_reload_conf()")

        def sign_in(password: str) -> bool:
            try:
                psycopg.connect(conninfo, user=login, password=password).close()
            except psycopg.OperationalError as exc:
                assert "password authentication failed" in str(exc), exc
                return False
            return True

        deadline = time.monotonic() + 10  # the server reads pg_hba.conf again shortly after the reload
        while sign_in("wrong-" + PASSWORD) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not sign_in("wrong-" + PASSWORD)  # negative control: another password is refused
        assert sign_in(PASSWORD)
    finally:
        hba.write_text(before)
        dba.execute("SELECT pg_reload_conf()")
        dba.close()
