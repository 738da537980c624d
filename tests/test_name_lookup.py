"""The name index (``chainret.catalog.names``) gives exactly what the full scan it replaced gave.

``resolve_mention`` and ``suggest_entities`` used to compare a mention with every label of every
entity; they now compare it only with the index's candidates. The scan is kept here, as it was, as
the reference: over many generated mentions (exact, case / spacing / punctuation variants, typos at
distance 1 and 2, changed digits, homonyms, restricted-only and unknown entities, wrong types), on a
loaded catalog and on a compiled SQLite store, for the public and for a principal who may read
more, both must give the same entities, in the same order, with the same ``how``, label and
distance, and the same suggestions. A candidate the index misses makes this test fail.
"""

from __future__ import annotations

import difflib
import random
import re
from pathlib import Path
from typing import Any

import pytest
from store_worlds import as_schema_4, as_schema_10, with_schema_10_rows

from chainret.catalog.load import load_catalog
from chainret.catalog.models import Entity, Relation, Support
from chainret.catalog.views import open_view
from chainret.store import compile_store, open_store
from chainret.query.understand import Mention, _variants, name_key, osa_distance, resolve_mention, suggest_entities, typo_bound
from benchmarks.harness.catalogs import changed

ROOT = Path(__file__).resolve().parents[1]
SUPPLY = load_catalog(ROOT / "fixtures" / "supply" / "catalog.yaml")
SEED = load_catalog(ROOT / "catalogs" / "default.yaml")

# -- the scan, as it was before the index -------------------------------------------------------------
_DIGITS = re.compile(r"[0-9]+")
_NAME_WORD = re.compile(r"[0-9a-z]+")


def _labels(e: Any) -> list[tuple[str, str]]:
    return [("id", e.id), ("name", e.name), *(("alias", a) for a in e.aliases)]


def _all_name_words_scan(text: str, entities: list[Any], cv: Any) -> bool:
    mine = set(_NAME_WORD.findall(text.casefold()))
    if not mine:
        return False
    vocab: set[str] = set()
    for e in entities:
        if cv.knows(e.id):
            for _, label in _labels(e):
                vocab.update(_NAME_WORD.findall(label.casefold()))
    return mine <= vocab


def resolve_scan(text: str, type_: str, cv: Any, type_words: set[str], every: list[Any]) -> Mention:
    variants = _variants(text, type_words)
    for v in variants:
        ents = cv.resolve(v, type=type_)
        if ents:
            how = "exact" if v == text else "normalised"
            return Mention(text, ents, how, v, cleaned=v)
    entities = [e for e in every if e.type == type_]
    for v in variants:
        key = name_key(v)
        if not key:
            continue
        runs = _DIGITS.findall(v)
        hits = {e.id: (e, label) for e in entities for kind, label in _labels(e)
                if name_key(label) == key and _DIGITS.findall(label) == runs}
        known = [(e, lab) for e, lab in hits.values() if cv.knows(e.id)]
        if known:
            return Mention(text, sorted((e for e, _ in known), key=lambda e: e.id), "normalised",
                           known[0][1] if len(known) == 1 else None, cleaned=v)
    if any(cv.resolve(v) for v in variants):
        return Mention(text, [], "exact", cleaned=variants[0] if variants else text)
    for v in variants:
        key = name_key(v)
        bound = typo_bound(key)
        if bound == 0:
            continue
        digits = _DIGITS.findall(v)
        best: dict[str, tuple[int, Any, str]] = {}
        for e in entities:
            for _, label in _labels(e):
                lk = name_key(label)
                if _DIGITS.findall(label) != digits:
                    continue
                d = osa_distance(key, lk, bound)
                if d <= bound and (e.id not in best or d < best[e.id][0]):
                    best[e.id] = (d, e, label)
        known_hits = sorted((x for x in best.values() if cv.knows(x[1].id)), key=lambda x: (x[0], x[1].id))
        if known_hits and _all_name_words_scan(v, entities, cv):
            continue
        if len(known_hits) == 1:
            d, e, label = known_hits[0]
            return Mention(text, [e], "typo", label, d, cleaned=v)
        if known_hits:
            return Mention(text, [x[1] for x in known_hits], "typo", cleaned=v)
    return Mention(text, [], "exact", cleaned=variants[0] if variants else text)


