"""Counts, yes/no and the empty set (issue 44) keep the permission promise and read alike in every store.

A records tree whose internal descriptors only ``hr`` may read: a member of growth, a component without an owner and
one growth owns are declared there. For each reader, each ask over the whole catalog must answer what the same ask
answers over the reader's reference catalog (the catalog with every document they may not read deleted): the same
outcome, members, number, yes/no and completeness. The catalog in memory, a SQLite file and a PostgreSQL schema give
byte-identical traces, and no trace shown to the public holds a string only the internal file holds.

The control beside each: ``hr`` gets another number, a ``yes`` and a member where the public reader gets fewer, a
``not known`` or ``none``, so the restricted file decides those answers and the equalities above can fail.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from records_world import descriptor, imported, user
from store_worlds import close_stores, pg_url, same_in_every_store, three_stores, trace_json  # noqa: F401

from benchmarks.harness.local_server import hidden_strings
from chainret.catalog.load import load_catalog
from chainret.catalog.readable import reader_catalog
from chainret.pipeline.ask import ask
from chainret.render.answers import count_words

HEADER = ("format: chainret-source/1\nworld: acme\ndocuments:\n  - path: backstage/internal/catalog-info.yaml\n"
          "    visibility: restricted\n    principals: [hr]\n")


OWNER = "  owner: {}\n"
PUBLIC = [descriptor("Group", "platform"), descriptor("Group", "growth"), descriptor("Group", "quiet"),
          user("ana", "Ana Lima", ["platform"]), user("bo", "Bo Chen", ["platform", "growth"]),
          descriptor("Component", "gateway", OWNER.format("platform")), descriptor("Component", "pager", OWNER.format("platform")),
          descriptor("Component", "metrics-lib")]
INTERNAL = [user("dee", "Dee Park", ["growth"]), descriptor("Component", "vault"),
            descriptor("Component", "ledger", OWNER.format("growth"))]

# (ask, what the public reader gets, what hr gets): a count's words, a yes/no's holds, a set's members (None: no
# answer; a team that owns nothing readable has no supported relation to follow, which is no proof that it owns none)
ASKS = [
    ("how many people are on growth?", "1", "2"),
    ("how many components have no owner?", "1", "2"),
    ("how many teams have no members?", "1", "1"),
    ("is Bo on growth?", True, True),
    ("is Ana on growth?", False, False),
    ("does platform own gateway?", True, True),
    ("which components does growth own?", None, "ledger"),
    ("which components have no owner?", "metrics-lib", "metrics-lib, vault"),
]
HR_ONLY = [("is Dee on growth?", True), ("does growth own ledger?", True)]  # names only hr's file declares


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("parity")
    tree = tmp / "tree"
    (tree / "internal").mkdir(parents=True)
    (tree / "catalog-info.yaml").write_text("\n---\n".join(PUBLIC), encoding="utf-8")
    (tree / "internal" / "catalog-info.yaml").write_text("\n---\n".join(INTERNAL), encoding="utf-8")
    (tmp / "src").mkdir()
    (tmp / "src" / "chainret.yaml").write_text(HEADER, encoding="utf-8")
    out = tmp / "cat.yaml"
    imported(tree, out, ["backstage"], src=tmp / "src")
    return out


def _shown(trace: object) -> object:
    """What an ask answers: its number, its yes/no, else its members' last ID parts."""
    number = count_words(trace)  # type: ignore[arg-type]
    if number is not None:
        return number
    check = trace.meta.get("check")  # type: ignore[attr-defined]
    if check is not None:
        return check["holds"]
    members = sorted(a.id.rpartition(".")[2] for a in trace.answers or [])  # type: ignore[attr-defined]
    return ", ".join(members)


def _ids(text: str) -> set[str]:
    """Every ``default.<name>`` an entity ID of this world ends with, as a trace's JSON holds it."""
    import re

    return set(re.findall(r"default\.[a-z-]+", text))


def _facts(trace: object) -> tuple[object, ...]:
    t = trace
    return (t.outcome, [a.id for a in t.answers or []], t.reason.code if t.reason else None,  # type: ignore[attr-defined]
            t.meta.get("count"), t.meta.get("check"), t.completeness)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("words", "public", "hr"), ASKS)
def test_each_reader_gets_what_their_reference_catalog_answers(catalog: Path, words: str, public: object, hr: object) -> None:
    cat = load_catalog(catalog)
    for principal, want in (("public", public), ("hr", hr)):
        full = ask(words, cat, principal=principal)
        assert (full.outcome == "accepted_path") is (want is not None), (principal, words, full.reason)
        assert want is None or _shown(full) == want, (principal, words)
        assert _facts(full) == _facts(ask(words, reader_catalog(cat, principal), principal=principal)), (principal, words)


@pytest.mark.parametrize(("words", "holds"), HR_ONLY)
def test_a_name_only_a_restricted_file_declares_is_unknown_to_the_public_reader(catalog: Path, words: str, holds: bool) -> None:
    cat = load_catalog(catalog)
    seen = ask(words, cat, principal="hr")
    assert seen.outcome == "accepted_path" and seen.meta["check"]["holds"] is holds  # the control: hr reads it
    public = ask(words, cat)
    assert public.outcome != "accepted_path" and "check" not in public.meta
    assert _facts(public)[:3] == _facts(ask(words, reader_catalog(cat, "public")))[:3]
    text = trace_json(public)
    assert [s for s in hidden_strings(cat, "public") if s in text] == []
    assert "default.dee" not in text and "default.ledger" not in text  # (the words asked are the asker's own)


def test_no_public_trace_holds_what_only_the_restricted_file_holds(catalog: Path) -> None:
    cat = load_catalog(catalog)
    secrets = hidden_strings(cat, "public")
    assert secrets  # the control: the internal file holds paragraphs of its own
    for words, _, _ in ASKS:
        text = trace_json(ask(words, cat))
        assert [s for s in secrets if s in text] == [], words
        assert not {"default.dee", "default.vault", "default.ledger"} & {w for w in _ids(text)}, words
    assert "default.vault" in trace_json(ask("which components have no owner?", cat, principal="hr"))  # the control


def test_memory_sqlite_and_postgres_give_the_same_traces(catalog: Path, tmp_path: Path, pg_url: str) -> None:  # noqa: F811
    cat = load_catalog(catalog)
    stores = three_stores(cat, tmp_path, pg_url)
    try:
        for principal in ("public", "hr"):
            for words in [w for w, _, _ in ASKS] + [w for w, _ in HR_ONLY]:
                same_in_every_store(stores, words, principal=principal)
    finally:
        close_stores(stores)
