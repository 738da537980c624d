"""A request that names only the first word(s) of a name ("Bob" for "Bob Smith") is refused with the readable
names it may mean (did you mean), never answered; a name the viewer may not know is never offered."""

from __future__ import annotations

import pytest

from chainret.catalog.load import load_catalog
from chainret.catalog.models import Catalog, Entity
from chainret.pipeline.ask import ask
from chainret.query import interpret as interpret_mod


@pytest.fixture(scope="module")
def two_mains() -> Catalog:
    """The default catalog with PR-85 renamed "Main annex" (so "Main" starts two names) and an entity named
    "Main depot" that no readable document mentions."""
    cat = load_catalog("catalogs/default.yaml")
    ents = [e.model_copy(update={"name": "Main annex"}) if e.id == "project:final:side" else e for e in cat.entities]
    ghost = Entity(id="project:final:ghost", type="project", name="Main depot")
    return cat.model_copy(update={"entities": [*ents, ghost]})


def test_a_first_name_is_refused_with_the_names_it_may_mean(two_mains: Catalog) -> None:
    trace = ask("Which contact serves Main?", two_mains)
    assert trace.outcome == "refused" and trace.reason is not None and trace.reason.code == "unknown_entity"
    suggested = [s["id"] for s in trace.reason.details["suggestions"]]
    assert suggested[:2] == ["project:final:side", "project:final:main"]  # by name: Main annex, Main programme
    assert "project:final:ghost" not in suggested and "Main depot" not in trace.reason.message  # not known to public
    assert "did you mean" in trace.reason.message


def test_one_name_that_a_first_word_starts_is_still_not_answered() -> None:
    cat = load_catalog("catalogs/default.yaml")
    trace = ask("Which contact serves Harbour?", cat)  # only "Harbour programme" starts so
    assert trace.outcome == "refused" and trace.reason is not None
    assert [s["id"] for s in trace.reason.details["suggestions"]][0] == "project:final:east"


def test_without_the_rule_a_first_name_gets_no_suggestion(two_mains: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(interpret_mod, "name_completions", lambda *a, **k: [])  # the negative control
    trace = ask("Which contact serves Main?", two_mains)
    assert trace.outcome == "refused" and trace.reason is not None
    assert "project:final:main" not in [s["id"] for s in trace.reason.details.get("suggestions", [])]
