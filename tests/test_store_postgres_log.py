"""A PostgreSQL store keeps the same per-viewer logs as a SQLite file (docs/proof.md), each readable by its own class.

The same three writes (v1 compiled, v2 a restricted-only update, v3 a public one: ``test_store_log._versions``) made
to a SQLite file and to a PostgreSQL schema give the same checkpoints, class for class and write for write. Row-level
security shows a login its own class's leaves, subtrees and checkpoints only (the superuser, who bypasses it, sees
every class's: the negative control). Traces asked of the PostgreSQL store carry inclusion proofs that verify offline,
and the public login's checkpoint does not move on the restricted-only update while the auditor's does.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from store_worlds import new_schema_url, pg_url  # noqa: F401
from test_store_log import REQUEST, _versions

from chainret.pipeline.ask import ask
from chainret.store import compile_store, open_store, update_store
from chainret.store.base import StoreError
from chainret.store.log import store_log
from chainret.store.postgres import grant_login, split_url
from chainret.verify.offline import verify_envelope
from chainret.verify.signing import UnsignableTrace, generate_keys, load_private_key, load_public_key, sign_trace

psycopg = pytest.importorskip("psycopg")  # the test extra installs it; CI runs these
pytest.importorskip("cryptography")
pytest.importorskip("rfc8785")

LOG_TABLES = ("log_runs", "log_tiles", "log_checkpoints")


def _login_url(url: str, principal: str, login: str) -> str:
    """``url`` signed in as a login of its own, granted ``principal``."""
    password = "pw-" + login
    grant_login(url, principal, login, password=password)
    parts = urlsplit(url)
    host = parts.hostname or "localhost"
    netloc = f"{login}:{password}@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def _checkpoints(store: object, classes: tuple[str, ...] | None = None) -> dict[str, list[tuple[int, int, str]]]:
    log = store_log(store)
    assert log is not None
    return {c: [(h["seq"], h["size"], h["root"]) for h in log.checkpoints(c)] for c in (classes or log.classes)}


@pytest.fixture(scope="module")
def written(pg_url, tmp_path_factory):  # noqa: F811
    """The three writes, to a SQLite file per write and to one PostgreSQL schema (its URL after v2 and after v3)."""
    tmp = tmp_path_factory.mktemp("pglog")
    v1, v2, v3 = _versions()
    dbs = {"v1": tmp / "v1.db", "v2": tmp / "v2.db", "v3": tmp / "v3.db"}
    compile_store(v1, dbs["v1"])
    for before, name, cat in (("v1", "v2", v2), ("v2", "v3", v3)):
        dbs[name].write_bytes(dbs[before].read_bytes())
        update_store(cat, dbs[name])
    url = new_schema_url(pg_url)
    compile_store(v1, url)
    update_store(v2, url)
    after_v2 = new_schema_url(pg_url)  # a schema stopped at v2, for the restricted-only update's checkpoints
    compile_store(v1, after_v2)
    store = open_store(after_v2)
    try:
        at_v1 = _checkpoints(store)
    finally:
        store.close()
    update_store(v2, after_v2)
    update_store(v3, url)
    return {"dbs": dbs, "url": url, "v2_url": after_v2, "pg_v1": at_v1}


def test_sqlite_and_postgres_keep_the_same_checkpoints_per_viewer_class(written):
    store = open_store(written["url"])  # the superuser's URL: chainret reads as the application role
    try:
        pg = _checkpoints(store)
    finally:
        store.close()
    lite = _checkpoints(open_store(written["dbs"]["v3"]))
    assert sorted(pg) == sorted(lite) == ["", "*", "auditor"]
    assert pg == lite  # every class's (seq, size, root), write for write
    assert len(pg["*"]) == 3 and len(pg["auditor"]) == 2  # (the auditor's class begins at v2)


def test_a_restricted_only_update_leaves_the_public_logins_checkpoint(written):
    """Read through a public login and an auditor login of their own: the public checkpoint after v2 is the one
    after v1; the auditor's class began at v2 and the audit log moved (the negative control: the comparison can
    see a change)."""
    url = written["v2_url"]
    public = open_store(_login_url(url, "public", "t_log_public"))
    auditor = open_store(_login_url(url, "auditor", "t_log_auditor"))
    try:
        before = written["pg_v1"]
        seen = _checkpoints(public, ("*",))["*"]
        assert [h[1:] for h in seen] == [before["*"][0][1:]] * 2  # two writes, one checkpoint value
        with pytest.raises(StoreError, match="may not read as principal 'auditor'"):  # nor another class's log
            _checkpoints(public, ("auditor",))
        assert _checkpoints(public, ("",))[""] == []  # the audit log: the policy shows it none of its rows
        own = _checkpoints(auditor, ("auditor",))["auditor"]
        assert len(own) == 1 and own[0][1] > seen[-1][1]
        app = open_store(url)
        try:
            audit = _checkpoints(app, ("",))[""]
        finally:
            app.close()
        assert audit[-1][1:] != audit[0][1:] and audit[0][1:] == before[""][0][1:]  # control: the audit log moved
        trace_1 = ask(REQUEST, public, view="final")
        assert (trace_1.meta["log"]["size"], trace_1.meta["log"]["root"]) == (seen[0][1], seen[0][2])
    finally:
        public.close()
        auditor.close()


def test_each_login_selects_its_own_classs_log_rows_only(written):
    url = written["url"]
    conninfo, schema = split_url(url)
    seen: dict[str, dict[str, set[str]]] = {}
    for who, principal in (("t_logrow_public", "public"), ("t_logrow_auditor", "auditor")):
        grant_login(url, principal, who, password="pw-" + who)
        conn = psycopg.connect(conninfo, user=who, password="pw-" + who, autocommit=True)
        try:
            conn.execute(f"SET search_path TO {schema}")
            seen[principal] = {t: {r[0] for r in conn.execute(f"SELECT DISTINCT principal FROM {t}")} for t in LOG_TABLES}
            assert conn.execute("SELECT count(*) FROM log_info").fetchone()[0] == 2  # the format and origin: everyone's
        finally:
            conn.close()
    dba = psycopg.connect(conninfo, autocommit=True)  # the superuser bypasses the policies: every class's rows are there
    try:
        every = {t: {r[0] for r in dba.execute(f"SELECT DISTINCT principal FROM {schema}.{t}")} for t in LOG_TABLES}
    finally:
        dba.close()
    assert all(classes == {"", "*", "auditor"} for classes in every.values())
    assert all(classes == {"*"} for classes in seen["public"].values())
    assert all(classes == {"auditor"} for classes in seen["auditor"].values())


def test_traces_from_postgres_carry_proofs_that_verify_offline(written, tmp_path: Path):
    priv, pub = generate_keys(tmp_path / "keys")
    key, public_key = load_private_key(priv), load_public_key(pub)
    lite = open_store(written["dbs"]["v3"])
    store = open_store(written["url"])
    login = open_store(_login_url(written["url"], "auditor", "t_log_prover"))
    try:
        asks = [(store, {"principal": "public"}), (store, {"principal": "auditor"}), (store, {"principal": "auditor", "project": False}),
                (login, {"principal": "auditor"})]
        for reader, how in asks:
            trace = ask(REQUEST, reader, view="final", **how)
            proven = trace.meta["log"]
            assert trace.outcome == "accepted_path" and proven["units"] and proven["relations"], how
            result = verify_envelope(json.dumps(sign_trace(trace, key)).encode(), public_key)
            assert result.ok, (how, result.failed)
            same = ask(REQUEST, lite, view="final", **how).meta["log"]  # the SQLite file's proofs: the same tree
            assert (proven["size"], proven["root"], proven["units"], proven["relations"]) == \
                (same["size"], same["root"], same["units"], same["relations"]), how
        # A proof against a class the viewer is not of: the public trace with the auditor's proofs fails the offline
        # checks (``trace sign`` runs them and refuses to sign it).
        public = ask(REQUEST, store, view="final", principal="public")
        auditor_log = ask(REQUEST, store, view="final", principal="auditor").meta["log"]
        forged = public.model_copy(update={"meta": {**public.meta, "log": auditor_log}})
        with pytest.raises(UnsignableTrace, match="log.checkpoint"):
            sign_trace(forged, key)
    finally:
        lite.close()
        store.close()
        login.close()


def test_trace_verify_offline_cli_passes_on_a_postgres_trace(written, tmp_path: Path):
    from chainret.cli import main

    def run(*args: str) -> int:
        with pytest.raises(SystemExit) as exit_:
            main(list(args))
        return int(exit_.value.code or 0)

    assert run("trace", "keygen", "--out", str(tmp_path / "k")) == 0
    out = tmp_path / "t.json"
    assert run("ask", REQUEST, "--catalog", written["url"], "--view", "final", "--trace-out", str(out)) == 0
    assert "log" in json.loads(out.read_text())["meta"]
    assert run("trace", "sign", str(out), "--key", str(tmp_path / "k" / "key.pem"), "--out", str(tmp_path / "t.env")) == 0
    assert run("trace", "verify", "--offline", "--key", str(tmp_path / "k" / "key.pub"), str(tmp_path / "t.env")) == 0


def test_an_audit_trace_over_a_store_knows_only_its_principals_labels(pg_url, tmp_path: Path):  # noqa: F811
    """docs/proof.md: an unprojected (audit) trace asked of a compiled store, SQLite or PostgreSQL, resolves only the
    labels its principal may know (the store reads names as that principal; PostgreSQL's policy says the same), and
    is proven against the audit log. A catalog file's unprojected trace knows every label (the control: the same
    request there resolves the restricted display name), and hr, who reads the users file, is told it everywhere."""
    from test_importer_noninterference import HEADER, JANE, PUBLIC_FILES, USERS, _import, _write

    from chainret.catalog.load import load_catalog

    src, tree = tmp_path / "src", tmp_path / "full"
    _write(src, {"chainret.yaml": HEADER})
    _write(tree, {**PUBLIC_FILES, "org/users.yaml": USERS})
    catalog = _import(tree, src, tmp_path / "full.yaml")
    cat = load_catalog(catalog)
    url = new_schema_url(pg_url)
    compile_store(cat, tmp_path / "s.db")
    compile_store(cat, url)
    request = "What does Jane Secret own?"  # the display name only the restricted users file holds
    assert ask(request, str(catalog), principal="public", project=False).path_ids[0] == JANE  # the file: every label
    for where in (str(tmp_path / "s.db"), url):
        store = open_store(where)
        try:
            public = ask(request, store, principal="public", project=False)
            hr = ask(request, store, principal="hr", project=False)
        finally:
            store.close()
        assert public.outcome != "accepted_path" and JANE not in (public.path_ids or []), where
        assert hr.path_ids[0] == JANE and hr.meta["log"]["origin"].endswith("/audit"), where


def test_catalog_log_cli_over_postgres_shows_a_login_its_own_class(written, capsys: pytest.CaptureFixture[str]):
    """`chainret catalog log URL`: through the app role, every class (as the SQLite file's); through a public login of
    its own, the public class only, and its password in no output."""
    from chainret.cli import main

    def run(*args: str) -> dict:
        with pytest.raises(SystemExit) as exit_:
            main(list(args))
        assert int(exit_.value.code or 0) == 0
        return json.loads(capsys.readouterr().out)

    every = run("catalog", "log", written["url"], "--json")
    lite = run("catalog", "log", str(written["dbs"]["v3"]), "--json")
    assert [(g["class"], [(c["size"], c["root"]) for c in g["checkpoints"]]) for g in every["logs"]] == \
        [(g["class"], [(c["size"], c["root"]) for c in g["checkpoints"]]) for g in lite["logs"]]
    login = _login_url(written["url"], "public", "t_log_cli")
    own = run("catalog", "log", login, "--json")
    assert [g["class"] for g in own["logs"]] == ["public"] and "pw-t_log_cli" not in json.dumps(own)
