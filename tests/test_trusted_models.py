"""``TrustedModel.model_construct`` (``chainret.core.trusted``): the engine's models built without validation,
and the suite-wide check that every such construction equals what validation builds.

The conftest sets ``CHAINRET_CHECK_TRUSTED=1``, so every test that asks checks every construction; these
tests make sure that check would catch a wrong value, and that without it the instances and the traces
are the very ones validation gives.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from pydantic import ValidationError

import chainret.core.trusted
from chainret.pipeline.ask import ask
from chainret.catalog.models import Entity
from chainret.trace.model import Anchor, Budget, Coverage, Hit, Hop, Trace

ANCHOR = dict(unit_ref="reg/a.md@v1#u1", relation_id="rel-1", source="reg", document="a.md", version="v1",
              representation="text/markdown", digest="sha256:00", span=(4, 30), quote="REL a | b | c")


def test_the_suite_runs_with_the_check_on() -> None:
    assert os.environ.get("CHAINRET_CHECK_TRUSTED") == "1" and chainret.core.trusted.CHECK


@pytest.mark.parametrize(
    ("model", "values", "error"),
    [
        (Anchor, {**ANCHOR, "span": [4, 30]}, "span=\\[4, 30\\] \\(list\\) but validation gives \\(4, 30\\) \\(tuple\\)"),
        (Hit, {"ref": "u1", "rank": 1, "score": 2}, "score=2 \\(int\\) but validation gives 2.0 \\(float\\)"),
    ],
)
def test_the_check_catches_a_value_validation_would_convert(model, values, error) -> None:
    with pytest.raises(AssertionError, match=error):
        model.model_construct(**values)


@pytest.mark.parametrize(
    ("model", "values"),
    [
        (Hit, {"ref": "u1", "rank": 0, "score": 1.0}),  # rank >= 1
        (Hit, {"ref": "u1", "rank": 1, "score": 1.0, "sccore": 1.0}),  # an unknown field
        (Entity, {"id": "project:w:a", "type": "org", "name": "A"}),  # the type is not the ID's prefix
        (Hop, {"index": 1}),  # a required field missing
    ],
)
def test_the_check_catches_what_validation_refuses(model, values) -> None:
    with pytest.raises(ValidationError):
        model.model_construct(**values)


def test_without_the_check_the_instance_is_the_validated_one(monkeypatch) -> None:
    monkeypatch.setattr(chainret.core.trusted, "CHECK", False)
    hit = Hit.model_construct(ref="u1", rank=1, score=0.5)
    anchor = Anchor.model_construct(**ANCHOR)
    hop = Hop.model_construct(index=1, subquery="project:w:a", predicate="p", hits=[hit], anchor=anchor, bridge="org:w:b")
    trace = Trace.model_construct(request="r", budget=Budget(), hops=[hop], outcome="partial_evidence",
                                  coverage=Coverage.model_construct(anchors_required=["rel-1"]), meta={"x": 1})
    validated = Trace(request="r", budget=Budget(), hops=[Hop(index=1, subquery="project:w:a", predicate="p",
                      hits=[Hit(ref="u1", rank=1, score=0.5)], anchor=Anchor(**ANCHOR), bridge="org:w:b")],
                      outcome="partial_evidence", coverage=Coverage(anchors_required=["rel-1"]), meta={"x": 1})
    assert trace == validated and trace.to_json() == validated.to_json()
    assert list(trace.__dict__) == list(validated.__dict__) and list(hop.__dict__) == list(Hop.model_fields)
    assert trace.model_fields_set == validated.model_fields_set
    # Defaults from factories are fresh per instance, never shared.
    assert hop.selected == [] and hop.selected is not Hop.model_construct(index=2, subquery="x").selected


def test_an_ask_without_the_check_writes_the_traces_the_checked_ask_writes() -> None:
    requests = ["Which contact serves PR-84?", "who is the contact for PR-84", "Which contact serves PR-99?", "hello"]
    code = ("import json, sys\nfrom chainret.pipeline.ask import ask\n"
            "print(json.dumps([ask(r, principal=p).to_json() for r in json.loads(sys.argv[1]) for p in ('public', 'auditor')]))")
    env = {**os.environ, "CHAINRET_CHECK_TRUSTED": "0"}
    out = subprocess.run([sys.executable, "-c", code, json.dumps(requests)], env=env, capture_output=True, text=True, check=True)
    fast = [json.loads(t) for t in json.loads(out.stdout)]
    checked = [json.loads(ask(r, principal=p).to_json()) for r in requests for p in ("public", "auditor")]
    for t in (*fast, *checked):
        t["meta"].pop("ask_ms")
    assert fast == checked and {t["outcome"] for t in checked} >= {"accepted_path", "no_pattern"}


def test_a_copy_is_pydantics_copy() -> None:
    from pydantic import BaseModel

    trace = ask("Which contact serves PR-84?")
    mine, theirs = trace.model_copy(update={"meta": {"x": 1}}), BaseModel.__copy__(trace)
    theirs.__dict__.update({"meta": {"x": 1}})
    theirs.__pydantic_fields_set__.add("meta")
    assert mine == theirs and mine.__dict__ is not trace.__dict__ and mine.model_fields_set == theirs.model_fields_set
    assert mine.__pydantic_extra__ is None and mine.__pydantic_private__ is None and trace.meta != {"x": 1}


def test_an_entity_row_decodes_its_aliases() -> None:
    from chainret.store.rowdecode import _entity

    assert _entity(("project:w:a", "project", "A", "[]", "")).aliases == []
    assert _entity(("project:w:a", "project", "A", '["PA", "Alpha"]', "")).aliases == ["PA", "Alpha"]


# The models a cold ask now builds unchecked (issue 47: a store's records, the memory catalog's units, the default
# budget) are deferred-build models that still refuse bad input where it comes in: a catalog file, a flag.
_GOOD_AND_BAD = [
    ("View", {"name": "v1", "documents": ["reg/a.md@v1"]}, {"documents": ["not a ref"]}),
    ("Pattern", {"name": "serves", "start_type": "project", "hops": ["owned_by"], "phrasings": ["who serves {project}"]},
     {"hops": []}),
    ("Predicate", {"name": "owned_by", "domain": "project", "range": "org"}, {"cardinality": "sometimes"}),
    ("Unit", {"ref": "reg/a.md@v1#u1", "doc_ref": "reg/a.md@v1", "index": 1, "start": 0, "end": 3, "text": "abc"},
     {"index": 0}),
    ("Budget", {}, {"rows_per_hop": 0}),
]


@pytest.mark.parametrize(("name", "good", "bad"), _GOOD_AND_BAD, ids=[g[0] for g in _GOOD_AND_BAD])
def test_the_models_built_unchecked_still_validate_bad_input(name, good, bad) -> None:
    """Each validates in a fresh interpreter, where its schema is built on first use (``defer_build``): the good
    values pass (the negative control: it is the bad value that fails), the bad one is refused."""
    module = "chainret.core.budget" if name == "Budget" else "chainret.catalog.models"
    probe = (f"from pydantic import ValidationError\nfrom {module} import {name} as M\n"
             f"assert not M.__pydantic_complete__\nM(**{good!r})\n"
             f"try:\n    M(**{{**{good!r}, **{bad!r}}})\nexcept ValidationError:\n    print('refused')\n")
    env = {k: v for k, v in os.environ.items() if k != "CHAINRET_CHECK_TRUSTED"}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env)
    assert done.returncode == 0 and done.stdout.split() == ["refused"], done.stderr[-600:]
