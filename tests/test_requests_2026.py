"""The 2026-12 request set: its split is fixed, and no rule or word list quotes a test-half request.

The test half is only scored, never tuned on; a string under chainret/ that contains a test request
verbatim (case and spacing aside) would be tuning on it.
"""

from __future__ import annotations

from pathlib import Path

from chainret.evaluate.requests import load_request_set
from support.quotes import chainret_strings, norm, quoted

ROOT = Path(__file__).resolve().parents[1]
SET = ROOT / "fixtures" / "requests-2026-12"


def test_split_is_even_disjoint_and_covers_every_kind() -> None:
    dev, test = load_request_set(SET / "dev.yaml"), load_request_set(SET / "test.yaml")
    assert len(dev.requests) + len(test.requests) >= 400
    assert abs(len(dev.requests) - len(test.requests)) <= 1
    keys = {(r.world, r.request) for r in dev.requests}
    assert not keys & {(r.world, r.request) for r in test.requests}
    for part in (dev, test):
        assert {r.kind for r in part.requests} == {"paraphrase", "multihop", "refuse"}
        assert {r.source for r in part.requests} == {"user", "wordnet", "public"}


def test_no_string_in_chainret_quotes_a_test_request() -> None:
    test = load_request_set(SET / "test.yaml")
    assert quoted([r.request for r in test.requests], chainret_strings(ROOT / "chainret")) == []


def test_the_quote_check_finds_a_quoted_request() -> None:
    # negative control: a rule string that quotes a request (other case and spacing) is found
    request = load_request_set(SET / "test.yaml").requests[0].request
    assert quoted([request], [norm(f"PHRASES = ['{request.upper()}  ']")]) == [request]
    assert quoted([request], [norm("who is on call for {service}")]) == []


def test_a_first_name_is_offered_only_to_a_reader_of_the_name() -> None:
    """The development half's first-name case names its principal: Breanna's name is only in the profiles HR may read,
    so HR is offered her and a public reader is offered nobody by that name (the case once asked for the offer to
    public, which would have shown a name public may not read)."""
    from chainret.evaluate.requests import open_world
    from chainret.pipeline.ask import ask

    dev = load_request_set(SET / "dev.yaml")
    case = next(r for r in dev.requests if r.request == "which team is Breanna in?")
    assert case.principal == "hr" and case.suggest == "user:acme:default.breanna.davison"
    catalog = open_world(dev.worlds["acme"], ROOT)
    offered = {}
    for who in ("hr", "public"):
        trace = ask(case.request, catalog, principal=who)
        assert trace.outcome == "refused" and trace.reason is not None and trace.reason.code == "unknown_entity"
        offered[who] = [s["id"] for s in trace.reason.details.get("suggestions", [])]
    assert offered["hr"] == [case.suggest] and offered["public"] == []
