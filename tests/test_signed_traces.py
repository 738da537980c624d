"""Signed traces (docs/proof.md): sign a real trace, check it offline with only the envelope and a public key.

Every conformance case in fixtures/verify/ runs through chainret's verifier and through
tests/support/independent_verifier.py (written from docs/proof.md alone, importing nothing from chainret); both
must give the case's expected checks, so they agree on every case. The CLI tests run the commands as a user would.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("cryptography")
pytest.importorskip("rfc8785")

from support import independent_verifier  # noqa: E402

from chainret.cli import main  # noqa: E402
from chainret.trace.model import Trace  # noqa: E402
from chainret.verify.offline import CHECKS, verify_envelope  # noqa: E402
from chainret.verify.signing import (  # noqa: E402
    UnsignableTrace,
    canonical_json,
    generate_keys,
    load_private_key,
    load_public_key,
    sign_trace,
)

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "fixtures" / "verify"
CASE_NAMES = sorted(p.name for p in CASES.iterdir() if (p / "expected.jsonl").exists())
FROZEN = "log_format2_"  # (make_cases.FROZEN: cases of log format 2, which no code writes now)


def _library(envelope: bytes, key_pem: bytes, tmp_path: Path) -> list[str]:
    pub = tmp_path / "k.pub"
    pub.write_bytes(key_pem)
    return verify_envelope(envelope, load_public_key(pub)).failed


def _independent(envelope: bytes, key_pem: bytes, tmp_path: Path) -> list[str]:
    return independent_verifier.verify(envelope, key_pem)


VERIFIERS = {"library": _library, "independent": _independent}


def test_the_cases_cover_the_brief():
    """Each tamper the format must catch has a case, and a good envelope has one too (a negative control)."""
    needed = {"signed_trace", "other_bytes_fail", "relabelled_viewer_fail", "relabelled_catalog_digest_fail",
              "dropped_set_member_fail", "changed_quote_fail", "wrong_key_fail", "payload_type_fail", "budget_overrun_fail",
              # the log (checks 18-21): a good trace of a store, and each way its proofs can be forged
              "log_signed_trace", "log_consistency", "log_tampered_proof_fail", "log_swapped_entry_fail",
              "log_dropped_proof_fail", "log_wrong_root_fail", "log_other_tree_size_fail", "log_quote_not_at_span_fail",
              "log_checkpoint_signature_fail", "log_checkpoint_other_key_fail", "log_unsigned_checkpoint_fail",
              "log_foreign_checkpoint_fail", "log_stale_checkpoint_fail", "log_inconsistent_checkpoints_fail",
              # a proof in either form (one base64 string; a list, as earlier traces carry it), and a string of no whole hashes
              "log_listed_proofs", "log_ragged_proof_fail",
              # log format 3: a leaf an anchor, committing to its unit's text; a format named or not, as written
              "log_unit_text_fail", "log_format_dropped_fail", "log_unknown_format_fail",
              # traces of log format 2 (a unit leaf and a relation leaf an anchor) keep verifying, and failing
              "log_format2_signed_trace", "log_format2_listed_proofs", "log_format2_tampered_proof_fail"}
    assert needed <= set(CASE_NAMES)
    for name in CASE_NAMES:
        expected = json.loads((CASES / name / "expected.jsonl").read_text())
        assert expected["verifies"] is (not name.endswith("_fail")) is (expected["failed"] == [])
        assert all(c in CHECKS for c in expected["failed"])


def test_the_committed_cases_are_the_ones_make_cases_writes():
    """fixtures/verify/make_cases.py is the cases' one source: every directory is a case it writes and every case it
    writes is there (a case renamed on one side only was once both: the committed directory under one name, the
    generator and docs/proof.md under another). The negative control: a name the generator does not write."""
    import ast

    tree = ast.parse((CASES / "make_cases.py").read_text(encoding="utf-8"))
    written = {node.args[0].value for node in ast.walk(tree) if isinstance(node, ast.Call)
               and getattr(node.func, "id", None) == "_write" and isinstance(node.args[0], ast.Constant)}
    frozen = {n for n in CASE_NAMES if n.startswith(FROZEN)}  # (an earlier log format's, kept as written: never regenerated)
    assert set(CASE_NAMES) - frozen == written and not frozen & written
    assert set(CASE_NAMES) | {"log_renamed_fail"} != written | frozen


@pytest.mark.parametrize("verifier", sorted(VERIFIERS))
@pytest.mark.parametrize("case", CASE_NAMES)
def test_conformance_case(case: str, verifier: str, tmp_path: Path):
    d = CASES / case
    expected = json.loads((d / "expected.jsonl").read_text())
    failed = VERIFIERS[verifier]((d / "envelope.intoto.jsonl").read_bytes(), (d / "key.pub").read_bytes(), tmp_path)
    assert failed == expected["failed"], expected["why"]


def test_no_private_key_in_the_fixtures():
    assert not [p for p in CASES.rglob("*") if p.is_file() and b"PRIVATE KEY" in p.read_bytes()]


# -- the canonicaliser: chainret's (rfc8785) and the independent one give the same bytes --------------------

@pytest.mark.parametrize("value", [
    {"b": 1, "a": [True, False, None]}, 12.0, 0.1, 1e21, 1e-7, 123456789.125, -0.0, 5e-324, 2**53 - 1, 1.5e300,
    {"\u00e9": 1, "z": 2, "\U0001f600": 3, "\ufb33": 4}, "tab\there \"q\" \\ \x01 \x7f \u2028 é",
])
def test_canonical_json_agrees(value: object):
    assert canonical_json(value) == independent_verifier.jcs(value)


def test_canonical_json_of_a_real_trace_agrees():
    env = json.loads((CASES / "signed_trace" / "envelope.intoto.jsonl").read_text())
    trace = json.loads(base64.b64decode(env["payload"]))["predicate"]["trace"]
    assert canonical_json(trace) == independent_verifier.jcs(trace)


@pytest.mark.parametrize("value", [2**53, float("nan")])
def test_canonical_json_refuses_what_it_cannot_represent(value: object):
    with pytest.raises(ValueError):
        canonical_json(value)
    with pytest.raises(ValueError):
        independent_verifier.jcs(value)


# -- the library: sign and verify ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return generate_keys(tmp_path_factory.mktemp("keys"))


@pytest.fixture(scope="module")
def trace() -> Trace:
    from chainret.pipeline.ask import ask

    return ask("Which contact serves PR-84?", str(ROOT / "catalogs" / "default.yaml"), source="catalogs/default.yaml")


def test_keygen_writes_a_private_key_only_its_owner_reads(keys: tuple[Path, Path]):
    priv, pub = keys
    assert priv.stat().st_mode & 0o777 == 0o600 and pub.read_text().startswith("-----BEGIN PUBLIC KEY-----")


def test_keygen_never_overwrites(keys: tuple[Path, Path]):
    from chainret.core.errors import OutputError

    before = keys[0].read_bytes()
    with pytest.raises(OutputError, match="already exists"):
        generate_keys(keys[0].parent)
    assert keys[0].read_bytes() == before


def test_a_readable_private_key_is_refused(keys: tuple[Path, Path], tmp_path: Path):
    from chainret.core.errors import UsageError

    loose = tmp_path / "loose.pem"
    loose.write_bytes(keys[0].read_bytes())
    loose.chmod(0o644)
    with pytest.raises(UsageError, match="chmod 600"):
        load_private_key(loose)
    loose.chmod(0o600)
    load_private_key(loose)  # control: the same key, owner-only, loads


def test_sign_then_verify_round_trip(keys: tuple[Path, Path], trace: Trace):
    env = sign_trace(trace, load_private_key(keys[0]))
    result = verify_envelope(json.dumps(env).encode(), load_public_key(keys[1]))
    assert result.ok and [c.name for c in result.checks] == list(CHECKS)
    assert independent_verifier.verify(json.dumps(env).encode(), keys[1].read_bytes()) == []


def test_a_broken_trace_is_not_signed(keys: tuple[Path, Path], trace: Trace):
    broken = trace.model_copy(update={"searches_used": trace.budget.max_searches + 1})
    with pytest.raises(UnsignableTrace, match="trace.budget"):
        sign_trace(broken, load_private_key(keys[0]))


def test_a_set_answer_path_that_ends_elsewhere_fails(keys: tuple[Path, Path], trace: Trace):
    """trace.set_answers and trace.path_chain have no fixture of their own: checked here, both verifiers."""
    from chainret.verify.offline import statement_checks
    from chainret.verify.signing import statement_for

    assert trace.answers
    moved = [a.model_copy(update={"path_ids": a.path_ids[:-1] + ["contact:final:desk"]}) for a in trace.answers]
    st = statement_for(trace.model_copy(update={"answers": moved, "path_ids": trace.path_ids[:-1] + ["contact:final:desk"]}))
    assert [c.name for c in statement_checks(st, load_public_key(keys[1])) if not c.ok] == ["trace.path_chain", "trace.set_answers"]
    from chainret.verify.signing import sign_payload

    env = sign_payload(canonical_json(st), load_private_key(keys[0]))
    assert independent_verifier.verify(json.dumps(env).encode(), keys[1].read_bytes()) == ["trace.path_chain", "trace.set_answers"]


# -- the commands -------------------------------------------------------------------------------------------

def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "chainret", *args], capture_output=True, text=True, env=env, cwd=ROOT)


def test_cli_keygen_sign_verify(tmp_path: Path, trace: Trace):
    t = tmp_path / "t.json"
    t.write_text(trace.to_json())
    for args in (["keygen", "--out", str(tmp_path / "k")],
                 ["sign", str(t), "--key", str(tmp_path / "k" / "key.pem"), "--out", str(tmp_path / "e.json")]):
        with pytest.raises(SystemExit) as exit_:
            main(["trace", *args])
        assert exit_.value.code in (0, None), args
    ok = _cli("trace", "verify", "--offline", "--key", str(tmp_path / "k" / "key.pub"), str(tmp_path / "e.json"), "--json")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert json.loads(ok.stdout)["verified"] is True


@pytest.mark.parametrize("case", ["relabelled_viewer_fail", "signed_trace"])
def test_cli_verify_names_the_failed_check(case: str, capsys: pytest.CaptureFixture[str]):
    d = CASES / case
    with pytest.raises(SystemExit) as exit_:
        main(["trace", "verify", "--offline", "--key", str(d / "key.pub"), str(d / "envelope.intoto.jsonl")])
    out = capsys.readouterr().out
    if case.endswith("_fail"):
        assert exit_.value.code == 1 and "claims.viewer" in out
    else:
        assert exit_.value.code in (0, None) and "verified" in out


def test_cli_verify_offline_needs_a_key_and_no_catalog(tmp_path: Path):
    env = str(CASES / "signed_trace" / "envelope.intoto.jsonl")
    assert _cli("trace", "verify", "--offline", env).returncode == 2
    r = _cli("trace", "verify", "--offline", "--key", str(CASES / "signed_trace" / "key.pub"), "--catalog", "x", env)
    assert r.returncode == 2
    missing = _cli("trace", "verify", "--offline", "--key", str(tmp_path / "none.pub"), env)
    assert missing.returncode == 2 and "no such public key" in missing.stderr and "Traceback" not in missing.stderr


def test_cli_sign_without_a_key_writes_nothing(tmp_path: Path, trace: Trace):
    t = tmp_path / "t.json"
    t.write_text(trace.to_json())
    r = _cli("trace", "sign", str(t), "--key", str(tmp_path / "none.pem"), "--out", str(tmp_path / "e.json"))
    assert r.returncode == 2 and not (tmp_path / "e.json").exists() and "Traceback" not in r.stderr


def test_signing_loads_the_sign_extra_that_ask_never_does():
    """The negative control of tests/test_ask_imports.py's check: verifying does load cryptography and rfc8785."""
    d = CASES / "signed_trace"
    code = ("import sys\nfrom chainret.cli import main\n"
            f"try:\n    main(['trace', 'verify', '--offline', '--key', {str(d / 'key.pub')!r}, {str(d / 'envelope.intoto.jsonl')!r}])\n"
            "except SystemExit:\n    pass\nprint(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in ('cryptography', 'rfc8785'))))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout.split()
    assert "cryptography" in out and "rfc8785" in out


def test_a_file_that_is_not_a_key_is_named(tmp_path: Path):
    from chainret.core.errors import UsageError

    env = CASES / "signed_trace" / "envelope.intoto.jsonl"
    with pytest.raises(UsageError, match="envelope.intoto.jsonl: not a PEM public key"):
        load_public_key(env)
    load_public_key(CASES / "signed_trace" / "key.pub")  # control