def suggest_scan(text: str, type_: str | None, cv: Any, every: list[Any], n: int = 3) -> list[Any]:
    key = name_key(text)
    if len(key) < 2:
        return []
    digits = _DIGITS.findall(key)
    scored: list[tuple[float, str, Any]] = []
    for e in every:
        if type_ is not None and e.type != type_:
            continue
        best = 0.0
        for _, label in _labels(e):
            lk = name_key(label)
            if _DIGITS.findall(lk) != digits:
                continue
            best = max(best, difflib.SequenceMatcher(None, key, lk, autojunk=False).ratio())
        if best >= 0.75:
            scored.append((best, e.id, e))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [e for _, _, e in scored if cv.knows(e.id)][:n]


# -- a world with homonyms, near-names and entities only a restricted document names -----------------
def _world() -> Any:
    pending = next(d for d in SUPPLY.documents if d.document == "pending.md")
    public = next(d for d in SUPPLY.documents if d.visibility == "public")
    extra = [
        Entity(id="part:supply:secret", type="part", name="Relief valvo"),  # restricted-only near-name
        Entity(id="part:supply:twin", type="part", name="Relief valve", aliases=["RV 2"]),  # a homonym, public
        Entity(id="org:supply:valve", type="org", name="Relief valve"),  # the same name, another type
        Entity(id="part:supply:ghost", type="part", name="Relief valves"),  # in no relation: nobody knows it
        Entity(id="part:supply:rv12", type="part", name="RV-12 pump", aliases=["pump 12", "RV 1 2"]),
    ]

    def rel(rid: str, subject: str, doc: Any) -> Relation:
        return Relation(id=rid, subject=subject, predicate="supplied_by", object="org:supply:harbor",
                        support=Support(source=doc.source, document=doc.document, version=doc.version,
                                        digest=doc.digest, span=(0, 5), quote=doc.text[:5]))

    rels = [rel("sup-secret", "part:supply:secret", pending), rel("sup-twin", "part:supply:twin", public),
            rel("sup-rv12", "part:supply:rv12", public)]
    return changed(SUPPLY, entities=[*SUPPLY.entities, *extra], relations=[*SUPPLY.relations, *rels])


def _typos(text: str, rng: random.Random) -> list[str]:
    out = []
    letters = [i for i, c in enumerate(text) if c.isalpha()]
    for _ in range(6):
        s = list(text)
        for _ in range(rng.choice((1, 2))):
            if not letters:
                break
            i = min(rng.choice(letters), len(s) - 1)
            op = rng.randrange(4)
            if op == 0:
                s[i] = rng.choice("aeioustx")
            elif op == 1 and i + 1 < len(s):
                s[i], s[i + 1] = s[i + 1], s[i]
            elif op == 2:
                s.insert(i, rng.choice("aeiou"))
            elif len(s) > 1:
                del s[i]
        out.append("".join(s))
    return out


def _mentions(cat: Any, rng: random.Random) -> list[str]:
    out: set[str] = {"", "the", "xyzzy", "valve", "relief", "relief pump", "card api", "PR 8 4", "pr84", "PR-83"}
    for e in cat.entities:
        for label in (e.id, e.name, *e.aliases):
            out.update({label, label.lower(), label.upper(), label.replace("-", " "), label.replace(" ", ""),
                        label.replace(" ", "-"), f"the {label}", re.sub(r"[0-9]", "7", label)})
            out.update(_typos(label, rng))
            out.update(_typos(e.name.lower().replace(" ", "-"), rng))
    return sorted(out)


def _compare(cat: Any, reader: Any, principals: list[str], mentions: list[str]) -> set[str]:
    """What kinds of outcome were compared (``how`` of resolved mentions, ``ambiguous``, ``suggested``).

    ``reader`` is the catalog itself (its memory views) or a store compiled from it."""
    types = sorted({e.type for e in cat.entities})
    seen: set[str] = set()
    for principal in principals:
        cv = open_view(cat, None, principal) if reader is cat else reader.view(None, principal)
        every = list(reader.entities)
        for text in mentions:
            for type_ in types:
                tw = {type_, f"{type_}s"}
                old, new = resolve_scan(text, type_, cv, tw, every), resolve_mention(text, type_, cv, tw)
                assert (new.how, new.label, new.distance, new.cleaned, [e.id for e in new.entities]) == \
                    (old.how, old.label, old.distance, old.cleaned, [e.id for e in old.entities]), (principal, text, type_)
                assert new.entities == old.entities
                near = [e.id for e in suggest_entities(text, type_, cv)]
                assert near == [e.id for e in suggest_scan(text, type_, cv, every)], (principal, text, type_)
                seen.update([new.how] if len(new.entities) == 1 else ["ambiguous"] if new.entities else [])
                seen.update(["suggested"] if near else [])
            assert [e.id for e in suggest_entities(text, None, cv)] == [e.id for e in suggest_scan(text, None, cv, every)]
    return seen


