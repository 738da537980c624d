"""Stable JSON of a model: keys sorted, floats rounded to 6 places, an indent of two (``Trace.to_json``).

The text is ``json.dumps(round_floats(model.model_dump(mode="json")), sort_keys=True, indent=2,
ensure_ascii=False)``, byte for byte. The standard library writes an indented document in pure Python,
and a walk that rounds every float visits every value, together 0.27 ms for a two-hop trace, as long as
the ask itself (issue 24). So:

* the floats are rounded where the model's annotations say one can be (``float_plan``: read from the
  model classes once, not written down here, so a float field added to a trace model is rounded too),
  with a whole walk only inside free-form (``Any``) data;
* orjson writes the document, sorted and indented, in C (0.07-0.10 ms in all, where it took 0.29).
* after a process's first documents orjson reads the models themselves, not a ``model_dump`` of them
  (``direct_json``; a model or value it does not know goes through ``model_dump`` as before).

orjson writes every value as ``json.dumps`` does except a float below 1e-4 (``0.00005`` where ``json``
writes ``5e-05``), a non-finite float (``null``, not ``NaN``), an integer beyond 64 bits, a non-string
key and a lone surrogate. The rounding notes the first two and orjson refuses the others; such a
document is written by ``stable_json``, this module's own encoder of ``json.dumps``' rules. So are a
process's first two documents (``_written``): loading orjson costs 7.2M instructions (valgrind), more than
encoding one trace, and a CLI ask writes one, or two with ``--json`` (the answer, then the trace file).
``tests/test_trace_json.py`` holds every path to ``json.dumps``' bytes.

Those first documents are also dumped without pydantic's serializer where the model's is not built yet
(``plain_dump``): the trace models are built with ``defer_build``, and building ``Trace``'s serializer (with
every model it holds) cost a cold ``chainret ask`` about 8 ms, where walking one trace's fields takes a few
hundredths of that. A later document, or a model whose serializer is built, goes through ``model_dump``,
which is faster per document. The walk knows only what the trace models use (plain values, lists, tuples,
string-keyed dicts, enums, nested models whose one serializer wraps the field dump); anything else (a
date, a set, a non-finite float, an alias, a field serializer) is left to ``model_dump``.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from enum import Enum
from json.encoder import encode_basestring as _encode_str
from typing import TYPE_CHECKING, Any

from chainret.core.record import Record, field_types, is_model

if TYPE_CHECKING:
    from pydantic import BaseModel

# A plan says where a dumped value can hold a float: "f" (a float, or None), "any" (free-form data: walk
# it all), ("list" | "dict", plan of the items), ("model", {field name: plan}); no entry, no float.
Plan = str | tuple[str, Any]
_plans: dict[type[BaseModel | Record], dict[str, Plan]] = {}
_written = 0  # documents this process has written (see the module docstring)
_FIRST = 2  # ... of which the first ones are written by ``stable_json`` and dumped by ``plain_dump``
_INF = float("inf")
_SCALARS = frozenset({str, int, bool, type(None)})  # what a dump holds that has no float inside
_STR = frozenset({str})


def float_plan(model: type[BaseModel | Record]) -> dict[str, Plan]:
    """Field name -> plan for the fields of ``model`` that can hold a float (memoised per class)."""
    hit = _plans.get(model)
    if hit is None:
        hit = _plans[model] = {}  # (placed first, so a model that held itself would end; none does)
        types = field_types(model) if issubclass(model, Record) else {n: f.annotation for n, f in model.model_fields.items()}
        for name, annotation in types.items():  # (a record's own: reading its model_fields would build its pydantic half)
            plan = _plan(annotation)
            if plan is not None:
                hit[name] = plan
    return hit


def _plan(tp: Any) -> Plan | None:
    if tp is float:
        return "f"
    if isinstance(tp, type):
        if is_model(tp):
            fields = float_plan(tp)
            return ("model", fields) if fields else None
        if issubclass(tp, (str, int, bool, type(None))):  # (an enum of strings: a string)
            return None
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Literal:
        return None
    if origin is typing.Annotated:
        return _plan(args[0])
    if origin in (typing.Union, types.UnionType):
        plans = [p for p in (_plan(a) for a in args) if p is not None]
        return plans[0] if len(plans) == 1 else ("any" if plans else None)
    if origin in (list, tuple) and args:
        items = [p for p in (_plan(a) for a in args if a is not Ellipsis) if p is not None]
        return None if not items else ("list", items[0]) if len(items) == 1 else "any"
    if origin is dict and len(args) == 2:
        item = _plan(args[1])
        return None if item is None else ("dict", item)
    return "any"  # Any, or a type this plan does not know: walk whatever it holds


class _Rounding:
    """One document's rounding: ``plain`` once a float orjson would write otherwise than ``json`` is seen."""

    __slots__ = ("plain",)

    def __init__(self) -> None:
        self.plain = False

    def number(self, value: Any) -> Any:
        if isinstance(value, float):
            value = round(value, 6)
            if not -_INF < value < _INF or (value and -1e-4 < value < 1e-4):
                self.plain = True
        return value

    def walk(self, value: Any) -> Any:
        if isinstance(value, float):
            return self.number(value)
        if isinstance(value, dict):
            return {k: self.walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.walk(v) for v in value]
        return value

    def free(self, value: Any) -> Any:
        """Free-form ``value`` with its floats rounded: the same object where no float changes (it is a model's,
        read, not copied), a copy of each container that holds one that does. Refuses (``_NotPlain``) what is not a
        plain value, a list, tuple, string-keyed dict or model, which pydantic may write otherwise than orjson."""
        kind = type(value)
        if kind is str or kind is int or kind is bool or value is None:
            return value
        if kind is float:
            rounded = self.number(value)
            return value if rounded == value else rounded
        if kind is dict or kind is list or kind is tuple:
            if kind is dict and not set(map(type, value)) <= _STR:
                raise _NotPlain
            if set(map(type, value.values() if kind is dict else value)) <= _SCALARS:  # (checked in C: most of them)
                return value
            out: Any = None
            for key, item in value.items() if kind is dict else enumerate(value):
                if type(item) in _SCALARS:
                    continue
                new = self.free(item)
                if new is not item:
                    if out is None:
                        out = dict(value) if kind is dict else list(value)
                    out[key] = new
            return value if out is None else out
        if is_model(value):
            return value
        if isinstance(value, Enum):
            return self.free(value.value)
        raise _NotPlain

    def walk_dumped(self, value: Any) -> Any:
        """:meth:`walk` over a fresh ``model_dump`` (plain dicts, lists and scalars that nobody else holds):
        floats are rounded in place, so a free-form field (a trace's ``meta``, mostly strings: the log's
        proofs) is visited without being copied. Any other container type goes to :meth:`walk`."""
        kind = type(value)
        if kind is not dict and kind is not list:
            return self.walk(value)
        for key, item in value.items() if kind is dict else enumerate(value):  # (a value replaced, no key added)
            inner = type(item)
            if inner is float:
                value[key] = self.number(item)
            elif inner is dict or inner is list:
                self.walk_dumped(item)
            elif inner not in _SCALARS:
                value[key] = self.walk(item)
        return value

    def apply(self, plan: Plan, value: Any) -> Any:
        if value is None:
            return None
        if plan == "f":
            return self.number(value)
        if isinstance(plan, str) or not isinstance(value, (list, dict)):  # "any"
            return self.walk_dumped(value)
        kind, inner = plan
        if kind == "list" and isinstance(value, list):
            return [self.apply(inner, v) for v in value]
        if kind == "dict" and isinstance(value, dict):
            return {k: self.apply(inner, v) for k, v in value.items()}
        if kind == "model" and isinstance(value, dict):
            for name, p in inner.items():
                if name in value:  # (a model's own serializer may leave a field out)
                    value[name] = self.apply(p, value[name])
            return value
        return self.walk(value)


