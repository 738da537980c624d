"""Coverage asks of CODEOWNERS said of one folder, and coverage wordings with a filler at their end (issue 44).

"which files under payments/ have no code owner": the files below that folder whose last matching rule names no owner
(or that no rule matches), each citing the rule line it was checked against; a folder no file of the view is under reads
as nothing. "which owner refs are broken today": a filler at the end of a coverage ask ("today", "right now", "please")
reads as the ask without it. Each rule has its negative control beside it: a file outside the folder left out, a folder
of no file left unread, the rule switched off, and the reduced catalog (a reader who may not read a document gets the
answer of the catalog without it).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from records_world import answer_names, imported, unread
from store_worlds import close_stores, pg_url, same_in_every_store, three_stores  # noqa: F401

from chainret.catalog.load import load_catalog
from chainret.catalog.readable import reader_catalog
from chainret.pipeline.ask import ask
from chainret.query import gaps as gaps_mod
from chainret.query import lacks as lacks_mod

CODEOWNERS = """# the last matching rule wins
*                   @acme/platform
/payments/          @acme/payments
/payments/refunds/
/legacy/
"""
FILES = {
    ".github/CODEOWNERS": CODEOWNERS,
    "payments/gateway/gateway.py": "print('gw')\n",
    "payments/refunds/refunds.py": "print('refunds')\n",
    "payments/refunds/rules.sql": "select 1;\n",
    "legacy/old.php": "<?php\n",
    "storefront/app.tsx": "export {};\n",
    "catalog/items.py": "print('items')\n",  # a folder named by a place word
}


def _doc(kind: str, name: str, spec: str) -> str:
    return f"apiVersion: backstage.io/v1alpha1\nkind: {kind}\nmetadata:\n  name: {name}\nspec:\n  type: service\n{spec}"


DESCRIPTORS = {
    "catalog-info.yaml": [_doc("Group", "platform", "  children: []\n"), _doc("Group", "payments", "  children: []\n"),
                          _doc("Component", "gateway", "  owner: payments\n"),
                          _doc("Component", "refunds", "  owner: ghost-team\n")],
    # a team only one reader may know: to everyone else the component that names it names an owner that resolves to nothing
    "internal/catalog-info.yaml": [_doc("Group", "ghost-team", "  children: []\n")],
}
HEADER = ("format: chainret-source/1\nworld: acme\ndocuments:\n"
          "  - path: backstage/internal/catalog-info.yaml\n    visibility: restricted\n    principals: [hr]\n"
          "  - path: codeowners/.github/CODEOWNERS\n    visibility: restricted\n    principals: [eng]\n")


def _tree(root: Path, header: str | None) -> Path:
    for rel, text in {**FILES, **{k: "\n---\n".join(v) for k, v in DESCRIPTORS.items()}}.items():
        (root / "tree" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "tree" / rel).write_text(text, encoding="utf-8")
    src = None
    if header is not None:
        src = root / "src"
        src.mkdir()
        (src / "chainret.yaml").write_text(header, encoding="utf-8")
    imported(root / "tree", root / "cat.yaml", ["backstage", "codeowners"], src=src)
    return root / "cat.yaml"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _tree(tmp_path_factory.mktemp("folders"), None)


@pytest.fixture(scope="module")
def restricted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _tree(tmp_path_factory.mktemp("folders-restricted"), HEADER)


def _files(words: str, catalog: Path, **kw: str) -> set[str]:
    trace = ask(words, catalog, **kw)  # type: ignore[arg-type]
    assert trace.outcome == "accepted_path", (words, trace.reason)
    section = trace.meta["coverage"]
    return {row["name"] for row in section["rows"]}


REFUNDS = {"payments/refunds/refunds.py", "payments/refunds/rules.sql"}


@pytest.mark.parametrize("words", [
    "which files under payments/ have no code owner",
    "which files under /payments/ have no code owner?",
    "unowned files in payments",
    "files in the payments folder without a code owner",
    "which paths under payments have no codeowners",
    "which files does nobody review under payments/",
])
def test_a_files_ask_of_a_folder_keeps_the_files_below_it(world: Path, words: str) -> None:
    # the control: legacy/old.php has no code owner either, and is not below payments/
    assert _files(words, world) == REFUNDS
    assert "legacy/old.php" in _files("which files have no code owner", world)


def test_a_folder_row_cites_the_rule_line_it_was_checked_against(world: Path) -> None:
    trace = ask("which files under payments/refunds have no code owner", world)
    section = trace.meta["coverage"]
    assert section["kind"] == "files_without_owners" and section["folder"] == "payments/refunds/"
    assert {r["name"] for r in section["rows"]} == REFUNDS
    for row in section["rows"]:
        assert any("/payments/refunds/" in c["text"] for c in row["cites"]), row
    assert {i.doc_id for i in trace.packet.items} == {"codeowners/.github/CODEOWNERS@v1"}
    # a folder whose files all have an owner: no row, and still the folder's ask (not every file's)
    assert _files("which files under storefront/ have no code owner", world) == set()


def test_a_place_word_is_a_folder_only_with_its_slash(world: Path) -> None:
    trace = ask("which files under catalog/ have no code owner", world)
    assert trace.outcome == "accepted_path" and trace.answers == [] and trace.meta["coverage"]["folder"] == "catalog/"
    # the control: said without its slash, "in the catalog" is where the records are kept, and every file is asked about
    assert _files("which files in the catalog have no code owner", world) == {*REFUNDS, "legacy/old.php"}


@pytest.mark.parametrize("words", [
    "which files under nowhere/ have no code owner",  # no file of the view is below it
    "which files under pay/ have no code owner",  # a prefix of a folder's name is no folder
    "which components under payments/ have no owner",  # the folder reading is the files' only
    "which codeowners rules under payments/ have no owners",
])
def test_a_folder_of_no_file_or_of_no_files_ask_is_unread(world: Path, words: str) -> None:
    assert unread(words, world)


def test_without_the_folder_rule_a_folder_ask_is_unread(world: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The negative control: the folder said reads as nothing else (never as every file without an owner)."""
    monkeypatch.setattr(gaps_mod, "_in_folder", lambda text: None)
    assert unread("which files under payments/ have no code owner", world)
    assert "legacy/old.php" in _files("which files have no code owner", world)