def _as_schema_3(path: Path) -> None:
    """Make a compiled store look like one compiled before the name-lookup columns (schema 3), and so before the
    postings carried their units' token count and ref (``store_worlds.as_schema_4``)."""
    import sqlite3

    as_schema_4(path)
    with sqlite3.connect(path) as conn:
        # (a store of schema 7 keys ``names`` by its fold: the table is made again without the lookup columns)
        conn.execute("CREATE TABLE names3 (key TEXT, type TEXT, entity_ord INTEGER, doc_id TEXT, "
                     "PRIMARY KEY (key, entity_ord, doc_id)) WITHOUT ROWID")
        conn.execute("INSERT INTO names3 SELECT n.key, e.type, n.entity_ord, n.doc_id FROM names n JOIN entities e ON e.ord = n.entity_ord")
        conn.execute("DROP TABLE names")
        conn.execute("ALTER TABLE names3 RENAME TO names")
        conn.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    conn.close()


def _outcomes(cat: Any, reader: Any) -> set[str]:
    principals = sorted({"public", *(p for d in cat.documents for p in d.principals)})
    mentions = _mentions(cat, random.Random(23))
    assert len(mentions) > 300
    return _compare(cat, reader, principals, mentions)


# each world's memory views once, its SQLite store once per schema (the memory half used to be repeated with
# each schema); the fast run keeps the supply world, the seed world (~3 s) runs with the slow tests
@pytest.mark.parametrize("which", ["supply", pytest.param("seed", marks=pytest.mark.slow)])
def test_the_index_gives_what_the_scan_gave_in_memory(which):
    """A memory catalog answers from the name index it builds once."""
    cat = _world() if which == "supply" else SEED
    assert {"exact", "normalised", "typo", "ambiguous", "suggested"} <= _outcomes(cat, cat)


def _as_schema_8(path: Path) -> None:
    """Make a compiled store's ``names`` as a SQLite store of schema 7 and 8 laid it out: keyed by its fold first, with
    ``names_near`` (type, digits, flen) beside it and each row's type (schema 9 keys it by the fold's digits and length,
    keeps no index and leaves the type to the entity's row)."""
    import sqlite3

    with sqlite3.connect(path) as conn:
        with_schema_10_rows(conn)  # (8 kept each row's key and text terms, as 9 and 10 did)
        conn.execute("CREATE TABLE names8 (key TEXT, type TEXT, entity_ord INTEGER, fold TEXT, digits TEXT, flen INTEGER, "
                     "doc_id TEXT, PRIMARY KEY (fold, key, entity_ord, doc_id)) WITHOUT ROWID")
        conn.execute("INSERT INTO names8 SELECT n.key, e.type, n.entity_ord, n.fold, n.digits, n.flen, n.doc_id "
                     "FROM names n JOIN entities e ON e.ord = n.entity_ord")  # (9 leaves a row's type to its entity's)
        conn.execute("DROP TABLE names")
        conn.execute("ALTER TABLE names8 RENAME TO names")
        conn.execute("CREATE INDEX names_near ON names (type, digits, flen)")
        conn.execute("UPDATE meta SET value = '8' WHERE key = 'schema_version'")
    conn.close()


@pytest.mark.parametrize(("which", "schema"), [("supply", 11), pytest.param("seed", 11, marks=pytest.mark.slow), ("supply", 10),
                                             ("supply", 8), ("supply", 3)])
