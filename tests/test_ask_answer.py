"""``answer``: the trace and what the CLI and the server show beside it, read in the same request.

After a request the CLI's answer line and the server's response need the path's display names (as
the viewer sees them) and, for an unmatched request, the closest phrasings. ``answer`` returns them
with the trace, so neither goes back into the catalog after ``ask``; and the request's effective
budget is computed once (by the run) and recorded on the trace.
"""

from __future__ import annotations

import ast
from pathlib import Path

import chainret
from chainret.pipeline.ask import answer, ask, path_names
from chainret.core.budget import effective_budget, fanout_budget
from chainret.catalog.load import default_catalog_path, load_world
from chainret.query.interpret import pattern_specs
from chainret.catalog.patterns import suggest_phrasings
from chainret.core.session import Session
from chainret.trace.model import Budget

ROOT = Path(chainret.__file__).parent


def _untimed(trace):  # noqa: ANN001, ANN202 - a trace's JSON without its timing
    return trace.model_copy(update={"meta": {k: v for k, v in trace.meta.items() if k != "ask_ms"}}).to_json()


def test_answer_carries_the_path_names_and_the_same_trace() -> None:
    cat = load_world(default_catalog_path()).catalog
    s = Session()
    got = answer("Which contact serves PR-84?", cat, session=s)
    assert got.trace.outcome == "accepted_path" and got.suggestions == []
    assert got.names == path_names(got.trace, cat, s) and set(got.names) == set(got.trace.path_ids or [])
    assert _untimed(got.trace) == _untimed(ask("Which contact serves PR-84?", cat, session=s))


def test_answer_carries_the_closest_phrasings_of_an_unmatched_request() -> None:
    cat = load_world(default_catalog_path()).catalog
    got = answer("Who supplies the northern desk with lunch?", cat)
    assert got.trace.outcome == "no_pattern" and got.names == {}
    assert got.suggestions and got.suggestions == suggest_phrasings(got.trace.request, pattern_specs(cat))


def test_the_trace_records_the_budget_the_run_used() -> None:
    cat = load_world(default_catalog_path()).catalog
    trace = ask("Which contact serves PR-84?", cat)  # operated_by (one value), then contact (a set)
    assert trace.budget == effective_budget(fanout_budget(Budget(), [False, True]), 2)
    single = ask("Which contact serves PR-84?", cat, sets=False)  # control: the one-path rule runs under the plain defaults
    assert single.answers is None and single.budget == effective_budget(Budget(), 2)


def test_the_cli_and_the_server_do_not_go_back_for_names_or_suggestions() -> None:
    for rel in ("cli/ask_cmds.py", "cli/ask_run.py", "server/service.py"):
        tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"))
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        used |= {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
        assert not used & {"path_names", "suggest_phrasings", "ask"}, rel