def dumps(model: BaseModel | Record) -> str:
    """``model``'s stable JSON (see the module docstring)."""
    global _written
    _written += 1
    if _written > _FIRST:
        text = direct_json(model)
        if text is not None:
            return text
    data = plain_dump(model) if _written <= _FIRST and not type(model).__pydantic_complete__ else None
    if data is None:
        data = model.model_dump(mode="json")
    if _written > _FIRST:
        rounding = _Rounding()
        data = rounding.apply(("model", float_plan(type(model))), data)
        if not rounding.plain:
            import orjson

            try:
                return orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode()
            except TypeError:  # orjson.JSONEncodeError: a big integer, a non-string key, a lone surrogate
                pass
    return stable_json(data)


class _NotPlain(Exception):
    """A value ``plain_dump`` (or ``direct_json``) leaves to pydantic's serializer."""


# orjson hands these to ``default`` (which declines them) where it would write them its own way: a date, a
# dataclass, whose text pydantic writes otherwise.
_DIRECT = 0


def direct_json(model: BaseModel | Record) -> str | None:
    """``model``'s stable JSON written by orjson from the models themselves, without ``model_dump``, or None where
    this walk does not know how pydantic would write a value (then ``dumps`` dumps the model first).

    Why: ``model_dump`` builds a dict of every model a trace holds and calls each model's serializer in Python,
    then the dump is walked for its floats and orjson walks it again: 0.33 ms of a 0.34 ms ``to_json`` for a
    two-hop set trace with its log proofs (the peers page's standard world, issue 47). Here orjson walks the
    trace once, in C, and asks ``default`` for each model's fields: the model's own dict where no field can hold
    a float and no float changes when rounded and no serializer of its own applies (most of a trace's models), else
    a copy with its floats rounded (``_Rounding.free`` of the fields its float plan names; nested models left to
    their own call) through its wrap serializer. That serializer is handed the model's field values, not their
    dump: the trace models' serializers test a field's presence or emptiness only, which the two share (``tests/test_trace_json.py`` holds every
    trace's text to ``json.dumps``' of ``model_dump``). Free-form data is walked, copied only where a float
    changes, and refused past plain values."""
    import orjson

    global _DIRECT
    if not _DIRECT:
        _DIRECT = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
    rounding = _Rounding()

    def fields(obj: Any) -> Any:
        cls = type(obj)
        spec = _direct.get(cls) or _direct_spec(cls)
        values = obj.__dict__
        if spec is None or len(values) != spec[0]:
            raise TypeError  # (not a model, or one pydantic dumps otherwise than its fields' values: pydantic's to write)
        _, walked, wrap = spec
        changed = None
        for name in walked:
            value = values[name]
            new = free(value)
            if new is not value:
                changed = {} if changed is None else changed
                changed[name] = new
        if wrap is None:
            return values if changed is None else values | changed  # (orjson only reads the model's own dict)
        data = values | changed if changed is not None else values.copy()
        return wrap(obj, lambda _: data)

    free = rounding.free
    try:
        text = orjson.dumps(model, default=fields, option=_DIRECT)
    except TypeError:  # orjson.JSONEncodeError (what ``fields`` raised inside it too): a value left to pydantic
        return None
    return None if rounding.plain else text.decode()


