"""A request that carries its time ("on 2025-12-01", "as of March 2026", "last month") is answered in the view
those words name: the last view on or before the day, by the one view resolver; the trace records the words,
the day, the view and the reference date, and replays the same. Negative controls beside each rule."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chainret.catalog.load import load_catalog
from chainret.catalog.models import Catalog
from chainret.catalog.views import as_of_view, view_at, view_day
from chainret.pipeline.ask import ask
from chainret.store import resolve_catalog
from chainret.store.base import CatalogReader
from chainret.query.when import present_variants, read_time
from chainret.verify.replay import verify

TODAY = date(2026, 12, 6)
DESK, FIELD = "contact:final:desk", "contact:final:field"  # the default catalog's answer in its first and second view


@pytest.fixture(scope="module")
def dated() -> Catalog:
    """The default catalog with its two views named by month and by day (not by a history's commits)."""
    cat = load_catalog("catalogs/default.yaml")
    first, second = sorted(cat.views, key=lambda v: v.order)
    return cat.model_copy(update={"views": [first.model_copy(update={"name": "2025-11"}),
                                            second.model_copy(update={"name": "2026-03-15"})]})


@pytest.mark.parametrize(("words", "phrase", "day"), [
    ("Which contact serves PR-84 on 2025-12-01?", "on 2025-12-01", date(2025, 12, 1)),
    ("As of 3 November 2025, which contact serves PR-84?", "As of 3 November 2025", date(2025, 11, 3)),
    ("Which contact served PR-84 back in November 2025?", "back in November 2025", date(2025, 11, 30)),
    ("Which contact serves PR-84 at the start of January 2026?", "at the start of January 2026", date(2026, 1, 1)),
    ("Which contact serves PR-84 in December?", "in December", TODAY),  # the month not over yet: today
    ("Which contact serves PR-84 in May?", "in May", date(2026, 5, 31)),  # the latest May that has begun
    ("Which contact serves PR-84 last month?", "last month", date(2026, 11, 30)),
    ("Which contact serves PR-84 3 weeks ago?", "3 weeks ago", date(2026, 11, 15)),
    ("Which contact serves PR-84 on March 2nd, 2026?", "on March 2nd, 2026", date(2026, 3, 2)),
    # a day without its year (the latest such day on or before today), a quarter, "a couple of", "the year"'s edge
    ("Which contact served PR-84 on March 3rd?", "on March 3rd", date(2026, 3, 3)),
    ("Which contact served PR-84 on the 3rd of March?", "on the 3rd of March", date(2026, 3, 3)),
    ("Which contact served PR-84 on December 25?", "on December 25", date(2025, 12, 25)),
    ("Which contact served PR-84 back in Q1?", "back in Q1", date(2026, 3, 31)),
    ("Which contact served PR-84 in Q4 2025?", "in Q4 2025", date(2025, 12, 31)),
    ("Which contact served PR-84 a couple of months ago?", "a couple of months ago", date(2026, 10, 6)),
    ("Which contact served PR-84 at the start of the year?", "at the start of the year", date(2026, 1, 1)),
    ("Which contact served PR-84 on the 3rd of May 2025?", "on the 3rd of May 2025", date(2025, 5, 3)),  # its year kept
    # "before" a time: the last day before it begins (a period's first day), whatever the period
    ("Which contact served PR-84 before March?", "before March", date(2026, 2, 28)),
    ("Which contact served PR-84 prior to 2026-03-01?", "prior to 2026-03-01", date(2026, 2, 28)),
    ("Which contact served PR-84 just before Q2 2025?", "just before Q2 2025", date(2025, 3, 31)),
    ("Which contact served PR-84 before 2025?", "before 2025", date(2024, 12, 31)),
    ("Which contact served PR-84 before last month?", "before last month", date(2026, 10, 31)),
    ("Which contact served PR-84 before the 3rd of May?", "before the 3rd of May", date(2026, 5, 2)),
    # a season (meteorological, northern hemisphere): its end, its first day kept (below: the records must agree over it)
    ("Which contact served PR-84 last spring?", "last spring", date(2026, 5, 31)),
    ("Which contact served PR-84 in the summer of 2025?", "in the summer of 2025", date(2025, 8, 31)),
    ("Which contact served PR-84 last winter?", "last winter", date(2026, 2, 28)),  # December 2025 to February 2026
    ("Which contact served PR-84 in the autumn?", "in the autumn", date(2026, 11, 30)),  # the latest begun (and over)
    ("Which contact served PR-84 in early spring?", "in early spring", date(2026, 3, 1)),  # an edge: one day, no range
    # a month said with "this year" / "last year", and a part of a relative period with no preposition before it
    ("Which contact served PR-84 in November last year?", "in November last year", date(2025, 11, 30)),
    ("Which contact served PR-84 in March of this year?", "in March of this year", date(2026, 3, 31)),
    ("Which contact served PR-84 november last year", "november last year", date(2025, 11, 30)),
    ("Which contact served PR-84 early this year?", "early this year", date(2026, 1, 1)),
    ("Which contact served PR-84 late last year?", "late last year", date(2025, 12, 31)),
    # a named event set off beside the date: the date is read, the event words go with it
    ("Before the reorg, at the start of March, which contact served PR-84?", "at the start of March", date(2026, 3, 1)),
    ("Which contact served PR-84 at the start of March, before the reorg?", "at the start of March", date(2026, 3, 1)),
])
def test_time_words_are_read_and_taken_out(words: str, phrase: str, day: date) -> None:
    when = read_time(words, TODAY)
    assert when is not None and (when.words, when.day) == (phrase, day)
    assert "PR-84" in when.rest and phrase not in when.rest and not when.rest.startswith((",", " "))


@pytest.mark.parametrize("words", [
    "Which contact serves PR-2025?",  # digits inside a name
    "Who owns db/2025-12-01.sql?",  # a date inside a path
    "Who owns the may release?",  # a month word without a time preposition
    "Which contact serves PR-84 on 2025-02-30?",  # no such day
    "Which contact serves PR-84 on 2025-12-01 or on 2026-01-10?",  # two times: not read as one
    "Which contact serves PR-84?",
    "Which contact serves PR-84 on March 3rd or on March 5th?",  # two days: not read as one
    "Who owns the year planner?", "Who owns this month's report?", "Who owns Q1-report?",  # "year", "month", "Q1" in names
    "Which contact serves PR-84 on February 30?",  # no such day
    # "before" where the day is anyone's guess: a period's edge, a count back from today, a named event
    "Which contact served PR-84 before the end of March?", "Which contact served PR-84 before 3 weeks ago?",
    "Which contact served PR-84 before the reorg?", "Which contact served PR-84 before yesterday?",
    # "early" / "late" before no relative period: a name's word ("the late release", "early access")
    "Who owns the late release?", "Who owns early access?", "Which contact serves PR-84 early?",
])
def test_words_that_are_no_single_time_are_left_alone(words: str) -> None:
    assert read_time(words, TODAY) is None


@pytest.mark.parametrize(("words", "since", "aside"), [
    ("Which contact served PR-84 last spring?", date(2026, 3, 1), ""),
    ("Which contact served PR-84 last winter?", date(2025, 12, 1), ""),
    ("Which contact served PR-84 in early spring?", None, ""),  # one day: nothing to agree over
    ("Which contact served PR-84 in March?", None, ""),  # a month keeps its rule (its end)
    ("Before the reorg, at the start of March, which contact served PR-84?", None, "Before the reorg"),
    # the negative controls: an event phrase that is not one event beside the date stays in the words (and reads as nothing)
    ("Before the reorg of the lab team, at the start of March, which contact served PR-84?", None, ""),
    ("Which contact served PR-84 before the reorg at the start of March?", None, ""),  # no comma: no apposition
])
def test_a_season_keeps_its_first_day_and_an_event_beside_a_date_is_kept_apart(words: str, since: date | None,
                                                                             aside: str) -> None:
    when = read_time(words, TODAY)
    assert when is not None and (when.since, when.aside) == (since, aside)
    assert "reorg" not in when.rest if aside else ("reorg" in when.rest or "reorg" not in words)


@pytest.mark.parametrize("words", [
    "Which contact served PR-84 in winter 2025?",  # winter's months are of two years: not read
    "Which contact served PR-84 in the spring-cleaning release?", "Who owns the fall-back service?",
    "Who is in Summer Interns?", "Which teams are in spring boot?", "Who owned the spring release?",
    "Which components shipped in the autumn release?", "Who leads this winter project?",
])
def test_season_words_that_name_no_one_season_are_left_alone(words: str) -> None:
    assert read_time(words, TODAY) is None


@pytest.mark.parametrize(("words", "end"), [
    ("Which contact served PR-84 last winter?", DESK),  # December 2025 to February 2026: view 2025-11 throughout
    ("Which contact served PR-84 in the summer of 2026?", FIELD),  # view 2026-03-15 throughout
])
def test_a_season_the_records_hold_alike_is_answered(dated: Catalog, words: str, end: str) -> None:
    trace = ask(words, dated, today=TODAY)
    assert trace.outcome == "accepted_path" and trace.path_ids is not None and trace.path_ids[-1] == end
    assert verify(trace, dated).ok


def test_a_season_the_records_change_in_is_refused(dated: Catalog) -> None:
    trace = ask("Which contact served PR-84 last spring?", dated, today=TODAY)  # view 2026-03-15 begins on March 15th
    assert trace.outcome == "refused" and trace.reason is not None and trace.reason.code == "no_view_at_time"
    assert "in which the records change" in trace.reason.message and "2025-11" in trace.reason.message
    assert verify(trace, dated).ok


def test_an_event_beside_a_date_is_shown_and_an_event_alone_is_refused(dated: Catalog) -> None:
    trace = ask("Before the reorg, at the start of March 2026, which contact served PR-84?", dated, today=TODAY)
    assert trace.outcome == "accepted_path" and trace.path_ids is not None and trace.path_ids[-1] == DESK
    assert trace.interpretation is not None and any(
        m.how == "apposition" and m.words == "Before the reorg" for m in trace.interpretation.match)
    assert verify(trace, dated).ok
    for alone in ("Before the reorg, which contact served PR-84?", "Before the reorg of the lab team, in March 2026, "
                  "which contact served PR-84?"):
        assert ask(alone, dated, today=TODAY).outcome != "accepted_path"


def test_the_past_tense_is_put_in_the_present_only_as_the_vocabulary_allows() -> None:
    vocab = {"owns", "own", "is", "uses", "use"}
    assert [t for t, _ in present_variants("Who owned X, and was it used?", vocab)][0] == "Who owns X, and is it uses?"
    assert present_variants("Who owns X?", vocab) == []  # nothing in the past
    assert present_variants("Who jumped X?", vocab) == []  # a verb the catalog does not know stays as written


def test_dated_views_of_every_naming_resolve_by_one_rule(dated: Catalog) -> None:
    names = {v.name: view_day(v) for v in dated.views}
    assert names == {"2025-11": date(2025, 11, 1), "2026-03-15": date(2026, 3, 15)}
    assert view_at(dated.views, date(2026, 3, 14)).name == "2025-11"  # type: ignore[union-attr]
    assert view_at(dated.views, date(2026, 3, 15)).name == "2026-03-15"  # type: ignore[union-attr]
    assert view_at(dated.views, date(2025, 10, 31)) is None
    assert as_of_view(dated.views, "2026-01-01").name == "2025-11"  # type: ignore[union-attr]  # --view DATE: the same rule
    plain = load_catalog("catalogs/default.yaml")
    assert [view_day(v) for v in plain.views] == [None, None]  # "final", "revised" carry no date


@pytest.mark.parametrize(("words", "view", "end"), [
    ("Which contact serves PR-84 on 2026-01-10?", "2025-11", DESK),
    ("Which contact served PR-84 as of March 2026?", "2026-03-15", FIELD),
    ("As of 2025-12-01, which contact serves PR-84?", "2025-11", DESK),
    ("Which contact serves PR-84 last month?", "2026-03-15", FIELD),
])
def test_the_words_choose_the_view(dated: Catalog, words: str, view: str, end: str) -> None:
    trace = ask(words, dated, today=TODAY)
    assert trace.outcome == "accepted_path" and trace.path_ids is not None and trace.path_ids[-1] == end
    assert trace.meta["view"] == view and trace.interpretation is not None and trace.interpretation.view == view
    assert trace.meta["time"]["view"] == view and trace.meta["today"] == TODAY.isoformat()  # type: ignore[index]
    assert any(m.part == "time" and m.target == view for m in trace.interpretation.match)
    assert verify(trace, dated).ok  # replays the same (the reference date is in the trace)


def test_a_request_without_time_words_is_unchanged(dated: Catalog) -> None:
    trace = ask("Which contact serves PR-84?", dated, today=TODAY)
    assert trace.meta["view"] == "2026-03-15" and "time" not in trace.meta and "today" not in trace.meta
    # the negative control: the same words with a time that names the first view answer otherwise
    assert ask("Which contact serves PR-84 on 2025-12-01?", dated, today=TODAY).path_ids[-1] == DESK  # type: ignore[index]


def test_a_relative_time_replays_against_the_recorded_today(dated: Catalog) -> None:
    trace = ask("Which contact serves PR-84 last month?", dated, today=date(2026, 1, 15))  # last month: December 2025
    assert trace.meta["view"] == "2025-11" and trace.path_ids[-1] == DESK  # type: ignore[index]
    assert verify(trace, dated).ok  # replayed with the recorded today, not the real one (which reads another view)
    later = ask("Which contact serves PR-84 last month?", dated, today=TODAY)
    assert later.meta["view"] == "2026-03-15"


@pytest.mark.parametrize(("words", "view", "said"), [
    ("Which contact serves PR-84 on 2025-10-01?", None, "the first view of this catalog is 2025-11"),
    ("Which contact serves PR-84 in 2030?", None, "after today (2026-12-06)"),
    ("Which contact serves PR-84 on 2025-12-01?", "2026-03-15", "which is view 2025-11, but the view requested is 2026-03-15"),
])
def test_a_time_no_view_answers_is_refused_with_its_reason(dated: Catalog, words: str, view: str | None, said: str) -> None:
    trace = ask(words, dated, view=view, today=TODAY)
    assert trace.outcome == "refused" and trace.reason is not None and trace.reason.code == "no_view_at_time"
    assert said in trace.reason.message
    assert verify(trace, dated).ok


def test_an_agreeing_view_and_time_words_answer(dated: Catalog) -> None:
    trace = ask("Which contact serves PR-84 on 2025-12-01?", dated, view="2025-11", today=TODAY)
    assert trace.outcome == "accepted_path" and trace.path_ids[-1] == DESK  # type: ignore[index]


def test_time_words_in_a_catalog_whose_views_carry_no_date_are_refused() -> None:
    plain = load_catalog("catalogs/default.yaml")
    trace = ask("Which contact serves PR-84 on 2025-12-01?", plain, today=TODAY)
    assert trace.outcome == "refused" and trace.reason is not None and trace.reason.code == "no_view_at_time"
    assert "final" in trace.reason.message  # names the views there are


# -- everyday wordings of a past state, over a real history (examples/newcomer: five dated commits) --------
N = "newcomer:"
PAYMENTS, CAROL = f"codeowner:{N}team.northwind.payments", f"codeowner:{N}user.carol"  # carol co-owns from 2026-02-10
ASKED = date(2026, 3, 1)


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> CatalogReader:
    from support.newcomer import load_scorer

    return resolve_catalog(str(load_scorer().build_catalog(tmp_path_factory.mktemp("history"))))


def _set(words: str, catalog: CatalogReader) -> set[str]:
    trace = ask(words, catalog, today=ASKED)
    assert trace.outcome == "accepted_path", (words, trace.outcome, trace.reason)
    assert trace.completeness is None or trace.completeness.complete
    return {a.id for a in trace.answers or ()} or {(trace.path_ids or [""])[-1]}


@pytest.mark.parametrize(("words", "expected"), [
    # a frame's verb in the past the time words call for ("reviewed": "reviews", a frame's question)
    ("who reviewed services/checkout/main.py in January 2026?", {PAYMENTS}),
    ("who reviews services/checkout/main.py?", {PAYMENTS, CAROL}),
    # "before" a day: the state of the day before it (carol co-owns from 2026-02-10: not before it, and after it)
    ("who reviewed services/checkout/main.py before 10 February 2026?", {PAYMENTS}),
    ("who reviewed services/checkout/main.py before 11 February 2026?", {PAYMENTS, CAROL}),
    # "who code-owned P"
    ("Who code-owned db/migrations/001_init.sql on 2025-11-20?", {f"codeowner:{N}team.northwind.platform"}),
    # the past progressive ("was using"), and "did X have under it"
    ("which components were using orders-api in January 2026?",
     {f"component:{N}default.web-shop", f"component:{N}default.legacy-reports"}),
    ("which APIs was web-shop calling in January 2026?", {f"api:{N}default.orders-api", f"api:{N}default.payments-api"}),
    ("which team looked after web-shop in January 2026?", {f"group:{N}default.team-web"}),  # an everyday phrase's past
    ("which teams did Engineering have under it in December 2025?",
     {f"group:{N}default.team-{t}" for t in ("payments", "platform", "web")}),
])
def test_everyday_wordings_of_a_past_state(history: CatalogReader, words: str, expected: set[str]) -> None:
    assert _set(words, history) == expected


@pytest.mark.parametrize("words", [
    "who reviewed services/checkout/main.py?",  # a past without time words is not read as the present
    "which components were using orders-api?",
    "who reviewed services/checkout/main.py and docs in January 2026?",
])
def test_a_past_wording_without_its_time_stays_unread(history: CatalogReader, words: str) -> None:
    assert ask(words, history, today=ASKED).outcome != "accepted_path"


# -- the quick check before the time pattern -------------------------------------------------------------------
_TIME_TOKENS = ["on", "in", "as of", "at", "back", "by", "during", "last", "the", "start", "end", "of", "early", "mid",
                "late", "this", "year", "month", "quarter", "week", "ago", "days", "weeks", "months", "2", "3", "12", "84",
                "2025", "2026", "2025-12-01", "1999", "PR-84", "GP-7", "GP-3645", "PR-2025", "mid-2025",
                "late-2025", "v2025", "12/2025", "2025.", "20255", "2025-12", "q1", "Q3", "march", "May", "may", "3rd", "the 3rd",
                "dec.", "sept", "spring", "last winter", "fall", "christmas", "xmas", "new year's eve", "yesterday", "a couple of", "two", "who", "owns",
                "owned", "team-web", "?", ","]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_TIME_TOKENS), min_size=1, max_size=9))
