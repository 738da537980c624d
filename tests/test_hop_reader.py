"""What the engine reads (``chainret.engine.reader.HopReader``): the list reader's projection and the engine's own checks.

A reader answers as the principal's projection would; the engine still re-derives every usable relation's
statement from its quote, so a reader's flags never advance a hop on their own. Each guard has its control.
"""

from __future__ import annotations

from engine_rels import rel

from chainret.catalog.models import Entity
from chainret.engine.hops import HopWorld, run_chain
from chainret.engine.reader import RelationList
from chainret.engine.search import LexicalIndex
from chainret.trace.model import Budget

UNIT = ("d@v1#u1", "REL p:w:a | operated_by | o:w:n")


def test_a_unit_the_index_does_not_hold_supports_nothing_there():
    reader = RelationList(LexicalIndex([UNIT]), [rel("r1", "p:w:a", "operated_by", "o:w:n", "d@v1#u1"),
                                                 rel("r2", "p:w:a", "operated_by", "o:w:m", "x@v1#u9")])
    world = HopWorld(reader)
    assert [r.id for r in world.in_unit("d@v1#u1")] == ["r1"]  # control: a readable unit's relations are there
    assert reader.in_unit("x@v1#u9") == () and world.in_unit("x@v1#u9") == ()
    assert not reader.readable("x@v1#u9")
    assert [r.id for r in world.of_subject("p:w:a", "operated_by")] == ["r1", "r2"]  # the catalog-level check sees both


def _prose(quote: str):
    r = rel("r1", "p:w:a", "operated_by", "o:w:n", "d@v1#u1")
    return r._replace(support=r.support.model_copy(update={"support_kind": "prose", "quote": quote}))


NAMES = {"p:w:a": Entity(id="p:w:a", type="p", name="Alpha"), "o:w:n": Entity(id="o:w:n", type="o", name="Northwind")}


def test_a_prose_quote_must_name_both_ends_by_the_readers_names():
    units = [("d@v1#u1", "p:w:a Alpha is operated by Northwind")]
    named = HopWorld(RelationList(LexicalIndex(units), [_prose("Alpha is operated by Northwind")], entities=NAMES))
    run, path = run_chain(named, "p:w:a", ["operated_by"], Budget())
    assert path is not None and [r.id for r in path] == ["r1"]  # control: names the reader knows state the step
    unnamed = HopWorld(RelationList(LexicalIndex(units), [_prose("Alpha is operated by Northwind")]))
    run, path = run_chain(unnamed, "p:w:a", ["operated_by"], Budget())
    assert path is None  # no names to check the sentence against: it states nothing, whatever the flags say
    assert run.hops[0].refusal.details["rejected"][0]["why"] == "prose_mismatch"


def test_the_readers_valid_flag_does_not_advance_a_hop_whose_clause_says_otherwise():
    forged = rel("r1", "p:w:a", "operated_by", "o:w:n", "d@v1#u1")
    forged = forged._replace(object="o:w:evil")  # flagged valid by the reader, its clause names o:w:n
    world = HopWorld(RelationList(LexicalIndex([UNIT]), [forged]))
    run, path = run_chain(world, "p:w:a", ["operated_by"], Budget())
    assert path is None and run.hops[0].refusal.details["rejected"][0]["why"] == "clause_mismatch"
    honest = HopWorld(RelationList(LexicalIndex([UNIT]), [rel("r1", "p:w:a", "operated_by", "o:w:n", "d@v1#u1")]))
    assert run_chain(honest, "p:w:a", ["operated_by"], Budget())[1] is not None  # control