def test_the_index_gives_what_the_scan_gave_in_sqlite(which, schema, tmp_path):
    """Schema 4 and later answer with indexed queries (9 to 11 by ``names``' own key, 11's rows checked against their
    entity's labels, 8 by its fold and ``names_near``); a schema-3 store (no lookup columns) with an index built in memory."""
    cat = _world() if which == "supply" else SEED
    compile_store(cat, tmp_path / "w.db")
    if schema == 3:
        _as_schema_3(tmp_path / "w.db")
    if schema == 8:
        _as_schema_8(tmp_path / "w.db")
    if schema == 10:
        as_schema_10(tmp_path / "w.db")
    store = open_store(str(tmp_path / "w.db"))
    assert type(store.name_lookup()).__name__ == ("SQLNames" if schema != 3 else "NameIndex")
    try:
        assert {"exact", "normalised", "typo", "ambiguous", "suggested"} <= _outcomes(cat, store)
    finally:
        store.close()


def _plan(store: Any, where: str, params: list[Any]) -> str:
    return " ".join(str(r[-1]) for r in store.db.rows(f"EXPLAIN QUERY PLAN SELECT n.entity_ord FROM names n WHERE {where}", params))


def test_every_label_lookup_searches_the_names_key(tmp_path):
    """A SQLite store of schema 9 keeps ``names`` in one B-tree keyed (digits, flen, fold, ...) and no index
    beside it: each lookup (a label, a fold, a near miss's digits and length band) names a prefix of that key, so none
    scans the table (1M-relation world: 3M rows). The rows hold the digits and length of their own fold, which the
    lookups compute from the fold they ask for, and no type (the entity's, which the lookups read); 11 no normalised
    label either (``schema.SQLITE_NAMES``). Negative control: the schema-8 condition (the fold without its digits and
    length) scans the table."""
    from chainret.catalog.names import digits_of
    from chainret.store.schema import digits_key
    from chainret.store.sql import fold_key

    compile_store(SUPPLY, tmp_path / "w.db")
    store = open_store(str(tmp_path / "w.db"))
    try:
        rows = store.db.rows("SELECT fold, digits, flen FROM names")
        assert rows and all((digits, flen) == (digits_key(digits_of(fold)), len(fold)) for fold, digits, flen in rows)
        assert {type(r[1]) for r in rows} == {int, str}  # (84 for 'V-12''s '12', '' for 'Relief valve')
        assert [r[1] for r in store.db.rows("PRAGMA table_info(names)")] == ["digits", "flen", "fold", "entity_ord", "doc_id"]
        assert not store.names_typed and store.packed_names
        assert not store.db.rows("SELECT name FROM sqlite_schema WHERE tbl_name = 'names' AND type = 'index' AND sql IS NOT NULL")
        named, params = store.label_key("Relief Valve")
        fold, fp = fold_key(name_key("relief-valve"))
        for where, ps in ((named, params), (fold, fp), ("n.digits = ? AND n.flen BETWEEN ? AND ?", ["84", 2, 6])):
            plan = _plan(store, where, ps)
            assert "SEARCH n USING PRIMARY KEY (digits=?" in plan and "SCAN" not in plan, (where, plan)
        assert "SCAN n" in _plan(store, "n.fold = ?", ["reliefvalve"])
    finally:
        store.close()


def test_a_missed_candidate_is_caught():
    """The comparison can fail: an index that drops one entity's labels gives another answer than the scan."""
    cat = _world()
    cv = open_view(cat, None, "public")
    lookup = cat.name_lookup
    lookup._key = {k: [p for p in v if lookup.entries[p].id != "part:supply:twin"] for k, v in lookup._key.items()}
    try:
        old = resolve_scan("relief-valve", "part", cv, {"part"}, list(cat.entities))
        new = resolve_mention("relief-valve", "part", cv, {"part"})
        assert [e.id for e in old.entities] != [e.id for e in new.entities]
    finally:
        del cat.__dict__["name_lookup"]


def test_a_schema_3_store_is_read_but_not_updated(tmp_path):
    """Appending rows of the new layout to the old names table would fail half-way: it is refused first."""
    from chainret.store.base import StoreError

    compile_store(SUPPLY, tmp_path / "w.db")
    _as_schema_3(tmp_path / "w.db")
    with pytest.raises(StoreError, match="schema 3.*recompile the store: chainret catalog compile CATALOG --out .* --replace"):
        compile_store(SUPPLY, tmp_path / "w.db", update=True)


def _respaced(text: str, rng: random.Random) -> str:
    """``text`` with each whitespace run replaced by another and each character's case flipped at random."""
    out = []
    for part in re.split(r"(\s+)", text):
        if part.isspace():
            out.append(rng.choice([" ", "  ", "\t", "\n", "\u00a0 "]))
        else:
            out.append("".join(c.swapcase() if rng.random() < 0.5 else c for c in part))
    return rng.choice(["", " "]) + "".join(out) + rng.choice(["", "\n"])


