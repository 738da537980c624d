"""NLI data: the training pool and the held-out evaluation sets under ``<data root>/nli``.

Parsing is delegated to the ``validate_nli.py`` that ships beside the data (standard library
only), so label mapping lives in exactly one place. This module decides *what* may be used:
the default training selection keeps to data whose licences allow shipping a trained model and
never touches a split on the README's "do not train on" list.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import random
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType

from chainret.core.errors import DataError, UsageError

LABELS = ("entailment", "neutral", "contradiction")
LABEL2ID = {name: i for i, name in enumerate(LABELS)}


@dataclass(frozen=True)
class Pair:
    premise: str
    hypothesis: str
    label: int  # index into LABELS
    source: str  # "dataset/split[/subset]"


@dataclass(frozen=True)
class Source:
    """One (dataset, split) slice that may go into training, with its licence note."""

    dataset: str
    split: str
    licence: str
    subsets: tuple[str, ...] | None = None  # restrict to these `extra.subset` values
    redistributable: bool = True  # False: non-commercial / restricted text; opt-in only

    @property
    def key(self) -> str:
        return f"{self.dataset}/{self.split}" + (f"[{','.join(self.subsets)}]" if self.subsets else "")


# Every slice of the pool the code knows about. Names are what `--train-sets` accepts.
TRAIN_SOURCES: dict[str, Source] = {
    "lingfeatured": Source("lingfeatured_nli", "train", "no licence stated; premises are MultiNLI train text (OANC / CC BY-SA 3.0)"),
    "new_protocols": Source("new_protocols_nli", "train", "no licence stated; premises are Wikipedia (CC BY-SA 3.0)"),
    "new_protocols_val": Source("new_protocols_nli", "val", "no licence stated; premises are Wikipedia (CC BY-SA 3.0)"),
    "semi_auto_wiki": Source("semi_automatic_nli", "train", "no licence stated; premises are Wikipedia (CC BY-SA 3.0)",
                             subsets=("base_wiki", "sim_wiki", "translate_wiki")),
    "semi_auto_news": Source("semi_automatic_nli", "train", "no licence stated; premises are LDC Gigaword news (LDC licence)",
                             subsets=("base_news", "sim_news"), redistributable=False),
    "conjnli_adv": Source("conjnli", "adversarial_train", "MIT"),
    "counterfactual_snli": Source("counterfactual_snli", "train", "Apache-2.0 (edits) / SNLI CC BY-SA 4.0"),
    "mpe": Source("mpe", "train", "no licence stated; premises are Flickr30k captions"),
    "mpe_devtest": Source("mpe", "dev+test", "no licence stated; premises are Flickr30k captions"),
    "sick": Source("sick", "train+trial", "CC BY-NC-SA 3.0 (non-commercial)", redistributable=False),
    "taxinli_train": Source("taxinli", "mnli_train_part", "C-UDA 1.0 (computational use only)", redistributable=False),
}
DEFAULT_TRAIN = ("lingfeatured", "new_protocols", "new_protocols_val", "semi_auto_wiki", "conjnli_adv",
                 "counterfactual_snli", "mpe", "mpe_devtest")

# (dataset, split) pairs that overlap the evaluation sets (README "Do not train on") or ARE evaluation sets.
DO_NOT_TRAIN: frozenset[tuple[str, str]] = frozenset({
    ("lingfeatured_nli", "val"), ("counterfactual_snli", "dev"), ("counterfactual_snli", "test"),
    ("taxinli", "mnli_dev_part"), ("mnli_dev", "validation_matched"), ("mnli_dev", "validation_mismatched"),
    ("snli", "validation"), ("snli", "test"), ("anli_dev", "dev_r1"), ("anli_dev", "dev_r2"), ("anli_dev", "dev_r3"),
    ("breaking_nli", "test"), ("conjnli", "dev"), ("conjnli", "test_unlabeled"),
})

# Evaluation-set name -> (dataset, split, licence)
EVAL_SETS: dict[str, tuple[str, str, str]] = {
    "mnli_dev_matched": ("mnli_dev", "validation_matched", "OANC / CC BY-SA 3.0"),
    "mnli_dev_mismatched": ("mnli_dev", "validation_mismatched", "OANC / CC BY-SA 3.0"),
    "snli_dev": ("snli", "validation", "CC BY-SA 4.0"),
    "snli_test": ("snli", "test", "CC BY-SA 4.0"),
    "anli_dev_r1": ("anli_dev", "dev_r1", "CC BY-NC 4.0"),
    "anli_dev_r2": ("anli_dev", "dev_r2", "CC BY-NC 4.0"),
    "anli_dev_r3": ("anli_dev", "dev_r3", "CC BY-NC 4.0"),
    "breaking_nli": ("breaking_nli", "test", "CC BY-SA 4.0"),
    "conjnli_dev": ("conjnli", "dev", "MIT"),
}


def nli_data_dir(data_dir: str | os.PathLike | None = None) -> Path:
    """Resolve the NLI folder: explicit path, else $CHAINRET_DATA_DIR/nli; there is no default folder.

    ``data_dir`` may be the data root (containing ``nli/``) or the ``nli`` folder itself.
    """
    if data_dir is not None:
        root = Path(data_dir)
    elif os.environ.get("CHAINRET_DATA_DIR"):
        root = Path(os.environ["CHAINRET_DATA_DIR"])
    else:
        raise UsageError("no NLI data folder: pass --data-dir (data_dir=) or set CHAINRET_DATA_DIR to the data root "
                         "(the folder containing nli/)")
    nli = root if (root / "validate_nli.py").exists() else root / "nli"
    if not (nli / "validate_nli.py").exists():
        raise DataError(f"NLI data not found: {nli} has no validate_nli.py; pass --data-dir or set CHAINRET_DATA_DIR "
                        "to the data root (the folder containing nli/)")
    return nli


@lru_cache(maxsize=4)
def _loader(nli_dir: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_chainret_validate_nli_{abs(hash(nli_dir))}", Path(nli_dir) / "validate_nli.py")
    if spec is None or spec.loader is None:
        raise DataError(f"cannot import {nli_dir}/validate_nli.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@lru_cache(maxsize=32)
def _dataset(nli_dir: str, name: str) -> dict:
    mod = _loader(nli_dir)
    if name not in mod.DATASETS:
        raise DataError(f"{nli_dir}/validate_nli.py has no dataset {name!r}")
    try:
        return mod.load(name)
    except (OSError, KeyError, ValueError) as exc:
        raise DataError(f"cannot load NLI dataset {name!r} from {nli_dir}: {exc}") from exc


def _rows(nli_dir: Path, dataset: str, split: str) -> list[dict]:
    splits = _dataset(str(nli_dir), dataset)
    out: list[dict] = []
    for part in split.split("+"):
        if part not in splits:
            raise DataError(f"{dataset} has no split {part!r} (has {sorted(splits)})")
        out.extend(splits[part])
    return out


def _to_pairs(rows: list[dict], source: str) -> list[Pair]:
    return [Pair(r["premise"], r["hypothesis"], LABEL2ID[r["label"]], source) for r in rows if r["label"] in LABEL2ID]


def resolve_train_sets(names: list[str] | tuple[str, ...] | None) -> list[Source]:
    """Names -> Sources; refuses unknown names and anything overlapping the evaluation sets."""
    names = list(names or DEFAULT_TRAIN)
    unknown = [n for n in names if n not in TRAIN_SOURCES]
    if unknown:
        raise UsageError(f"unknown training set(s) {unknown}; choose from {sorted(TRAIN_SOURCES)}")
    sources = [TRAIN_SOURCES[n] for n in names]
    for s in sources:
        for part in s.split.split("+"):
            if (s.dataset, part) in DO_NOT_TRAIN:
                raise UsageError(f"{s.dataset}/{part} overlaps the evaluation sets and must not be trained on")
    return sources


def load_train(names: list[str] | tuple[str, ...] | None = None, data_dir: str | os.PathLike | None = None) -> tuple[list[Pair], list[dict]]:
    """Load the selected training pool, de-duplicated; returns (pairs, per-source record for the run config)."""
    nli = nli_data_dir(data_dir)
    seen: set[tuple[str, str]] = set()
    pairs: list[Pair] = []
    record: list[dict] = []
    for name, src in zip(names or DEFAULT_TRAIN, resolve_train_sets(names)):
        rows = _rows(nli, src.dataset, src.split)
        if src.subsets:
            rows = [r for r in rows if r["extra"].get("subset") in src.subsets]
        kept = 0
        for p in _to_pairs(rows, src.key):
            k = (p.premise, p.hypothesis)
            if k in seen:
                continue
            seen.add(k)
            pairs.append(p)
            kept += 1
        record.append({"name": name, **asdict(src), "pairs": kept})
    if not pairs:
        raise DataError(f"no training pairs selected from {nli}")
    return pairs, record


def load_eval(name: str, data_dir: str | os.PathLike | None = None, limit: int | None = None, seed: int = 0) -> list[Pair]:
    """One held-out set; ``limit`` takes a deterministic random sample (same sample for every model)."""
    if name not in EVAL_SETS:
        raise UsageError(f"unknown evaluation set {name!r}; choose from {list(EVAL_SETS)}")
    dataset, split, _ = EVAL_SETS[name]
    pairs = _to_pairs(_rows(nli_data_dir(data_dir), dataset, split), f"{dataset}/{split}")
    if limit is not None and limit < len(pairs):
        pairs = random.Random(seed).sample(pairs, limit)
    return pairs


def fingerprint(pairs: list[Pair]) -> str:
    """Short sha256 over the pairs in order, to record exactly what a run saw."""
    h = hashlib.sha256()
    for p in pairs:
        h.update(f"{p.premise}\t{p.hypothesis}\t{p.label}\n".encode())
    return h.hexdigest()[:16]
