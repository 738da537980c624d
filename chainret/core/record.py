"""``Record``: a pydantic model whose pydantic half is built the first time something needs it.

Why not ``pydantic.BaseModel`` itself: importing pydantic costs a cold ``chainret ask`` about 0.09 s of CPU and
building the catalog and trace model classes about 0.06 s more (docs/results/cold_cli.md), three fifths of the
whole ask, while a one-ask process validates nothing: a compiled store's rows, a remembered catalog parse and the
engine's own records are built unchecked (``model_construct``), and its one or two JSON documents are written by
``chainret.core.stablejson`` without pydantic's serializer. So the models the ask path builds are declared with
the names pydantic uses (``Field``, ``field_validator``, ``model_validator``, ``model_serializer``, ``ConfigDict``)
imported from here, which only record what was declared; the class is a plain one with pydantic's instance layout
(``__dict__``, ``__pydantic_fields_set__``, ``__pydantic_extra__``, ``__pydantic_private__``).

The first validation, dump, JSON schema or ``model_fields`` read builds a pydantic model of the same name, fields,
config and decorators (the "twin", ``_twin``) and takes its core schema with the twin's class replaced by this
one: pydantic-core then validates into, and serialises from, instances of this class, with pydantic's very
errors (same title, locations and messages) and output. A record inside a real pydantic model (a server's request
holding a ``Budget``) is read through ``__get_pydantic_core_schema__``, the same schema. ``tests/test_record.py``
holds each record's behaviour to a ``BaseModel`` declared the same way.

What a record offers of ``BaseModel``: ``__init__`` (validating), ``model_construct``, ``model_validate``,
``model_validate_json``, ``model_dump``, ``model_dump_json``, ``model_copy``, ``model_fields``,
``model_fields_set``, ``model_json_schema``, ``model_config``, equality, the frozen models' hash and refusal of
assignment, ``repr``, iteration over ``(name, value)``, copy, deepcopy and pickle. It is not a ``BaseModel``
subclass: ``isinstance(x, BaseModel)`` is False for a record (``is_model`` answers for both).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, dataclass_transform

if TYPE_CHECKING:
    from typing import Self

_MISSING: Any = object()
_new = object.__new__
_setattr = object.__setattr__


class FieldSpec:
    """What ``Field(...)`` declared: a default or a default factory, and the constraints the twin passes to
    ``pydantic.Field``."""

    __slots__ = ("default", "default_factory", "kwargs")

    def __init__(self, default: Any, default_factory: Callable[[], Any] | None, kwargs: dict[str, Any]) -> None:
        self.default = default
        self.default_factory = default_factory
        self.kwargs = kwargs


def Field(default: Any = _MISSING, *, default_factory: Callable[[], Any] | None = None, **kwargs: Any) -> Any:  # noqa: N802 - pydantic's name
    """``pydantic.Field``'s declaration, kept until the twin is built (typed ``Any``, as pydantic types it)."""
    return FieldSpec(default, default_factory, kwargs)


def ConfigDict(**kwargs: Any) -> dict[str, Any]:  # noqa: N802 - pydantic's name
    """``pydantic.ConfigDict``: the model's configuration, handed to the twin as written."""
    return dict(kwargs)


# A decorated function keeps its declaration on itself; the twin applies pydantic's decorator to it.
_DECLARED = "__record_decorator__"


