"""The per-document, per-type lazy tables agree with whole-catalog brute force (what they replaced).

Views and the engine now derive units, group relations by unit, check digests and index names one
document (or one entity type) at a time; these tests rebuild each table the direct way on every
fixture world, every case overlay and random text, and compare.
"""

from __future__ import annotations

import hashlib
import re
from itertools import accumulate, groupby
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from chainret.catalog.load import apply_overlay, load_world
from chainret.catalog.parse import _YAML_LOADER
from chainret.catalog.models import SourceDocument, derive_units, normalize_name, sha256_digest, unit_spans
from chainret.catalog.views import open_view

ROOT = Path(__file__).resolve().parents[1]
WORLDS = [load_world(ROOT / "fixtures" / name) for name in ("seed", "lab", "supply")]
CATALOGS = [apply_overlay(w.catalog, c.overlay) for w in WORLDS for c in w.cases]


def _old_norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def _brute_units_by_ref(cat):
    return {u.ref: u for d in cat.documents for u in derive_units(d)}


def _brute_supporting_unit(cat, rel):
    start, end = rel.support.span
    hits = [u for u in derive_units(cat.documents_by_ref[rel.support.doc_ref]) if u.start <= start and end <= u.end]
    return hits[0] if hits else None


@pytest.mark.parametrize("cat", CATALOGS, ids=lambda c: c.world)
def test_units_and_relations_by_unit_match_brute_force(cat) -> None:
    units = _brute_units_by_ref(cat)
    assert cat.units_by_ref == units
    assert all(cat.unit(ref) == u for ref, u in units.items())
    assert cat.unit("nowhere/x.md@v1#u1") is None and cat.unit(next(iter(units)) + "0") is None
    grouped: dict[str, list] = {}
    for rel in cat.relations:
        unit = _brute_supporting_unit(cat, rel)
        assert cat.supporting_unit(rel) == unit
        if unit is not None:
            grouped.setdefault(unit.ref, []).append(rel)
    for rels in grouped.values():
        rels.sort(key=lambda r: (r.support.span[0], r.id))
    assert all(cat.relations_in_unit(ref) == grouped.get(ref, []) for ref in units)


@pytest.mark.parametrize("cat", CATALOGS, ids=lambda c: c.world)
def test_views_units_names_and_digests_match_brute_force(cat) -> None:
    principals = sorted({"public", *(p for d in cat.documents for p in d.principals)})
    for view in cat.views:
        for principal in principals:
            cv = open_view(cat, view.name, principal)
            readable = [u for d in cat.documents if d.ref in view.documents and d.readable_by(principal)
                        for u in derive_units(d)]
            assert cv.units() == readable
            assert cv.unit_texts() == [(u.ref, u.text) for u in readable]
            assert all(cv.unit(u.ref) == (u if u in readable else None) for u in cat.units_by_ref.values())
    cv = open_view(cat)
    strings = {s for e in cat.entities for s in (e.id, e.name, *e.aliases)}
    types = sorted({e.type for e in cat.entities})
    for s in strings:
        for t in [None, *types]:
            known = {x for r in cat.relations if cat.documents_by_ref[r.support.doc_ref].readable_by("public") for x in (r.subject, r.object)}
            want = sorted((e for e in cat.entities if (t is None or e.type == t) and e.id in known
                           and _old_norm(s) in {_old_norm(x) for x in (e.id, e.name, *e.aliases)}), key=lambda e: e.id)
            assert cv.resolve(s, type=t) == want
    assert all(cat.digest_ok(d.ref) == (d.digest == sha256_digest(d.text)) for d in cat.documents)


def test_catalog_digest_is_sha256_of_its_json() -> None:
    cat = WORLDS[0].catalog
    assert cat.canonical_json() == cat.model_dump_json()
    assert cat.digest() == "sha256:" + hashlib.sha256(cat.model_dump_json().encode("utf-8")).hexdigest()


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from("ab \t\n\r\x0b\x0c\x1c\x1f\x85\u2028\u00a0İΣ"), max_size=40))
def test_normalize_name_matches_the_regex_definition(text: str) -> None:
    assert normalize_name(text) == _old_norm(text)


def _paragraphs(text: str) -> list[tuple[int, int]]:
    """Independent statement of the rule: group consecutive non-blank lines, span first start .. last body end."""
    lines = text.splitlines(keepends=True)
    offsets = list(accumulate((len(x) for x in lines), initial=0))
    rows = [(offsets[i], line.rstrip("\r\n")) for i, line in enumerate(lines)]
    out = []
    for blank, group in groupby(rows, key=lambda r: not r[1].strip()):
        if not blank:
            g = list(group)
            out.append((g[0][0], g[-1][0] + len(g[-1][1])))
    return out


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from("ab \t\n\r\x0b\x0c\x1c\x85\u2028"), max_size=60))
def test_unit_spans_are_the_paragraph_rule(text: str) -> None:
    assert list(unit_spans(text)) == _paragraphs(text)
    doc = SourceDocument(source="s", document="d", version="v1", text=text, digest=sha256_digest(text))
    assert [(u.start, u.end) for u in derive_units(doc)] == _paragraphs(text)


@pytest.mark.parametrize("path", sorted([*ROOT.glob("fixtures/*/*.yaml"), *ROOT.glob("catalogs/*.yaml")]), ids=str)
def test_fast_yaml_loader_reads_what_safe_load_reads(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert yaml.load(text, Loader=_YAML_LOADER) == yaml.safe_load(text)
