"""``chainret.core.record.Record`` behaves as the ``pydantic.BaseModel`` declared the same way (issue 47).

Differential: one model declared twice, with pydantic's names and with the record's, must validate, refuse (the
very error text), dump, copy, compare, hash, pickle and describe itself (JSON schema) alike; a record held by a
real pydantic model validates and dumps as a nested ``BaseModel`` does. The negative controls show each
comparison can fail: a record declared with one constraint less is told apart by the same checks. (No
``from __future__ import annotations`` here: a record resolves a string annotation in its module, not in the
function that declares it, as the records of chainret are declared at module level.)
"""

import copy
import pickle
from typing import Any, Literal

import pydantic
import pytest

from chainret.core import record
from chainret.core.stablejson import compact_json, plain_dump


def _declare(api: Any, base: type, strict_name: bool = True) -> tuple[Any, Any]:
    """One declaration, written with ``api``'s names (``pydantic`` or ``chainret.core.record``) on ``base``."""

    class Part(base):
        model_config = api.ConfigDict(frozen=True, extra="forbid")

        span: tuple[int, int]
        kind: Literal["a", "b"] = "a"

    class Thing(base):
        model_config = api.ConfigDict(frozen=True, extra="forbid")

        name: str = api.Field(min_length=1, pattern=r"^[a-z]+$" if strict_name else r"^.*$")
        rank: int = api.Field(1, ge=1)
        score: float = 0.0
        tags: list[str] = api.Field(default_factory=list)
        parts: list[Part] = api.Field(default_factory=list)
        note: str | None = None

        @api.field_validator("tags", mode="before")
        @classmethod
        def _one_or_many(cls, v: Any) -> Any:
            return [v] if isinstance(v, str) else v

        @api.model_validator(mode="after")
        def _rank_fits(self) -> Any:
            if self.rank > 99:
                raise ValueError(f"rank {self.rank} is over 99")
            return self

        @api.model_serializer(mode="wrap")
        def _omit_none(self, handler: Any) -> Any:
            data = handler(self)
            if isinstance(data, dict) and data.get("note") is None:
                data.pop("note", None)
            return data

    return Thing, Part


def _pydantic_models(strict_name: bool = True) -> tuple[Any, Any]:
    return _declare(pydantic, pydantic.BaseModel, strict_name)


def _records(strict_name: bool = True) -> tuple[Any, Any]:
    return _declare(record, record.Record, strict_name)


GOOD: list[dict[str, Any]] = [
    {"name": "a"},
    {"name": "abc", "rank": "7", "score": 2, "tags": "x", "note": "n"},
    {"name": "abc", "parts": [{"span": [1, 2]}, {"span": (3, 4), "kind": "b"}], "tags": ["p", "q"]},
]
BAD: list[dict[str, Any]] = [
    {},
    {"name": ""},
    {"name": "ABC"},
    {"name": "a", "rank": 0},
    {"name": "a", "rank": 100},
    {"name": "a", "extra": 1},
    {"name": "a", "parts": [{"span": [1]}]},
    {"name": "a", "parts": [{"span": [1, 2], "kind": "c"}]},
    {"name": "a", "score": "high"},
]


def _error(model: Any, data: dict[str, Any]) -> str:
    with pytest.raises(pydantic.ValidationError) as info:
        model(**data)
    return str(info.value)


def _same(ours: Any, theirs: Any, data: dict[str, Any]) -> None:
    a, b = ours(**data), theirs(**data)
    assert a.model_dump() == b.model_dump() and a.model_dump(mode="json") == b.model_dump(mode="json")
    assert a.model_dump_json() == b.model_dump_json() and a.model_dump_json(indent=2) == b.model_dump_json(indent=2)
    assert repr(a) == repr(b) and str(a) == str(b) and [k for k, _ in a] == [k for k, _ in b]
    assert a.model_fields_set == b.model_fields_set and list(a.__dict__) == list(b.__dict__)
    assert type(a) is ours and all(type(p) is ours.model_fields["parts"].annotation.__args__[0] for p in a.parts)


def test_a_record_validates_dumps_and_refuses_as_its_pydantic_twin_declared_by_hand() -> None:
    (thing, _), (theirs, _) = _records(), _pydantic_models()
    for data in GOOD:
        _same(thing, theirs, data)
        assert thing.model_validate(data) == thing(**data) and thing.model_validate_json(theirs(**data).model_dump_json()) == thing(**data)
    for data in BAD:
        assert _error(thing, data) == _error(theirs, data), data
    assert thing.model_json_schema() == theirs.model_json_schema()
    assert list(thing.model_fields) == list(theirs.model_fields)


def test_the_comparison_tells_a_different_declaration_apart() -> None:
    """Negative control: a record whose name pattern is looser accepts and describes what the twin refuses."""
    loose, _ = _records(strict_name=False)
    theirs, _ = _pydantic_models()
    assert loose(name="ABC").name == "ABC"
    assert _error(theirs, {"name": "ABC"})
    assert loose.model_json_schema() != theirs.model_json_schema()


