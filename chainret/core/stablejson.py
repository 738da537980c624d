"""Stable JSON of a model: keys sorted, floats rounded to 6 places, an indent of two (``Trace.to_json``).

The text is ``json.dumps(round_floats(model.model_dump(mode="json")), sort_keys=True, indent=2,
ensure_ascii=False)``, byte for byte. The standard library writes an indented document in pure Python,
and a walk that rounds every float visits every value, together 0.27 ms for a two-hop trace, as long as
the ask itself (issue 24). So:

* the floats are rounded where the model's annotations say one can be (``float_plan``: read from the
  model classes once, not written down here, so a float field added to a trace model is rounded too),
  with a whole walk only inside free-form (``Any``) data;
* orjson writes the document, sorted and indented, in C (0.07-0.10 ms in all, where it took 0.29).

orjson writes every value as ``json.dumps`` does except a float below 1e-4 (``0.00005`` where ``json``
writes ``5e-05``), a non-finite float (``null``, not ``NaN``), an integer beyond 64 bits, a non-string
key and a lone surrogate. The rounding notes the first two and orjson refuses the others; such a
document is written by ``stable_json``, this module's own encoder of ``json.dumps``' rules. So is a
process's first document (``_written``): loading orjson costs 7.2M instructions (valgrind), more than
encoding one trace, and a CLI ask writes one. ``tests/test_trace_json.py`` holds every path to
``json.dumps``' bytes.
"""

from __future__ import annotations

import types
import typing
from json.encoder import encode_basestring as _encode_str
from typing import Any

from pydantic import BaseModel

# A plan says where a dumped value can hold a float: "f" (a float, or None), "any" (free-form data: walk
# it all), ("list" | "dict", plan of the items), ("model", {field name: plan}); no entry, no float.
Plan = str | tuple[str, Any]
_plans: dict[type[BaseModel], dict[str, Plan]] = {}
_written = 0  # documents this process has written (see the module docstring)
_INF = float("inf")
_SCALARS = frozenset({str, int, bool, type(None)})  # what a dump holds that has no float inside


def float_plan(model: type[BaseModel]) -> dict[str, Plan]:
    """Field name -> plan for the fields of ``model`` that can hold a float (memoised per class)."""
    hit = _plans.get(model)
    if hit is None:
        hit = _plans[model] = {}  # (placed first, so a model that held itself would end; none does)
        for name, field in model.model_fields.items():
            plan = _plan(field.annotation)
            if plan is not None:
                hit[name] = plan
    return hit


def _plan(tp: Any) -> Plan | None:
    if tp is float:
        return "f"
    if isinstance(tp, type):
        if issubclass(tp, BaseModel):
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


def dumps(model: BaseModel) -> str:
    """``model``'s stable JSON (see the module docstring)."""
    global _written
    data = model.model_dump(mode="json")
    _written += 1
    if _written > 1:
        rounding = _Rounding()
        data = rounding.apply(("model", float_plan(type(model))), data)
        if not rounding.plain:
            import orjson

            try:
                return orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode()
            except TypeError:  # orjson.JSONEncodeError: a big integer, a non-string key, a lone surrogate
                pass
    return stable_json(data)


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
