"""Name lookups for tolerant interpretation: which entities a mention could name, without a scan.

``chainret.query.understand`` resolves a mention that matches no ID, name or alias exactly by comparing
it with every label (ID, name, aliases) of every entity of the slot's type: the same key after case,
spacing and punctuation are removed, a typo within a small edit distance, a did-you-mean by
similarity. Each of those comparisons can only succeed for labels that share a cheap-to-index
property with the mention, so a ``NameIndex`` answers them from dictionaries built once per catalog:

* ``by_key(type, key)``: entities with a label whose ``name_key`` is ``key``;
* ``near(type, digits, lo, hi)``: entities with a label whose key holds exactly these digits (in
  order; typos and suggestions never change a digit) and whose key length is in ``[lo, hi]``;
* ``owners_of(type, word)``: entities with a label containing ``word`` as a word, read as they are taken (a
  first name's completions; in no promised order); ``has_word``: whether any (that the caller's ``knows``
  accepts) has, which a compiled store answers without reading them all (``chainret.store.namewords``).

Each returns candidates only (a superset of what can match); the caller applies the exact test it
always applied, and ``cv.knows`` before anything reaches a requester. The index is hand-written
(plain dicts) because what it keys on (digit runs, length bands) is specific to these comparisons.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import NamedTuple, Protocol

from chainret.core.words import NOT_PLAIN_WORD, PLAIN_WORD

_NOT_DIGIT = re.compile(r"[^0-9]+")


def name_key(text: str) -> str:
    """Case, spacing and punctuation removed: ``PR 84``, ``pr84`` and ``PR-84`` share ``pr84``."""
    return NOT_PLAIN_WORD.sub("", text.casefold())


def digits_of(text: str) -> str:
    """Every ASCII digit of ``text`` in order (equal digit runs imply equal digits)."""
    return _NOT_DIGIT.sub("", text)


def label_words(label: str) -> list[str]:
    """The words of a label as ``_all_name_words`` compares them."""
    return PLAIN_WORD.findall(label.casefold())


class Named(Protocol):
    """An entity as these lookups read it (``chainret.catalog.models.Entity``; not imported: models imports this)."""

    @property
    def id(self) -> str: ...

    @property
    def type(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def aliases(self) -> list[str]: ...


class NameEntry(NamedTuple):
    """One entity as the name lookups see it: its ID, type and labels (ID, name, aliases, in that order)."""

    id: str
    type: str
    labels: tuple[str, ...]


class NameLookup(Protocol):
    """The three questions tolerant interpretation asks of a catalog's names (see the module docstring)."""

    def by_key(self, type_: str, key: str) -> list[NameEntry]: ...

    def near(self, type_: str | None, digits: str, lo: int, hi: int) -> list[NameEntry]: ...

    def has_word(self, type_: str, word: str, knows: Callable[[str], bool] | None = None) -> bool: ...

    def owners_of(self, type_: str, word: str) -> Iterator[Named]: ...

    def entities(self, ids: Sequence[str]) -> list[Named]: ...


class NameIndex:
    """A ``NameLookup`` over entities held in memory (built once per catalog or store object).

    ``fetch`` returns an entity by ID (a loaded catalog's own objects, or a store's row)."""

    def __init__(self, entries: Iterable[NameEntry], fetch: Callable[[str], Named | None]) -> None:
        self.fetch = fetch
        self.entries: list[NameEntry] = []
        self._key: dict[tuple[str, str], list[int]] = {}
        self._near: dict[tuple[str, str], dict[int, list[int]]] = {}
        self._words: dict[tuple[str, str], list[int]] = {}
        self._types: dict[str, None] = {}
        for pos, entry in enumerate(entries):
            self.entries.append(entry)
            self._types.setdefault(entry.type)
            keys: dict[str, None] = {}
            words: dict[str, None] = {}
            for label in entry.labels:
                keys.setdefault(name_key(label))
                words.update(dict.fromkeys(label_words(label)))
            for key in keys:
                self._key.setdefault((entry.type, key), []).append(pos)
                by_len = self._near.setdefault((entry.type, digits_of(key)), {})
                bucket = by_len.setdefault(len(key), [])
                if not bucket or bucket[-1] != pos:
                    bucket.append(pos)
            for word in words:
                self._words.setdefault((entry.type, word), []).append(pos)

    def by_key(self, type_: str, key: str) -> list[NameEntry]:
        return [self.entries[p] for p in self._key.get((type_, key), ())]

    def near(self, type_: str | None, digits: str, lo: int, hi: int) -> list[NameEntry]:
        pos: set[int] = set()
        for t in (self._types if type_ is None else (type_,)):
            by_len = self._near.get((t, digits))
            if by_len:
                for n, bucket in by_len.items():
                    if lo <= n <= hi:
                        pos.update(bucket)
        return [self.entries[p] for p in sorted(pos)]

    def word_owners(self, type_: str, word: str) -> list[str]:
        return [self.entries[p].id for p in self._words.get((type_, word), ())]

    def has_word(self, type_: str, word: str, knows: Callable[[str], bool] | None = None) -> bool:
        return any(knows is None or knows(i) for i in self.word_owners(type_, word))

    def owners_of(self, type_: str, word: str) -> Iterator[Named]:
        for i in self.word_owners(type_, word):
            e = self.fetch(i)
            if e is not None:
                yield e

    def entities(self, ids: Sequence[str]) -> list[Named]:
        out = [self.fetch(i) for i in ids]
        return [e for e in out if e is not None]


def entries_of(entities: Iterable[Named]) -> list[NameEntry]:
    """``NameEntry`` for catalog entities."""
    return [NameEntry(e.id, e.type, (e.id, e.name, *e.aliases)) for e in entities]


def entries_from_rows(rows: Sequence[tuple[str, str, str, str]]) -> list[NameEntry]:
    """``NameEntry`` from a store's ``(id, type, name, aliases JSON)`` rows, in catalog order."""
    return [NameEntry(i, t, (i, n, *json.loads(a))) if a and a != "[]" else NameEntry(i, t, (i, n)) for i, t, n, a in rows]