def test_construct_copy_compare_hash_freeze_pickle_as_pydantic() -> None:
    (thing, part), (theirs, their_part) = _records(), _pydantic_models()
    a = thing(name="abc", parts=[{"span": [1, 2]}])
    b = theirs(name="abc", parts=[{"span": [1, 2]}])
    built = thing.model_construct(name="abc", parts=[part.model_construct(span=(1, 2))])
    assert built == a and built.model_fields_set == {"name", "parts"} and list(built.__dict__) == list(a.__dict__)
    assert thing.model_construct(name="x").tags is not thing.model_construct(name="y").tags  # fresh factory values
    assert a != thing(name="abd") and a != b  # another class is never equal (pydantic: the same)
    assert hash(part(span=(1, 2))) == hash(part(span=[1, 2])) and hash(their_part(span=(1, 2))) == hash(their_part(span=[1, 2]))
    with pytest.raises(TypeError):
        hash(a)  # a list inside: unhashable, as pydantic's
    with pytest.raises(TypeError):
        hash(b)
    for model in (a, b):
        with pytest.raises(pydantic.ValidationError, match="frozen_instance|Instance is frozen"):
            model.name = "other"  # type: ignore[misc]
    for ours_copy, their_copy in ((a.model_copy(update={"rank": 5}), b.model_copy(update={"rank": 5})),
                                  (a.model_copy(deep=True), b.model_copy(deep=True))):
        assert ours_copy.model_dump() == their_copy.model_dump() and ours_copy.model_fields_set == their_copy.model_fields_set
    deep = copy.deepcopy(a)
    assert deep == a and deep.parts is not a.parts and copy.copy(a).parts is a.parts
    from chainret.trace.model import Anchor  # (a record declared at module level, so pickle can name its class)

    anchor = Anchor(unit_ref="r/a.md@v1#u1", relation_id="rel-1", source="r", document="a.md", version="v1",
                    representation="text/markdown", digest="sha256:00", span=(1, 2), quote="q")
    again = pickle.loads(pickle.dumps(anchor))
    assert again == anchor and again.model_fields_set == anchor.model_fields_set


def test_a_record_inside_a_pydantic_model_reads_and_dumps_as_a_nested_model() -> None:
    (thing, _), (theirs, _) = _records(), _pydantic_models()

    class Holder(pydantic.BaseModel):
        item: thing  # type: ignore[valid-type]
        items: list[thing] = []  # type: ignore[valid-type]

    class TheirHolder(pydantic.BaseModel):
        item: theirs  # type: ignore[valid-type]
        items: list[theirs] = []  # type: ignore[valid-type]

    data = {"item": GOOD[2], "items": [GOOD[1]]}
    ours, their = Holder.model_validate(data), TheirHolder.model_validate(data)
    assert type(ours.item) is thing and ours.model_dump_json() == their.model_dump_json()
    assert Holder.model_json_schema()["$defs"] == TheirHolder.model_json_schema()["$defs"]
    with pytest.raises(pydantic.ValidationError) as a:
        Holder.model_validate({"item": BAD[3]})
    with pytest.raises(pydantic.ValidationError) as b:
        TheirHolder.model_validate({"item": BAD[3]})
    assert a.value.errors(include_url=False) == b.value.errors(include_url=False)


def test_a_pydantic_decorator_in_a_records_subclass_is_applied() -> None:
    """A subclass written in a module that uses pydantic anyway (``chainret.authoring.header.HeaderEntity``) may use
    pydantic's own decorators and ``Field``: the twin applies them, and the plain dump leaves the class to pydantic."""
    thing, _ = _records()

    class Upper(thing):  # type: ignore[valid-type, misc]
        label: str = pydantic.Field("x", max_length=3)

        @pydantic.field_validator("name", mode="before")
        @classmethod
        def _lower(cls, v: Any) -> Any:
            return v.lower() if isinstance(v, str) else v

    assert Upper(name="ABC").name == "abc" and Upper.model_construct(name="a").label == "x"
    with pytest.raises(pydantic.ValidationError):
        Upper(name="a", label="long")
    assert plain_dump(Upper(name="abc")) is None and plain_dump(thing(name="abc")) == thing(name="abc").model_dump(mode="json")


ODD_TEXTS = ["plain", 'quote " and \\ backslash', "tab\t nl\n cr\r bs\b ff\f", "\x00\x01\x1f\x7f", "é ü ß 漢字 🙂",
             "\u2028 \u2029 </script>", "/slash/"]


def test_compact_json_is_pydantics_to_json_byte_for_byte() -> None:
    """The catalog's digest without pydantic (``compact_json``) hashes the very bytes pydantic-core writes, over
    strings that each escape rule touches. Negative control: ASCII escaping (``json``'s default) writes others."""
    import json

    thing, _ = _records()
    for text in ODD_TEXTS:
        model = thing.model_construct(name="a", tags=[text], note=text, parts=[])
        theirs = type(model).__pydantic_serializer__.to_json(model)
        assert compact_json(model) == theirs, text
    model = thing.model_construct(name="a", tags=["é"], parts=[])
    assert json.dumps(plain_dump(model), separators=(",", ":")).encode() != type(model).__pydantic_serializer__.to_json(model)
    assert compact_json(thing.model_construct(name="a", note="\ud800")) is None  # a lone surrogate: left to pydantic


def test_from_dump_rebuilds_the_validated_record() -> None:
    thing, _ = _records()
    for data in GOOD:
        validated = thing(**data)
        again = record.from_dump(thing, validated.model_dump(mode="json"))
        assert again == validated and list(again.__dict__) == list(validated.__dict__)
        assert all(type(p.span) is tuple for p in again.parts)
    # Negative control: the JSON dump alone (no rebuild) holds lists where the record holds tuples.
    dumped = thing(**GOOD[2]).model_dump(mode="json")
    assert thing.model_construct(**dumped) != thing(**GOOD[2])