# -- a filler at the end of a coverage ask ----------------------------------------------------------------------------
@pytest.mark.parametrize(("words", "expected"), [
    ("which owner refs are broken today", {"default.ghost-team"}),
    ("which owner refs point at nothing right now", {"default.ghost-team"}),
    ("which owners don't exist", {"default.ghost-team"}),
    ("components owned by a team that doesn't exist today", {"default.refunds"}),
])
def test_a_coverage_ask_reads_with_a_filler_at_its_end(restricted: Path, words: str, expected: set[str]) -> None:
    assert answer_names(words, restricted) == expected


@pytest.mark.parametrize("words", ["which paths are not covered by codeowners", "files nobody reviews today"])
def test_files_not_covered_or_reviewed_are_the_files_without_a_code_owner(restricted: Path, words: str) -> None:
    assert _files(words, restricted, principal="eng") == {*REFUNDS, "legacy/old.php"}
    assert unread("which paths are covered by codeowners", restricted)  # the control: the positive is no such ask


def test_without_the_filler_rule_a_trailing_filler_is_unread(restricted: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The negative control: the grammar itself reads no "today"."""
    monkeypatch.setattr(gaps_mod, "without_fillers", lambda text: text)
    monkeypatch.setattr(lacks_mod, "without_fillers", lambda text: text)
    assert unread("which owner refs are broken today", restricted)
    assert not unread("which owner refs are broken", restricted)


# -- who may know: the reduced catalog and every store ----------------------------------------------------------------
LEAK_ASKS = ("which files under payments/ have no code owner", "unowned files in legacy", "which owner refs are broken today",
             "which components point at an owner that doesn't exist", "which files have no code owner")


def test_a_reader_who_may_not_read_a_document_gets_the_answer_of_the_catalog_without_it(restricted: Path) -> None:
    cat = load_catalog(restricted)
    for principal in ("public", "hr", "eng"):
        reduced = reader_catalog(cat, principal)
        for words in LEAK_ASKS:
            full, alone = ask(words, cat, principal=principal), ask(words, reduced, principal=principal)
            assert (full.outcome, full.answers, full.reason) == (alone.outcome, alone.answers, alone.reason), (principal, words)
    # controls: the folder's files are known to the reader of CODEOWNERS only; the ghost team is declared to hr only
    assert unread("which files under payments/ have no code owner", restricted)
    assert _files("which files under payments/ have no code owner", restricted, principal="eng") == REFUNDS
    assert answer_names("which owner refs are broken", restricted) == {"default.ghost-team"}
    assert ask("which owner refs are broken", restricted, principal="hr").answers == []


def test_every_store_answers_a_folder_ask_alike(restricted: Path, tmp_path: Path, pg_url: str) -> None:  # noqa: F811
    cat = load_catalog(restricted)
    stores = three_stores(cat, tmp_path, pg_url)
    try:
        for principal in ("public", "eng"):
            for words in LEAK_ASKS[:2]:
                same_in_every_store(stores, words, principal=principal)
    finally:
        close_stores(stores)
