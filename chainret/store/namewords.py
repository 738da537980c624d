"""The words of a compiled store's names, so "is this a word of some name" reads a row, not every name.

Tolerant interpretation asks, of words a request holds, whether each is a word of some known name of a type
(``NameLookup.has_word``): a synonym never replaces a name's word ("drive" in "the drive gear"), and a mention made
of real name words put together differently is another name, not a typo ("card-api" beside card-sync and cart-api).
A store that can only find such words by ``key LIKE '%word%'`` reads every label of the type, and a common word
(the type's own word: "project" in "Project 5") brings back every entity of the type: at a million relations one
refused request read 2M label rows and took 22 s of CPU.

``name_words`` holds one row per (type, alphabetic label word) of every entity's labels, whoever may read them:
how many entities have the word (``n``) and the first ``KEPT`` of them by ordinal (``owners``). The reader
(``chainret.store.sql.SQLNames.has_word``) checks those owners with its own conditions (labels the reader may be
shown, entities the reader knows), so what a reader learns is what the reader could have found by the scan; a word
in no row is in no label at all, for anyone. Only where all the kept owners fail the reader's conditions and more
exist, or for a word with a digit (``p5``: such words are mostly one entity's own, so a row each would cost
as much as the labels), does the reader scan, as before.

An update adds the words of the entities it writes or relabels to the stored rows. A relabelled entity may be
counted twice and a word it lost stays listed: both only ever make a row say "maybe" where the labels say
"no", and the reader's own check decides.

SQLite only (``Writer.keeps_name_words``): a PostgreSQL login could read such a table whole, words of labels
it may not be shown included, so a PostgreSQL store keeps none and its readers scan under row-level security.
Hand-written because it is one small table beside the store's others; SQLite's FTS5 would index the same words
with larger rows and a tokenizer that splits labels otherwise than ``label_words``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from chainret.catalog.names import label_words

if TYPE_CHECKING:
    from collections.abc import Iterable

    from chainret.store.schema import Writer

KEPT = 8  # owners a row lists; a word with more keeps its count and the first ones
TABLE = "name_words"
CREATE = f"CREATE TABLE IF NOT EXISTS {TABLE} (type TEXT, word TEXT, n INTEGER, owners TEXT, PRIMARY KEY (type, word)) WITHOUT ROWID"


def kept_word(word: str) -> bool:
    """Whether ``name_words`` holds this word's row (when any label has it): a word of ASCII letters only."""
    return word.isascii() and word.isalpha()


class NameWords:
    """The rows a compile or an update adds to ``name_words``, gathered in memory (one per distinct word)."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], tuple[int, list[int]]] = {}

    def add(self, type_: str, ordinal: int, labels: Iterable[str]) -> None:
        """One entity's labels (every source's: the reader's check narrows them)."""
        words: dict[str, None] = {}
        for label in labels:
            if label:
                words.update(dict.fromkeys(w for w in label_words(label) if kept_word(w)))
        for word in words:
            n, owners = self.rows.get((type_, word), (0, []))
            if len(owners) < KEPT:
                owners.append(ordinal)
            self.rows[(type_, word)] = (n + 1, owners)

    def write(self, w: Writer) -> None:
        """Add the gathered rows to the store's (created if this is its first write)."""
        w.execute(CREATE)
        keys = list(self.rows)
        stored: dict[tuple[str, str], tuple[int, list[int]]] = {}
        for k in range(0, len(keys), 200):
            chunk = keys[k:k + 200]
            cond = " OR ".join("(type = ? AND word = ?)" for _ in chunk)
            for t, word, n, owners in w.rows(f"SELECT type, word, n, owners FROM {TABLE} WHERE {cond}", [x for key in chunk for x in key]):
                stored[(str(t), str(word))] = (int(str(n)), [int(o) for o in json.loads(str(owners))])
        for key, (n, owners) in self.rows.items():
            had_n, had = stored.get(key, (0, []))
            merged = sorted(set(had) | set(owners))[:KEPT]
            w.execute(f"INSERT OR REPLACE INTO {TABLE} (type, word, n, owners) VALUES (?, ?, ?, ?)",
                      (key[0], key[1], had_n + n, json.dumps(merged)))
        self.rows.clear()