def _declare(kind: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Callable[[Any], Any]:
    def mark(func: Any) -> Any:
        target = func.__func__ if isinstance(func, (classmethod, staticmethod)) else func
        setattr(target, _DECLARED, (kind, args, kwargs))
        return func

    return mark


def field_validator(*fields: str, **kwargs: Any) -> Callable[[Any], Any]:
    """``pydantic.field_validator``, applied by the twin."""
    return _declare("field_validator", fields, kwargs)


def model_validator(**kwargs: Any) -> Callable[[Any], Any]:
    """``pydantic.model_validator``, applied by the twin."""
    return _declare("model_validator", (), kwargs)


def model_serializer(*args: Any, **kwargs: Any) -> Callable[[Any], Any]:
    """``pydantic.model_serializer(mode="wrap")``: the one form the records use (``chainret.core.stablejson`` applies
    the same function where it dumps a record without pydantic)."""
    if kwargs.get("mode") != "wrap" or args:
        raise TypeError("a record declares only model_serializer(mode='wrap')")
    return _declare("model_serializer", (), kwargs)


class _Built:
    """A class attribute pydantic keeps on a model (its validator, serializer, core schema, fields), built with the
    twin on first read and then stored on the class itself."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type[Record]) -> Any:
        _build(owner)
        return owner.__dict__[self.name]


_BUILT = ("__pydantic_validator__", "__pydantic_serializer__", "__pydantic_core_schema__", "__record_twin__")


@dataclass_transform(kw_only_default=True, field_specifiers=(Field,))
class Record:
    """The base of the records (see the module docstring). Subclasses declare fields as a ``BaseModel`` does.
    (``dataclass_transform``: mypy types each record's ``__init__`` from its fields, as pydantic's plugin did.)"""

    __slots__ = ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")

    model_config: ClassVar[dict[str, Any]] = {}
    __pydantic_root_model__: ClassVar[bool] = False
    __pydantic_complete__: ClassVar[bool] = False  # True once the twin is built (``chainret.core.stablejson`` reads it)
    #: Field names in declaration order, their static defaults (None for a required field or a factory's), and the
    #: fields whose default is a factory: what ``model_construct`` fills without pydantic.
    __record_fields__: ClassVar[tuple[str, ...]] = ()
    __record_template__: ClassVar[dict[str, Any]] = {}
    __record_factories__: ClassVar[tuple[tuple[str, Callable[[], Any]], ...]] = ()
    __record_specs__: ClassVar[dict[str, Any]] = {}  # name -> FieldSpec or the plain default, as declared
    __record_annotations__: ClassVar[dict[str, Any]] = {}
    __record_decorators__: ClassVar[dict[str, Any]] = {}  # attribute name -> the class attribute declared
    __record_serializer__: ClassVar[Callable[[Any, Callable[[Any], Any]], Any] | None] = None
    __record_plain__: ClassVar[bool] = True  # declared with this module's names only (no pydantic object in the body)

    __pydantic_validator__: ClassVar[Any] = _Built("__pydantic_validator__")
    __pydantic_serializer__: ClassVar[Any] = _Built("__pydantic_serializer__")
    __pydantic_core_schema__: ClassVar[Any] = _Built("__pydantic_core_schema__")
    __record_twin__: ClassVar[Any] = _Built("__record_twin__")
    model_fields: ClassVar[dict[str, Any]]  # (``_ModelFields``, set below: the twin's)
    if TYPE_CHECKING:  # (the slots above, as mypy should see them)
        __pydantic_fields_set__: set[str]
        __pydantic_extra__: dict[str, Any] | None
        __pydantic_private__: dict[str, Any] | None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        specs: dict[str, Any] = {}
        annotations: dict[str, Any] = {}
        decorators: dict[str, Any] = {}
        config: dict[str, Any] = {}
        for klass in reversed(cls.__mro__):
            if not (isinstance(klass, type) and issubclass(klass, Record)) or klass is Record:
                continue
            own = klass.__dict__
            config.update(own.get("model_config", {}))
            for name, annotation in own.get("__annotations__", {}).items():
                if name.startswith("_") or _is_classvar(annotation):
                    continue
                annotations[name] = annotation
                value = own.get(name, _MISSING) if klass is cls else klass.__record_specs__.get(name, _MISSING)
                specs[name] = value
            for name, value in own.items():
                if _declared(value) is not None:
                    decorators[name] = value
        for name in annotations:  # pydantic takes the field declarations off the class
            if name in cls.__dict__:
                delattr(cls, name)
        cls.model_config = config
        cls.__record_specs__ = specs
        cls.__record_annotations__ = annotations
        cls.__record_decorators__ = decorators
        cls.__record_fields__ = tuple(annotations)
        template: dict[str, Any] = {}
        factories: list[tuple[str, Callable[[], Any]]] = []
        for name, spec in specs.items():
            if isinstance(spec, FieldSpec) or _is_field_info(spec):
                default, factory = spec.default, spec.default_factory
                if type(default).__name__ == "PydanticUndefinedType":
                    default = _MISSING
            else:
                default, factory = spec, None
            if factory is not None:
                factories.append((name, factory))
            template[name] = None if default is _MISSING else default
        cls.__record_template__ = template
        cls.__record_factories__ = tuple(factories)
        wraps = [getattr(cls, n) for n, v in decorators.items() if _declared(v)[0] == "model_serializer"]
        cls.__record_serializer__ = wraps[-1] if wraps else None
        cls.__record_plain__ = all(_declared(v)[0] != "pydantic" for v in decorators.values()) \
            and not any(_is_field_info(v) for v in specs.values())
        cls.__pydantic_complete__ = False
        for name in _BUILT:  # (each class builds its own: a base's built one must not answer for a subclass)
            setattr(cls, name, _Built(name))

    # -- building without pydantic ------------------------------------------------------------------------------
    @classmethod
    def model_construct(cls, _fields_set: set[str] | None = None, **values: Any) -> Self:
        """An instance of these values, unchecked: a copy of the defaults updated with the values, fields in
        declaration order (pydantic's ``model_construct``, as one short path; ``chainret.core.trusted`` checks it
        through ``check_hook`` where the test suite asks for the check)."""
        data = cls.__record_template__.copy()
        data.update(values)  # (a key of the template keeps its place: declaration order)
        for name, factory in cls.__record_factories__:
            if name not in values:
                data[name] = factory()
        m = _new(cls)
        _set_dict(m, data)
        _set_fields_set(m, set(values) if _fields_set is None else _fields_set)
        _set_extra(m, None)
        _set_private(m, None)
        if check_hook is not None:
            check_hook(cls, m, values)
        return m

    # -- pydantic's API, through the twin's schema -------------------------------------------------------------
    def __init__(self, /, **data: Any) -> None:
        type(self).__pydantic_validator__.validate_python(data, self_instance=self)

    @classmethod
    def model_validate(cls, obj: Any, *, strict: bool | None = None, from_attributes: bool | None = None,
                       context: Any | None = None) -> Self:
        return cls.__pydantic_validator__.validate_python(obj, strict=strict, from_attributes=from_attributes,
                                                          context=context)  # type: ignore[no-any-return]

    @classmethod
    def model_validate_json(cls, json_data: str | bytes | bytearray, *, strict: bool | None = None,
                            context: Any | None = None) -> Self:
        return cls.__pydantic_validator__.validate_json(json_data, strict=strict, context=context)  # type: ignore[no-any-return]

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        """``BaseModel.model_dump``: the same keyword arguments, pydantic-core's serializer."""
        return type(self).__pydantic_serializer__.to_python(self, **kwargs)  # type: ignore[no-any-return]

    def model_dump_json(self, **kwargs: Any) -> str:
        return type(self).__pydantic_serializer__.to_json(self, **kwargs).decode()  # type: ignore[no-any-return]

    @classmethod
    def model_json_schema(cls, by_alias: bool = True, ref_template: str = "#/$defs/{model}",
                          mode: str = "validation") -> dict[str, Any]:
        from pydantic.json_schema import GenerateJsonSchema

        return GenerateJsonSchema(by_alias=by_alias, ref_template=ref_template).generate(
            cls.__pydantic_core_schema__, mode=mode)  # type: ignore[arg-type]

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        return cls.__pydantic_core_schema__

    @property
    def model_fields_set(self) -> set[str]:
        return self.__pydantic_fields_set__

    @property
    def model_extra(self) -> dict[str, Any] | None:
        return self.__pydantic_extra__

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """``BaseModel.model_copy``: a shallow (or deep) copy, ``update`` set without validation."""
        copied = self.__deepcopy__() if deep else self.__copy__()
        if update:
            copied.__dict__.update(update)
            copied.__pydantic_fields_set__.update(update)
        return copied

    def __copy__(self) -> Self:
        """``BaseModel.__copy__``: a shallow copy (the projection copies a warm ask's trace: the slots are set
        through their descriptors, as in ``model_construct``)."""
        m = _new(type(self))
        _set_dict(m, self.__dict__.copy())
        _set_fields_set(m, self.__pydantic_fields_set__.copy())
        extra, private = self.__pydantic_extra__, self.__pydantic_private__
        _set_extra(m, None if extra is None else extra.copy())
        _set_private(m, None if private is None else private.copy())
        return m

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Self:
        from copy import deepcopy

        m = _new(type(self))
        _setattr(m, "__dict__", deepcopy(self.__dict__, memo))
        _setattr(m, "__pydantic_fields_set__", self.__pydantic_fields_set__.copy())
        _setattr(m, "__pydantic_extra__", deepcopy(self.__pydantic_extra__, memo))
        _setattr(m, "__pydantic_private__", deepcopy(self.__pydantic_private__, memo))
        return m

    def __getstate__(self) -> dict[str, Any]:
        return {"__dict__": self.__dict__, "__pydantic_fields_set__": self.__pydantic_fields_set__,
                "__pydantic_extra__": self.__pydantic_extra__, "__pydantic_private__": self.__pydantic_private__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            _setattr(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        if self.model_config.get("frozen"):
            from pydantic_core import ValidationError

            raise ValidationError.from_exception_data(
                type(self).__name__, [{"type": "frozen_instance", "loc": (name,), "input": value}])
        if name not in self.__record_template__:
            raise ValueError(f'"{type(self).__name__}" object has no field "{name}"')
        self.__dict__[name] = value
        self.__pydantic_fields_set__.add(name)

    def __delattr__(self, name: str) -> None:
        if self.model_config.get("frozen"):
            raise TypeError(f"{type(self).__name__} is frozen")
        object.__delattr__(self, name)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        if self.__dict__.keys() == other.__dict__.keys() == self.__record_template__.keys():
            same = self.__dict__ == other.__dict__
        else:  # (a cached_property keeps its value in the instance dict: only the fields count)
            mine, theirs = self.__dict__, other.__dict__
            same = all(mine.get(n, _MISSING) == theirs.get(n, _MISSING) for n in self.__record_fields__)
        return same and self.__pydantic_private__ == other.__pydantic_private__ \
            and self.__pydantic_extra__ == other.__pydantic_extra__  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        if not self.model_config.get("frozen"):
            raise TypeError(f"unhashable type: {type(self).__name__!r}")
        return hash(type(self)) + hash(tuple(self.__dict__[n] for n in self.__record_fields__))

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        fields = self.__record_template__
        yield from ((k, v) for k, v in self.__dict__.items() if k in fields)

    def __repr__(self) -> str:
        fields = self.__record_template__
        shown = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items() if k in fields)
        return f"{type(self).__name__}({shown})"

    def __str__(self) -> str:
        fields = self.__record_template__
        return " ".join(f"{k}={v!r}" for k, v in self.__dict__.items() if k in fields)

    @classmethod
    def _model_fields(cls) -> dict[str, Any]:
        return cls.__record_twin__.model_fields  # type: ignore[no-any-return]


# ``Record``'s slots, set through their descriptors: what ``object.__setattr__`` ends up calling, without the lookup
# of each name on the class first (about a quarter of a small record's construction, in a loop; a warm ask builds
# about sixteen).
_set_dict = Record.__dict__["__dict__"].__set__
_set_fields_set = Record.__dict__["__pydantic_fields_set__"].__set__
_set_extra = Record.__dict__["__pydantic_extra__"].__set__
_set_private = Record.__dict__["__pydantic_private__"].__set__
#: Called with (class, instance, values) after each ``model_construct`` where set: ``chainret.core.trusted`` sets it
#: when ``CHAINRET_CHECK_TRUSTED`` asks for every unchecked construction to be checked (None otherwise: no cost).
check_hook: Callable[[type[Record], Record, dict[str, Any]], None] | None = None


class _ModelFields:
    """``Model.model_fields`` (and on an instance): the twin's ``FieldInfo`` by name."""

    def __get__(self, obj: Any, owner: type[Record]) -> dict[str, Any]:
        return owner._model_fields()


Record.model_fields = _ModelFields()  # type: ignore[assignment]


def is_model(value: Any) -> bool:
    """A pydantic model or a record (an instance or a class)."""
    cls = value if isinstance(value, type) else type(value)
    if issubclass(cls, Record):
        return True
    base = sys.modules.get("pydantic")
    return base is not None and issubclass(cls, base.BaseModel)


def _declared(value: Any) -> Any:
    """What a decorator of this module declared on a class attribute (None: nothing); ``("pydantic", ...)`` for
    pydantic's own decorator (a subclass declared in a module that uses pydantic anyway: the twin applies it as is,
    and ``chainret.core.stablejson`` leaves such a record to pydantic's serializer)."""
    if type(value).__name__ == "PydanticDescriptorProxy":
        return ("pydantic", (), {})
    target = value.__func__ if isinstance(value, (classmethod, staticmethod)) else value
    return getattr(target, _DECLARED, None)


def _is_field_info(value: Any) -> bool:
    """``pydantic.Field(...)`` written in a record's body (as ``_declared``: a module that uses pydantic anyway)."""
    return type(value).__name__ == "FieldInfo" and type(value).__module__.startswith("pydantic")


def _is_classvar(annotation: Any) -> bool:
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar"))


_BUILDING = threading.RLock()


def _build(cls: type[Record]) -> None:
    """The twin of ``cls`` and, from its core schema with ``cls`` in the twin's place, the validator and serializer."""
    if not isinstance(cls.__dict__.get("__record_twin__"), _Built):
        return
    with _BUILDING:  # (a server's threads may validate their first request together; a nested record builds inside)
        if isinstance(cls.__dict__.get("__record_twin__"), _Built):
            _build_twin(cls)


def _build_twin(cls: type[Record]) -> None:
    import typing

    import pydantic
    from pydantic_core import SchemaSerializer, SchemaValidator

    annotations = dict(field_types(cls))
    body: dict[str, Any] = {"__module__": cls.__module__, "__qualname__": cls.__qualname__, "__doc__": cls.__doc__,
                            "__annotations__": annotations,
                            "model_config": pydantic.ConfigDict(**{**cls.model_config, "defer_build": False})}  # type: ignore[typeddict-item]
    for name, spec in cls.__record_specs__.items():
        if isinstance(spec, FieldSpec):
            given = dict(spec.kwargs)
            if spec.default_factory is not None:
                given["default_factory"] = spec.default_factory
            body[name] = pydantic.Field(spec.default if spec.default is not _MISSING else ..., **given) \
                if spec.default_factory is None else pydantic.Field(**given)
        elif spec is not _MISSING:
            body[name] = spec  # (a plain default, or pydantic's FieldInfo as written)
    for name, value in cls.__record_decorators__.items():
        kind, args, kwargs = _declared(value)
        body[name] = value if kind == "pydantic" else getattr(pydantic, kind)(*args, **kwargs)(value)
    twin = typing.cast(Any, pydantic.BaseModel).__class__(cls.__name__, (pydantic.BaseModel,), body)
    schema = _retarget(twin.__pydantic_core_schema__, twin, cls)
    config = _model_config_of(schema, cls)
    cls.__pydantic_core_schema__ = schema
    cls.__pydantic_validator__ = SchemaValidator(schema, config)  # type: ignore[arg-type]
    cls.__pydantic_serializer__ = SchemaSerializer(schema, config)  # type: ignore[arg-type]
    cls.__record_twin__ = twin
    cls.__pydantic_complete__ = True


def _retarget(schema: Any, old: type, new: type) -> Any:
    """A copy of a core schema in which every model schema of class ``old`` builds and checks ``new``."""
    if isinstance(schema, dict):
        out = {k: _retarget(v, old, new) for k, v in schema.items()}
        if out.get("type") == "model" and out.get("cls") is old:
            out["cls"] = new
        return out
    if isinstance(schema, list):
        return [_retarget(v, old, new) for v in schema]
    return schema


def _model_config_of(schema: Any, cls: type) -> Any:
    """The core config of ``cls``'s own model schema inside ``schema`` (its title, as pydantic hands it to the validator)."""
    if isinstance(schema, dict):
        if schema.get("type") == "model" and schema.get("cls") is cls:
            return schema.get("config")
        found = (_model_config_of(v, cls) for v in schema.values())
    elif isinstance(schema, list):
        found = (_model_config_of(v, cls) for v in schema)
    else:
        return None
    return next((c for c in found if c is not None), None)


# -- a record rebuilt from its own dump ---------------------------------------------------------------------------
_Convert = Callable[[Any], Any]
_DUMP_PLANS: dict[type[Record], tuple[tuple[str, _Convert], ...]] = {}


def from_dump(cls: type[R], data: dict[str, Any]) -> R:
    """The record whose ``model_dump(mode="json")`` (read back from JSON) is ``data``, built unchecked: nested
    records rebuilt, tuples made tuples again, every other value as it is. For data this code dumped from a
    validated record (a remembered checked catalog, ``chainret.catalog.parse``): never for input from outside,
    which is validated. A ``TrustedModel`` is still checked against validation under ``CHAINRET_CHECK_TRUSTED``."""
    plan = _DUMP_PLANS.get(cls)
    if plan is None:
        plan = _DUMP_PLANS[cls] = _dump_plan(cls)
    values = dict(data)
    for name, convert in plan:
        value = values.get(name)
        if value is not None:
            values[name] = convert(value)
    return cls.model_construct(**values)


R = TypeVar("R", bound=Record)


_FIELD_TYPES: dict[type[Record], dict[str, Any]] = {}


def field_types(cls: type[Record]) -> dict[str, Any]:
    """Field name -> its type (an annotation written as text read in the class's module), without building the
    pydantic half: what ``model_fields[name].annotation`` answers, for ``from_dump`` and the float plan of
    ``chainret.core.stablejson``."""
    hit = _FIELD_TYPES.get(cls)
    if hit is None:
        module = sys.modules.get(cls.__module__)
        namespace = dict(vars(module)) if module is not None else {}
        hit = _FIELD_TYPES[cls] = {
            name: eval(annotation, namespace) if isinstance(annotation, str) else annotation  # noqa: S307 - the class's own annotation text
            for name, annotation in cls.__record_annotations__.items()}
    return hit


def _dump_plan(cls: type[Record]) -> tuple[tuple[str, _Convert], ...]:
    import typing

    plan = []
    for name, tp in field_types(cls).items():
        convert = _converter(tp, typing)
        if convert is not None:
            plan.append((name, convert))
    return tuple(plan)


def _converter(tp: Any, typing: Any) -> _Convert | None:
    """How to turn the JSON form of a value of type ``tp`` back into the value (None: it is its JSON form)."""
    from enum import Enum

    if isinstance(tp, type):
        if issubclass(tp, Record):
            return lambda v: from_dump(tp, v)
        if issubclass(tp, Enum):
            return tp
        return None
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Annotated:
        return _converter(args[0], typing)
    if origin is typing.Union or type(tp).__name__ == "UnionType":
        inner = [c for c in (_converter(a, typing) for a in args if a is not type(None)) if c is not None]
        if not inner:
            return None
        if len(inner) > 1:
            raise TypeError(f"{tp}: a union of several converted types is not rebuilt from a dump")
        only = inner[0]
        return lambda v: None if v is None else only(v)
    if origin is list and args:
        item = _converter(args[0], typing)
        if item is None:
            return None
        each = item
        return lambda v: [each(x) for x in v]
    if origin is tuple:
        items = [_converter(a, typing) for a in args if a is not Ellipsis]
        if not any(items):
            return tuple
        raise TypeError(f"{tp}: a tuple of converted types is not rebuilt from a dump")
    if origin is dict and len(args) == 2:
        value = _converter(args[1], typing)
        if value is None:
            return None
        each_value = value
        return lambda v: {k: each_value(x) for k, x in v.items()}
    return None