# Per model class: its field names and the wrap serializer to apply to their dump (None: no serializer), or
# None where the class dumps otherwise than its fields' values (``plain_dump`` then declines it).
_Spec = tuple[tuple[str, ...], Callable[[Any, Callable[[Any], Any]], Any] | None] | None
_specs: dict[type[BaseModel | Record], _Spec] = {}


def plain_dump(model: BaseModel | Record) -> dict[str, Any] | None:
    """``model.model_dump(mode="json")`` without building the model's serializer, or None where this walk
    does not know how pydantic would write a value (the module docstring says which; the caller then asks
    pydantic). ``tests/test_trace_json.py`` holds it equal to ``model_dump`` over the golden traces and
    generated ones."""
    try:
        return _plain_model(model)
    except _NotPlain:
        return None


# Per class: its field count, the fields ``direct_json`` walks for floats (those its float plan names, less the ones
# that hold only models, which orjson hands to ``fields`` in their turn) and its wrap serializer; None where
# ``_spec`` declines the class, or for what is no model.
_direct: dict[type, tuple[int, tuple[str, ...], Callable[[Any, Callable[[Any], Any]], Any] | None] | None] = {}


def _direct_spec(cls: type) -> tuple[int, tuple[str, ...], Callable[[Any, Callable[[Any], Any]], Any] | None] | None:
    spec = _spec(cls) if isinstance(cls, type) and is_model(cls) else None
    if spec is None:
        _direct[cls] = None
        return None

    def models_only(plan: Plan) -> bool:
        return isinstance(plan, tuple) and (plan[0] == "model" or (plan[0] in ("list", "dict") and models_only(plan[1])))

    names, wrap = spec
    walked = tuple(name for name, plan in float_plan(cls).items() if not models_only(plan))  # type: ignore[arg-type]
    hit = _direct[cls] = (len(names), walked, wrap)
    return hit


def _spec(cls: type[BaseModel | Record]) -> _Spec:
    hit = _specs.get(cls, False)
    if hit is not False:
        return hit  # type: ignore[return-value]
    if issubclass(cls, Record):
        hit = _specs[cls] = _record_spec(cls)
        return hit
    import inspect  # (a BaseModel's serializer signature; a record's needs none: off a one-ask process's path)

    decorators = cls.__pydantic_decorators__
    fields = cls.model_fields
    spec: _Spec = None
    plain_fields = all(f.exclude is None and f.alias is None and f.serialization_alias is None for f in fields.values())
    if plain_fields and not decorators.field_serializers and not decorators.computed_fields \
            and cls.model_config.get("extra") != "allow" and len(decorators.model_serializers) <= 1:
        wrap = None
        for d in decorators.model_serializers.values():
            if d.info.mode == "wrap" and d.info.when_used == "always" and len(inspect.signature(d.func).parameters) == 2:
                wrap = d.func
            else:
                break
        else:
            spec = (tuple(fields), wrap)
    _specs[cls] = spec
    return spec


