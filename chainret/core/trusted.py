"""``model_construct`` in one short Python path, for models the engine builds from values already checked.

A warm ask builds about sixteen trace and catalog models (a search's hits, each hop, the anchors read
from the store, the packet, the coverage, the trace). Their values are rows the store validated when it
was compiled (an entity, an anchor's source, version, span and quote) or values the engine computed
under static types that mypy checks at every call site (pydantic's mypy plugin types ``model_construct``
with the model's fields). Validating them again is cheap in a loop but not within an ask: each model
has its own validator in pydantic-core, and between two asks SQLite, the engine and the serialiser
push those out of the processor's caches, so a dozen models cost about a fifth of a compiled warm ask
(callgrind: 26% of its instructions under the models' ``__init__``). ``TrustedModel.model_construct``
is one small function for every model: a copy of the class's defaults updated with the given values,
the instance pydantic would build with its fields in declaration order. (pydantic's own
``model_construct`` walks every field in Python and is slower than validating.)

The check stays in the tests: with ``CHAINRET_CHECK_TRUSTED=1`` (set by the test suite's conftest, read
once at import) every ``model_construct`` of a ``TrustedModel`` also validates the same values and fails
on any difference (a value of another type, an unknown field, a broken constraint), so the golden
traces, the parity suites and the fuzzers check every construction the engine makes. Input from outside
never takes this path: requests, catalog files and stored traces are validated where they come in.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, Self

from pydantic import BaseModel, ConfigDict
from pydantic_core import PydanticUndefined

CHECK = os.environ.get("CHAINRET_CHECK_TRUSTED", "") not in ("", "0")

_new = object.__new__
# ``BaseModel``'s slots, set through their descriptors: what ``object.__setattr__`` ends up calling, without the
# lookup of each name on the class first (about a quarter of a small model's construction, in a loop).
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
Template = tuple[dict[str, Any], tuple[tuple[str, Callable[[], Any]], ...]]
# Per model class: every field in declaration order with its static default or None, and the fields whose default
# is a factory. Kept here by class, not on the class: reading ``cls.__dict__`` builds a mapping proxy per call.
_TEMPLATES: dict[type[Any], Template] = {}


class TrustedModel(BaseModel):
    """A model whose ``model_construct`` is short, and checked against validation under ``CHAINRET_CHECK_TRUSTED``."""

    model_config = ConfigDict(defer_build=True)  # (no fields of its own: nothing to build until a subclass validates)

    @classmethod
    def model_construct(cls, _fields_set: set[str] | None = None, **values: Any) -> Self:  # type: ignore[override]  # (pydantic's mypy plugin types it per model)
        template, factories = _TEMPLATES.get(cls) or _template(cls)
        data = template.copy()
        data.update(values)  # (a key of the template keeps its place: declaration order)
        for name, factory in factories:
            if name not in values:
                data[name] = factory()
        m = _new(cls)
        _set_dict(m, data)
        _set_fields_set(m, set(values) if _fields_set is None else _fields_set)
        _set_extra(m, None)
        _set_private(m, None)
        if CHECK:
            _check(cls, m, values)
        return m

    def __copy__(self) -> Self:
        """``BaseModel.__copy__`` (which ``model_copy`` calls) without the ``copy`` module's generic dispatch: the
        same shallow copy, for the models here, which have no extra fields and no private attributes."""
        if self.__pydantic_extra__ is not None or self.__pydantic_private__ is not None:
            return super().__copy__()
        # (model_construct's last steps, repeated: building the copy through it, with every field as a keyword,
        # cost about 2 µs of a warm ask at 1M, where the projection copies the trace: benchmarks/warm_ab.py)
        m = _new(type(self))
        _set_dict(m, self.__dict__.copy())
        _set_fields_set(m, self.__pydantic_fields_set__.copy())
        _set_extra(m, None)
        _set_private(m, None)
        return m


def _template(cls: type[TrustedModel]) -> Template:
    template: dict[str, Any] = {}
    factories: list[tuple[str, Callable[[], Any]]] = []
    for name, field in cls.model_fields.items():
        if field.default_factory is not None:
            factories.append((name, field.default_factory))  # type: ignore[arg-type]  # (ours take no argument)
            template[name] = None
        elif field.default is PydanticUndefined:
            template[name] = None  # required: every call site passes it (mypy checks; so does CHAINRET_CHECK_TRUSTED)
        else:
            template[name] = field.default
    spec = _TEMPLATES[cls] = (template, tuple(factories))
    return spec


def _check(cls: type[TrustedModel], built: TrustedModel, values: dict[str, Any]) -> None:
    """Fail unless validating ``values`` gives the same instance, value for value and type for type."""
    checked = cls(**values)
    a, b = built.__dict__, checked.__dict__
    if list(a) != list(b):
        raise AssertionError(f"{cls.__name__}.model_construct: fields {list(a)} differ from the validated {list(b)}")
    for name, value in b.items():
        if type(a[name]) is not type(value) or a[name] != value:
            raise AssertionError(
                f"{cls.__name__}.model_construct: {name}={a[name]!r} ({type(a[name]).__name__}) but validation gives "
                f"{value!r} ({type(value).__name__})"
            )
