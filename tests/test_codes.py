"""Every refusal, view and defect code is a StrEnum member of chainret/core/codes.py, used by the engine,
worded for people, listed by the JSON Schemas, and written to traces as its plain string."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from pydantic import ValidationError

import chainret
from chainret.catalog.cases import CaseFile
from chainret.catalog.views import INVALID_CODES, VIEW_CODES
from chainret.cli.render import REASONS, WHY
from chainret.core.codes import HOP_FAILURES, INTERPRETATION_REFUSALS, DefectCode, RefusalCode, ViewCode
from chainret.trace.model import Refusal, Trace

PACKAGE = Path(chainret.__file__).parent


def _members_used(enum_name: str) -> set[str]:
    """``RefusalCode.X`` attribute uses anywhere in the package except codes.py and the CLI's wording."""
    used: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        if path.name == "codes.py" or path.parts[-2:] == ("cli", "render.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == enum_name:
                used.add(node.attr)
    return used


def test_every_refusal_code_is_emitted_somewhere() -> None:
    assert _members_used("RefusalCode") == {c.name for c in RefusalCode}


def test_every_view_and_defect_code_is_emitted_somewhere() -> None:
    assert {c.name for c in ViewCode} <= _members_used("ViewCode")
    assert {c.name for c in DefectCode} <= _members_used("DefectCode")


def test_every_code_has_plain_words() -> None:
    assert set(REASONS) == set(RefusalCode)
    assert set(WHY) == set(DefectCode) | set(ViewCode) | {RefusalCode.CYCLE}


def test_registries_partition_the_case_codes() -> None:
    assert not set(HOP_FAILURES) & set(INTERPRETATION_REFUSALS)
    leftover = set(RefusalCode) - set(HOP_FAILURES) - set(INTERPRETATION_REFUSALS)
    # no_pattern is its own case outcome; packet_too_small has no case outcome (tests cover it)
    assert leftover == {RefusalCode.NO_PATTERN, RefusalCode.PACKET_TOO_SMALL}
    assert VIEW_CODES == tuple(ViewCode) and INVALID_CODES == tuple(DefectCode)


def test_refusal_serialises_as_the_plain_string() -> None:
    r = Refusal(code=RefusalCode.DEAD_END, message="m")
    assert r.model_dump_json() == '{"code":"dead_end","message":"m","details":{}}'
    assert type(r.model_dump()["code"]) is str
    assert Refusal(code="dead_end", message="m") == r  # the JSON form reads back equal
    with pytest.raises(ValidationError):
        Refusal(code="no_such_code", message="m")


def test_schemas_list_the_codes() -> None:
    trace = json.dumps(Trace.model_json_schema())
    for c in RefusalCode:
        assert f'"{c.value}"' in trace
    cases = CaseFile.model_json_schema()["$defs"]
    assert cases["ExpectNoPath"]["properties"]["reason"]["enum"] == [c.value for c in HOP_FAILURES]
    assert cases["ExpectRefused"]["properties"]["reason"]["enum"] == [c.value for c in INTERPRETATION_REFUSALS]


def test_a_case_with_an_unknown_reason_is_rejected() -> None:
    with pytest.raises(ValidationError, match="no_supported_relation"):
        CaseFile.model_validate(
            {"cases": [{"id": "x", "request": "r", "principal": "p", "expect": {"outcome": "no_path", "failed_hop": 1, "reason": "nope"}}]}
        )