def test_labels_of_one_normalised_form_share_one_fold() -> None:
    """A SQLite store keys ``names`` by (fold, key, ...) and looks a label up by both (``SQLStore.label_key``: the fold of
    the asked text, beside its normalised form): that finds every row of the key only if all labels of one normalised
    form have one fold. Checked over labels with marks, digits, non-ASCII letters and their case and spacing variants;
    the negative control: a fold that kept the case (``name_key`` without its case folding) tells them apart."""
    from chainret.catalog.models import normalize_name

    rng = random.Random(47)
    alphabet = "aZ ß-./_:9İıﬁΣσς'é\u0301\t"
    pairs = 0
    split = 0
    for _ in range(5000):
        a = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
        b = _respaced(a, rng)
        if normalize_name(a) != normalize_name(b):
            continue
        pairs += 1
        assert name_key(a) == name_key(b), (a, b)
        split += re.sub(r"[\W_]+", "", a) != re.sub(r"[\W_]+", "", b)  # (the control: case kept)
    assert pairs > 1000 and split > 100


def test_a_label_is_checked_against_the_labels_its_row_was_written_from(tmp_path):
    """A SQLite store of schema 11 keeps a label row's fold, not its normalised label (``schema.SQLITE_NAMES``): a lookup
    reads the rows of the label's fold and keeps those whose entity has the label (``SQLStore.named_rows``). A label of
    another normalised form and the same fold ('Reliefvalve' beside 'Relief valve') resolves only its own entity, in
    the store as in memory, for the public and for a reader of the restricted document. Negative control: the rows the
    statement reads for 'Relief valve' hold the other entity too, which the check drops."""
    base = _world()
    public = next(d for d in base.documents if d.visibility == "public")
    other = Entity(id="part:supply:fold", type="part", name="Reliefvalve")
    rel = Relation(id="sup-fold", subject=other.id, predicate="supplied_by", object="org:supply:harbor",
                   support=Support(source=public.source, document=public.document, version=public.version,
                                   digest=public.digest, span=(0, 5), quote=public.text[:5]))
    cat = changed(base, entities=[*base.entities, other], relations=[*base.relations, rel])
    compile_store(cat, tmp_path / "w.db")
    store = open_store(str(tmp_path / "w.db"))
    try:
        assert store.packed_names
        for principal in sorted({"public", *(p for d in cat.documents for p in d.principals)}):
            for text in ("Relief valve", "RELIEF  VALVE", "Reliefvalve", "reliefVALVE", "relief-valve"):
                want = [e.id for e in open_view(cat, None, principal).resolve(text, type="part")]
                assert [e.id for e in store.view(None, principal).resolve(text, type="part")] == want, (principal, text)
        assert [e.id for e in store.view(None, "public").resolve("Relief valve", type="part")] == ["part:supply:twin", "part:supply:valve"]
        named, params = store.label_key("Relief valve")
        read = store.db.rows(f"SELECT DISTINCT e.id, e.type, e.name, e.aliases{store.label_columns()} FROM names n "
                             "JOIN entities e ON e.ord = n.entity_ord "
                             f"WHERE {named} AND e.type = 'part'", params)
        assert {r[0] for r in read} == {"part:supply:twin", "part:supply:valve", other.id}
        assert {r[0] for r in store.named_rows(read, "Relief valve")} == {"part:supply:twin", "part:supply:valve"}
    finally:
        store.close()


def test_digits_keep_one_key_each():
    """A store of schema 11 keeps a fold's digits as the integer they write where it writes them back, else as text
    (``schema.digits_key``): equal digits one key, unequal ones unequal (a leading zero, '', 19 digits). Negative
    control: the integer alone gives '007' and '7' one key."""
    from chainret.store.schema import digits_key

    digits = ["", "0", "00", "007", "7", "70", "12", "0012", "999999999999999999", "1" * 19, "01" * 10, "1000000"]
    keys = [digits_key(d) for d in digits]
    assert len(set(map(repr, keys))) == len(digits)
    assert keys[digits.index("1000000")] == 1000000 and keys[digits.index("007")] == "007" and keys[0] == ""
    assert len({int(d) for d in ("007", "7")}) == 1
