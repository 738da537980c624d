"""`import chainret` and the ask path must never pull in the model stack."""

import subprocess
import sys

HEAVY = ("torch", "transformers", "sentence_transformers")


def _loaded_after(code: str) -> list[str]:
    probe = f"{code}\nimport sys\nprint(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return [m for m in out.stdout.strip().split(",") if m]


def test_import_chainret_is_light():
    assert _loaded_after("import chainret") == []


def test_cli_import_is_light():
    assert _loaded_after("import chainret.cli") == []