def test_the_quick_check_never_skips_a_request_the_pattern_reads(tokens: list[str]) -> None:
    from chainret.query.when import _read_time, may_hold_time

    request = " ".join(tokens)
    today = date(2026, 3, 15)
    assert may_hold_time(request) or _read_time(request, today) is None, request


def test_the_quick_check_skips_an_id_with_digits_and_a_check_without_years_would_miss_dates() -> None:
    from chainret.query import when

    assert not when.may_hold_time("Which contact serves PR-84?")  # an ID's digits compile no pattern
    assert not when.may_hold_time("Which contact serves GP-3645?")  # four of them neither
    assert when.may_hold_time("Who owned GP-3645 in 2025?") and when.read_time("Who owned GP-3645 in 2025?", date(2026, 3, 15))
    assert when.read_time("Who owned GP-3645 in mid-2025?", date(2026, 3, 15))  # "mid-": the one "-" a year may follow
    assert when.may_hold_time("Who owned PR-84 on 2025-12-01?") and when.read_time("Who owned PR-84 on 2025-12-01?", date(2026, 3, 15))
    # negative control: cue words alone (no four-digit run) would skip a request that names its day by digits only
    request = "Who owned PR-84 on 2025-12-01?"
    assert not any(w in request.lower() for w in when._CUES) and when._read_time(request, date(2026, 3, 15)) is not None
