"""Word similarity from the static vector table the package ships (``chainret/data/vocabulary``, issue 45).

The table holds one int8 vector per English word, distilled offline from all-MiniLM-L6-v2
(``python -m benchmarks.build_vocabulary``; provenance, licence and digest in ``PROVENANCE.md`` beside it).
Reading it needs numpy only: no torch, no tokenizer. Its words are read the first time a request word is
looked up (only when the catalog's declared words read nothing); numpy is imported and the vectors
memory-mapped only when a similarity is needed (a misspelt word, which is no English word, needs neither:
importing numpy is most of the cost of a first look-up).

A word the table lacks is looked up by its base form (``certifies`` -> ``certify``, ``runs`` -> ``run``):
the dictionaries the table was built from list base forms, and requests inflect them. A phrase's vector
is the mean of its words' unit vectors; a phrase with a word the table lacks has none.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

TABLE_DIR = Path(__file__).resolve().parents[1] / "data" / "vocabulary"


class Table:
    """The words, their unit vectors (float32, made from the int8 rows on first use of each) and the digest."""

    def __init__(self, folder: Path = TABLE_DIR) -> None:
        self.folder = folder
        words_bytes = (folder / "words.txt").read_bytes()
        self.digest = hashlib.sha256(words_bytes + (folder / "vectors.npy").read_bytes()).hexdigest()[:16]
        self.index = {w: i for i, w in enumerate(words_bytes.decode().split())}
        self._rows: Any = None

    @property
    def rows(self) -> Any:
        """The int8 vectors, memory-mapped on first use."""
        if self._rows is None:
            import numpy

            self._rows = numpy.load(self.folder / "vectors.npy", mmap_mode="r", allow_pickle=False)
        return self._rows

    def base(self, word: str) -> str | None:
        """The word itself when the table has it, else its base form that the table has, else None.

        Hand rules rather than a stemmer library: a library costs loading time on the ask path, and
        these few endings cover a relation word's inflections (verbs in ``-s``/``-ed``/``-ing``, plural nouns)."""
        word = word.lower()
        if word in self.index:
            return word
        for cut, add in (("ies", "y"), ("ied", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ed", "e"), ("ing", ""),
                         ("ing", "e"), ("ers", ""), ("er", "")):
            if word.endswith(cut) and len(word) - len(cut) >= 2 and (stem := word[: -len(cut)] + add) in self.index:
                return stem
        return None

    def vector(self, phrase: str) -> np.ndarray | None:
        """The phrase's unit vector (mean of its words' unit vectors), or None when a word is not in the table."""
        bases = [self.base(w) for w in phrase.replace("-", " ").split()]
        if not bases or None in bases:
            return None
        import numpy as np

        rows = [self.rows[self.index[b]].astype(np.float32) for b in bases if b is not None]
        units = [r / (np.linalg.norm(r) or 1.0) for r in rows]
        mean = np.mean(units, axis=0)
        norm = float(np.linalg.norm(mean))
        return mean / norm if norm else None


@lru_cache(maxsize=1)
def table() -> Table:
    """The shipped table, opened once."""
    return Table()


def similarity(a: str, b: str) -> float | None:
    """Cosine similarity of two words or phrases (None when either is not in the table)."""
    va, vb = table().vector(a), table().vector(b)
    if va is None or vb is None:
        return None
    return float(va @ vb)


def similar(word_or_phrase: str, candidates: Iterable[str]) -> list[tuple[str, float]]:
    """The candidates with their similarity to ``word_or_phrase``, most similar first (ties by name);
    candidates the table cannot read are left out."""
    va = table().vector(word_or_phrase)
    if va is None:
        return []
    out = []
    for c in candidates:
        vc = table().vector(c)
        if vc is not None:
            out.append((c, float(va @ vc)))
    return sorted(out, key=lambda x: (-x[1], x[0]))


def known(word: str) -> bool:
    """True when the table has the word or its base form (an English word: not a typo)."""
    return table().base(word) is not None


def table_digest() -> str:
    return table().digest