def _record_spec(cls: type[Record]) -> _Spec:
    """A record's spec from its own declarations (without building its pydantic half): None where a field is
    declared with an alias or excluded, or extra fields are allowed."""
    if cls.model_config.get("extra") == "allow" or not cls.__record_plain__:
        return None
    for spec in cls.__record_specs__.values():
        kwargs = getattr(spec, "kwargs", {})
        if kwargs.get("exclude") is not None or kwargs.get("alias") is not None \
                or kwargs.get("serialization_alias") is not None:
            return None
    return cls.__record_fields__, cls.__record_serializer__


def _plain_model(model: BaseModel | Record) -> Any:
    spec = _spec(type(model))
    if spec is None:
        raise _NotPlain
    names, wrap = spec
    values = model.__dict__
    data = {name: _plain(values[name]) for name in names}
    return wrap(model, lambda _: data) if wrap is not None else data


def _plain(value: Any) -> Any:
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        if not -_INF < value < _INF:  # (NaN too) pydantic's rules for those
            raise _NotPlain
        return value
    if kind is list or kind is tuple:
        return [_plain(v) for v in value]
    if kind is dict:
        if not all(type(k) is str for k in value):
            raise _NotPlain
        return {k: _plain(v) for k, v in value.items()}
    if is_model(value):
        return _plain_model(value)
    if isinstance(value, Enum):
        return _plain(value.value)
    raise _NotPlain


def compact_json(model: BaseModel | Record) -> bytes | None:
    """``model.__pydantic_serializer__.to_json(model)`` (compact, UTF-8, fields in declaration order), byte for
    byte, without pydantic: ``plain_dump`` written by ``json.dumps`` with no spaces and no ASCII escaping, whose
    string escapes are pydantic-core's (``\\n``, ``\\t``, ``\\u001f``, ...; ``tests/test_record.py`` holds the
    two equal). None where ``plain_dump`` declines or a string holds a lone surrogate: the caller then asks pydantic.
    Only for models without float fields (the two write some floats otherwise, ``1e16``): a catalog's digest in a
    process that has not built the catalog's serializer (a one-ask process reading a remembered catalog,
    ``chainret.catalog.models``)."""
    import json

    data = plain_dump(model)
    if data is None:
        return None
    try:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError:
        return None


def round_floats(value: Any) -> Any:
    """Every float inside ``value`` rounded to 6 places (in lists and dicts; not inside tuples, as before)."""
    return _Rounding().walk(value)


def _float_text(value: float) -> str:
    """``json``'s float text (``allow_nan``: NaN and the infinities as JavaScript names them)."""
    if value != value:
        return "NaN"
    if value == _INF:
        return "Infinity"
    if value == -_INF:
        return "-Infinity"
    return float.__repr__(value)


def stable_json(data: object) -> str:
    """``json.dumps(round_floats(data), sort_keys=True, indent=2, ensure_ascii=False)``, byte for byte.

    Same rules in the same order as ``json.encoder._make_iterencode``: strings through the standard
    library's (C) string encoder, ``None``/``True``/``False``, ints by ``int.__repr__``, floats rounded to
    6 places (inside lists and dicts, not inside tuples) then ``float.__repr__``, lists and
    tuples as arrays, dicts with their keys sorted (str, int, float, bool and None keys as ``json`` turns
    them into strings); anything else is the ``TypeError`` ``json`` raises.
    """
    out: list[str] = []
    _encode(data, out, "\n", True)
    return "".join(out)


def _key_text(key: object) -> str:
    if isinstance(key, str):
        return _encode_str(key)
    if isinstance(key, float):
        return _encode_str(_float_text(key))
    if key is True:
        return '"true"'
    if key is False:
        return '"false"'
    if key is None:
        return '"null"'
    if isinstance(key, int):
        return _encode_str(int.__repr__(key))
    raise TypeError(f"keys must be str, int, float, bool or None, not {key.__class__.__name__}")


def _encode(o: object, out: list[str], nl: str, rnd: bool) -> None:
    if isinstance(o, str):
        out.append(_encode_str(o))
    elif o is None:
        out.append("null")
    elif o is True:
        out.append("true")
    elif o is False:
        out.append("false")
    elif isinstance(o, int):
        out.append(int.__repr__(o))
    elif isinstance(o, float):
        out.append(_float_text(round(o, 6) if rnd else o))
    elif isinstance(o, (list, tuple)):
        if not o:
            out.append("[]")
            return
        inner = nl + "  "
        sep = "[" + inner
        keep = rnd and isinstance(o, list)
        for v in o:
            out.append(sep)
            sep = "," + inner
            _encode(v, out, inner, keep)
        out.append(nl + "]")
    elif isinstance(o, dict):
        if not o:
            out.append("{}")
            return
        inner = nl + "  "
        sep = "{" + inner
        for k, v in sorted(o.items()):
            out.append(sep)
            sep = "," + inner
            out.append(_key_text(k))
            out.append(": ")
            _encode(v, out, inner, rnd)
        out.append(nl + "}")
    else:
        raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")
