"""The time a request carries in its words: "on 2025-12-01", "as of March 2026", "back in November", "last month",
"last September", "last quarter", "in late June 2025", "in November last year", "early this year".

A request may say when it asks about. ``read_time(request, today)`` finds one such phrase, takes it out
of the words (the rest is interpreted as any request is) and turns it into the day whose state the
request asks about: the last view on or before that day answers it (``chainret.catalog.views.view_at``,
the one resolver of a date). A period (a month, a year) asks about its end, or about its start when the
words say so ("at the start of January 2026", "in early June"; "mid June" its middle day, "late June" its end); a
period that is not over yet asks about ``today``. A season ("last spring", "in the summer of 2025": the northern
hemisphere's meteorological seasons, spring March to May, summer June to August, autumn or fall September to November,
winter December to February) is a period whose every day the words name alike: its end is asked about, and its first
day is kept (``TimeWords.since``) so that the request is answered only where the records say the same over the whole
season (one view from its first day to its end; ``chainret.pipeline.ask``), never at a day the words did not choose.
A named event beside a date, set off by a comma ("before the reorg, at the start of February"), restates the date in
words the records cannot date: the date is read and the event phrase is kept (``TimeWords.aside``) for the trace to
show; an event phrase alone is not read. An event dated by the time phrase right after it ("before the migration in
May", "after the reorg in March": lower-case words ending in a word that names a change, ``_EVENT_NOUNS``, so never an
entity's name) asks about before it, the day before the date's period begins (as "before May"), or after it, the
period's end (as "in May"); any other words before the date are left in the request, which then reads as nothing.
Relative words ("last month", "yesterday", "3 weeks ago", a month without a year) are read against
``today``, which the caller passes in and the trace records, so a replay reads them the same way.

Hand-written on purpose: the grammar is small and closed (a preposition, then a date, a month, a
year or a relative phrase), and a date library's free-text parser would read words that are no time
("may", "second", "march" in a name) as one. A phrase is taken only where it is led by a time
preposition or is itself unmistakably relative, and only when it stands apart from other word
characters (``PR-2025`` and ``db/2025-12-01.sql`` carry no time). "Before the ... change" is not read.

``present_variants`` rewrites the past tense the time words call for ("who owned", "was on") into the
present of the catalog's phrasings, since the view, not the verb, carries the time.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any, Literal, NamedTuple

_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4, "may": 5,
    "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9, "sep": 9, "sept": 9,
    "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_MONTH = r"(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
# A season's first month and its months (meteorological, northern hemisphere): winter begins in December of one year
_SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
_SEASON = r"(?:" + "|".join(_SEASONS) + r")"
# A season said as a time ends its phrase: the word after it, if any, is a clause's ("in spring, who", "in spring and
# ..."), never a noun it names ("the spring release", "who is in Summer Interns"): then it is a name's word, not read.
_SEASON_END = r"(?!\s+(?!(?:and|or|but|before|after|when|while|then|for|at|on|in|to|with|as)\b)[A-Za-z])"
# Days named by a fixed date every year ("last christmas", "at christmas 2025", "on new year's eve"): the day, as
# (month, day). Only days whose date never moves: Easter and Thanksgiving do, and are not read.
_HOLIDAYS = {
    "christmas eve": (12, 24), "christmas day": (12, 25), "christmas": (12, 25), "xmas": (12, 25),
    "boxing day": (12, 26), "new year's eve": (12, 31), "new years eve": (12, 31), "new year's day": (1, 1),
    "new years day": (1, 1), "halloween": (10, 31), "valentine's day": (2, 14), "valentines day": (2, 14),
}
_HOLIDAY = r"(?:" + "|".join(re.escape(h).replace(r"\ ", r"\s+") for h in sorted(_HOLIDAYS, key=len, reverse=True)) + r")"
_ORD = r"(?:st|nd|rd|th)?"
_DATE = (
    rf"(?P<iso>\d{{4}}-\d{{2}}-\d{{2}})"
    rf"|(?:the\s+)?(?P<d1>\d{{1,2}}){_ORD}\s+(?:of\s+)?(?P<m1>{_MONTH}),?\s+(?P<y1>\d{{4}})"
    rf"|(?P<m2>{_MONTH})\s+(?P<d2>\d{{1,2}}){_ORD},?\s+(?P<y2>\d{{4}})"
    rf"|(?P<m3>{_MONTH}),?\s+(?P<y3>\d{{4}})"
    # a day of a month without its year: "the 3rd of March", "3 March", "March 3rd" (before a month alone: "on March
    # 3rd" is the 3rd, not March's end with "3rd" left over)
    rf"|(?:the\s+)?(?P<d5>\d{{1,2}}){_ORD}\s+(?:of\s+)?(?P<m5>{_MONTH})"
    rf"|(?P<m6>{_MONTH})\s+(?:the\s+)?(?P<d6>\d{{1,2}}){_ORD}(?!\s*\d)"
    # a calendar quarter: "Q1 2026", "Q3" (the latest such quarter that has begun)
    rf"|(?P<q>q[1-4])(?:\s+(?P<qy>\d{{4}}))?"
    # a day named by its fixed date: "at christmas 2025", "at christmas" (the latest such day on or before today)
    rf"|(?P<h>{_HOLIDAY})(?:,?\s+(?P<hy>\d{{4}}))?"
    # a season: "in the spring", "during summer 2025", "in the autumn of 2025" (winter with a year is not read: its
    # months are of two years)
    rf"|(?:the\s+)?(?P<s>{_SEASON})(?:,?\s+(?:of\s+)?(?P<sy>\d{{4}})|{_SEASON_END})"
    # a month of this year or last, said so: "in November last year", "March of this year"
    rf"|(?P<m7>{_MONTH}),?\s+(?:of\s+)?(?P<ry>last|this)\s+year"
    rf"|(?P<m4>{_MONTH})"
    rf"|(?P<y4>\d{{4}})"
)
_RELATIVE = (
    r"(?P<yesterday>yesterday)"
    r"|last\s+(?P<last>week|month|quarter|year)"
    rf"|(?<!the\s)(?<!this\s)last\s+(?P<lastm>{_MONTH})"  # ("the last may release": no time)
    rf"|(?<!the\s)(?<!this\s)last\s+(?P<lasth>{_HOLIDAY})"  # "last christmas": the latest one before today
    rf"|(?<!the\s)(?<!this\s)(?P<seasonal>last|this)\s+(?P<ls>{_SEASON}){_SEASON_END}"  # "last spring": the latest one that is over
    rf"|(?P<n>\d{{1,3}}|{'|'.join(_NUMBERS)}|a\s+couple\s+of)\s+(?P<unit>day|week|month|year)s?\s+ago"
    # the period a request is asked in, or its edge: "this year", "at the start of the year" (an edge only: "the year")
    r"|this\s+(?P<this>month|quarter|year)(?!')|the\s+(?P<the>month|quarter|year)(?!\s+(?:of|in|before|after|that|when)\b)"
)
# What may lead the time: a preposition, with "back" before it and a start or end of a period after it.
# "before" / "prior to" / "just before" name the last day before the time said begins (its first day, for a period):
# "before March" is the state on the last day of February, "before 2026-03-01" that of 2026-02-28.
_LEAD = r"(?:back\s+)?(?:on|as\s+of|as\s+at|at|in|during|by|(?P<before>(?:just\s+|right\s+)?(?:before|prior\s+to)))"
_EDGE = r"(?:(?:the\s+)?(?P<edge>start|beginning|end)\s+of\s+|(?P<part>early|mid|late)(?:\s+|-))"
# A part of a period said with no preposition before it, of a relative period only: "early this year", "late last
# year", "mid last month" (as "this year" and "last month" are read with none: unmistakably a time).
_BARE_PART = r"(?P<bare>early|mid|late)(?:\s+|-)(?=(?:this|last)\s)"
_PHRASE = (
    rf"(?<![\w/.@-])(?P<phrase>(?:(?P<lead>{_LEAD})\s+(?:{_EDGE})?|{_BARE_PART})?(?:{_DATE}|{_RELATIVE}))(?![\w/@]|-\w|\.\w)"
)
_COMPILED: list[re.Pattern[str]] = []
# A run of four digits a time phrase can begin with: where the phrase pattern lets a date start (not after a word
# character, "/", ".", "@" or "-"), or after "mid-" ("mid-2025"). The digits of an ID ("GP-3645") are not one.
_FOUR_DIGITS = re.compile(r"(?<![\w/.@-])\d{4}(?!\d)|(?:early|mid|late)-\d{4}")  # (small: compiled at import)
_CUES = ("yesterday", "last ", " ago", *_SEASONS, "christmas", "xmas", "boxing", "new year", "halloween", "valentine", "this ", " the month", " the quarter", " the year", "q1", "q2", "q3", "q4", *(m for m in _MONTHS if len(m) > 3), "jan", "feb", "mar", "apr", "may", "jun", "jul",
         "aug", "sep", "oct", "nov", "dec")


def _pattern() -> re.Pattern[str]:
    """The phrase pattern, compiled on first use (never on a request that a literal reading answers)."""
    if not _COMPILED:
        _COMPILED.append(re.compile(_PHRASE, re.IGNORECASE))
    return _COMPILED[0]


class TimeWords(NamedTuple):
    """The time a request's words carry, and the request without them."""

    words: str  # as written, e.g. "on 2025-12-01"
    day: date  # the day whose state is asked about (the last view on or before it answers)
    rest: str  # the request with the time words taken out
    relative: bool  # read against ``today`` ("last month", a month without its year)
    future: bool  # after ``today``: no record can say what holds then
    since: date | None = None  # a season's first day: every day from it to ``day`` is asked about alike
    aside: str = ""  # a named event said beside the date ("before the reorg"), taken out with it

    def record(self, view: str | None) -> dict[str, str | None]:
        """What a trace records of the time words (``meta.time``)."""
        out: dict[str, str | None] = {"words": self.words, "date": self.day.isoformat(), "view": view}
        if self.since is not None:
            out["since"] = self.since.isoformat()
        if self.aside:
            out["beside"] = self.aside
        return out


Edge = Literal["start", "middle", "end"]
_PARTS: dict[str, Edge] = {"early": "start", "mid": "middle", "late": "end", "start": "start", "beginning": "start"}


def _period(first: date, last: date, edge: Edge, today: date) -> date:
    if edge == "middle":  # "mid June": the middle day of the period
        last = first + (last - first) / 2
    return first if edge == "start" else min(last, today) if first <= today else last


def _month_days(year: int, month: int) -> int:
    return ((date(year + month // 12, month % 12 + 1, 1)) - date(year, month, 1)).days


def _month_period(year: int, month: int) -> tuple[date, date]:
    return date(year, month, 1), date(year, month, _month_days(year, month))


def _shift_months(day: date, months: int) -> date:
    y, m = divmod(day.year * 12 + day.month - 1 - months, 12)
    return date(y, m + 1, min(day.day, _month_days(y, m + 1)))


def _day(m: re.Match[str], today: date) -> tuple[date, bool] | None:
    """The day a matched phrase names, and whether it was read against ``today``; None for no real date. After
    "before" ("before March", "prior to Q2 2026"): the day before the time said begins (a period's first day); with an
    edge of a period ("before the end of March") or a count back from today ("before 3 weeks ago") it is not read, as
    the day is then anyone's guess."""
    g = m.groupdict()
    if g["before"]:
        if g["edge"] or g["part"] or g["unit"] or g["yesterday"] or g["last"] == "week":
            return None
        first = _day_of(g, today, "start")
        return None if first is None else (first[0] - timedelta(days=1), first[1])
    return _day_of(g, today, _PARTS.get((g["edge"] or g["part"] or g["bare"] or "").lower(), "end"))


def _day_of(g: dict[str, Any], today: date, edge: Edge) -> tuple[date, bool] | None:
    """``_day`` of a phrase read at ``edge`` of the period it names (a day names itself)."""
    if not g["lead"] and not (g["yesterday"] or g["last"] or g["lastm"] or g["lasth"] or g["unit"] or g["this"] or g["ls"]
                              or g["ry"]):
        return None  # a date, month or year is time only after a time preposition
    if g["the"] and not (g["edge"] or g["part"]):
        return None  # "the year" is a period only at its start, middle or end ("at the start of the year")
    month = next((_MONTHS[g[k].lower().rstrip(".")] for k in ("m1", "m2", "m3", "m4", "m5", "m6", "m7") if g[k]), None)
    try:
        if g["d5"] or g["d6"]:  # a day without its year: the latest such day on or before today
            assert month is not None
            day = int(g["d5"] or g["d6"])
            this_year = date(today.year, month, day) if day <= _month_days(today.year, month) else None
            return (this_year if this_year is not None and this_year <= today else date(today.year - 1, month, day)), True
        if g["q"]:
            quarter = int(g["q"][1])
            year = int(g["qy"]) if g["qy"] else today.year if (quarter - 1) * 3 + 1 <= today.month else today.year - 1
            first = date(year, (quarter - 1) * 3 + 1, 1)
            return _period(first, _shift_months(first, -3) - timedelta(days=1), edge, today), not g["qy"]
        if g["h"] or g["lasth"]:  # a day named by its fixed date: of the year said, else the latest on or before today
            month, day = _HOLIDAYS[re.sub(r"\s+", " ", (g["h"] or g["lasth"]).lower())]
            if g["hy"]:
                return date(int(g["hy"]), month, day), False
            this_year = date(today.year, month, day)
            latest = this_year if this_year < today or (this_year == today and not g["lasth"]) else date(today.year - 1, month, day)
            return latest, True
        if g["s"] or g["ls"]:
            season = _season(g, today)
            return None if season is None else (_period(*season[:2], edge, today), season[2])
        if g["iso"]:
            return date.fromisoformat(g["iso"]), False
        if g["d1"] or g["d2"]:
            assert month is not None
            return date(int(g["y1"] or g["y2"]), month, int(g["d1"] or g["d2"])), False
        if g["y3"]:
            assert month is not None
            return _period(*_month_period(int(g["y3"]), month), edge, today), False
        if g["ry"]:  # a month of this year or of last year, said so
            assert month is not None
            return _period(*_month_period(today.year - (g["ry"].lower() == "last"), month), edge, today), True
        if g["m4"]:  # a month without its year: the latest such month that has begun
            assert month is not None
            year = today.year if month <= today.month else today.year - 1
            return _period(*_month_period(year, month), edge, today), True
        if g["y4"]:
            year = int(g["y4"])
            return _period(date(year, 1, 1), date(year, 12, 31), edge, today), False
    except ValueError:  # 2025-02-30: no such day
        return None
    if g["yesterday"]:
        return today - timedelta(days=1), True
    if g["this"] or g["the"]:  # the period today is in
        unit = (g["this"] or g["the"]).lower()
        if unit == "month":
            return _period(*_month_period(today.year, today.month), edge, today), True
        if unit == "quarter":
            first = date(today.year, (today.month - 1) // 3 * 3 + 1, 1)
            return _period(first, _shift_months(first, -3) - timedelta(days=1), edge, today), True
        return _period(date(today.year, 1, 1), date(today.year, 12, 31), edge, today), True
    if g["lastm"]:  # "last September": the latest such month that is over
        month = _MONTHS[g["lastm"].lower().rstrip(".")]
        year = today.year if month < today.month else today.year - 1
        return _period(*_month_period(year, month), edge, today), True
    if g["last"]:
        unit = g["last"].lower()
        if unit == "week":
            return today - timedelta(days=7), True
        if unit == "month":
            prev = _shift_months(today.replace(day=1), 1)
            return _period(*_month_period(prev.year, prev.month), edge, today), True
        if unit == "quarter":  # the calendar quarter before this one
            first = _shift_months(date(today.year, (today.month - 1) // 3 * 3 + 1, 1), 3)
            return _period(first, _shift_months(first, -3) - timedelta(days=1), edge, today), True
        return _period(date(today.year - 1, 1, 1), date(today.year - 1, 12, 31), edge, today), True
    said = re.sub(r"\s+", " ", g["n"].lower())
    n = int(said) if said.isdigit() else 2 if said == "a couple of" else _NUMBERS[said]
    unit = g["unit"].lower()
    if unit in ("day", "week"):
        return today - timedelta(days=n * (7 if unit == "week" else 1)), True
    return _shift_months(today, n * (12 if unit == "year" else 1)), True


def _season(g: dict[str, Any], today: date) -> tuple[date, date, bool] | None:
    """The first and last day of the season a phrase names, and whether it was read against ``today``: of the year said
    (not for winter, whose months are of two years), the latest that is over after "last", else the latest that has
    begun ("in the spring", "this summer")."""
    first_month = _SEASONS[(g["s"] or g["ls"]).lower()]

    def bounds(year: int) -> tuple[date, date]:
        first = date(year, first_month, 1)
        end = _shift_months(first, -2)
        return first, date(end.year, end.month, _month_days(end.year, end.month))

    if g["sy"]:
        return None if first_month == 12 else (*bounds(int(g["sy"])), False)
    year = today.year if date(today.year, first_month, 1) <= today else today.year - 1
    if (g["seasonal"] or "").lower() == "last" and bounds(year)[1] >= today:
        year -= 1
    return (*bounds(year), True)


def read_time(request: str, today: date) -> TimeWords | None:
    """The one time phrase of ``request`` and the day it names, or None when it carries none.

    Two time phrases ("on 2025-12-01 and on 2026-01-10") are not read: the second stays in the words,
    which then match no phrasing, so such a request is never answered as if it asked about one time.
    """
    if not may_hold_time(request):
        return None  # (most requests: no pattern to compile or run)
    return _read_time(request, today)


def may_hold_time(request: str) -> bool:
    """Whether ``request`` has a word some time phrase needs: a cue word, or a run of four digits (a year, an ISO
    date). Every other number in a time phrase comes with a month, a quarter, a holiday or "ago", which are cues, so an
    ID such as ``PR-84`` alone no longer compiles the phrase pattern (about 8 ms of a cold ``chainret ask``)."""
    low = request.lower()
    return any(w in low for w in _CUES) or _FOUR_DIGITS.search(low) is not None


def _read_time(request: str, today: date) -> TimeWords | None:
    """``read_time`` without its quick check (a test holds the check to this)."""
    hits = [(m, d) for m in _pattern().finditer(request) if (d := _day(m, today)) is not None]
    if len(hits) != 1:
        return None
    m, (day, relative) = hits[0]
    start, end = m.start("phrase"), m.end("phrase")
    if (m.group("lead") or "").split()[-1:] in (["on"], ["in"]) and not (m.group("edge") or m.group("part")) and (
            m.group("yesterday") or m.group("last") or m.group("lastm") or m.group("lasth") or m.group("unit") or m.group("this")
            or m.group("ls")):
        start = m.end("lead") + 1  # "was X on last quarter": "on" is the request's ("on X"), no time preposition
    said = request[start:end].strip()
    since = None
    if (m.group("s") or m.group("ls")) and not (m.group("edge") or m.group("part") or m.group("before")):
        season = _season(m.groupdict(), today)
        since = season[0] if season is not None else None
    aside = ""
    if (lead := (m.group("lead") or "").lower().split()) and lead[-1] in ("in", "on", "during") and not (
            m.group("edge") or m.group("part")) and (event := _event_at(request[:start])) is not None:
        # "before the migration in May": the event is dated by the phrase, and the request asks about before it (the
        # day before the date's period begins, as "before May") or after it (the period's end, as "in May")
        if event.group("dir").lower().split()[-1] != "after":
            first = _day_of({**m.groupdict(), "lead": "before"}, today, "start")
            if first is None:
                return None
            day = first[0] - timedelta(days=1)
        aside, start, said = event.group("event"), event.start(), f"{event.group('event')} {said}"
    elif (before := _EVENT_BEFORE.search(request[:start])) is not None:  # "before the reorg, at the start of February"
        aside, start = before.group("event"), before.start()
    elif (after := _EVENT_AFTER.match(request[end:])) is not None:  # "at the start of February, before the reorg"
        aside, end = after.group("event"), end + after.end()
    rest = f"{request[:start]} {request[end:]}"
    rest = re.sub(r"\s+([,?.!])", r"\1", re.sub(r"\s+", " ", rest))
    rest = re.sub(r",(?=[,?.!])", "", rest).strip(" ,")
    return TimeWords(said, day, rest, relative, day > today, since, aside)


# A named event said beside a date and set off from it by a comma: "before the reorg", "after our migration" (a time
# word, then "the" or "our" and one or two words), directly before the date or directly after it.
_EVENT = r"(?P<event>(?:just\s+|right\s+)?(?:before|after|prior\s+to)\s+(?:the|our)\s+[a-z]+(?:[\s-][a-z]+)?)"
# A named event dated by the time phrase after it, with no comma: "before the migration in May", "after the reorg in
# March" (the event's words in lower case, ending in a word that names a change, never an entity's name: a closed list).
_EVENT_NOUNS = ("migration", "reorg", "reorganisation", "reorganization", "restructure", "restructuring", "merger",
                "cutover", "move", "split", "rename", "handover", "launch", "shutdown", "switchover")
_EVENT_DATED: list[re.Pattern[str]] = []


def _event_at(before: str) -> re.Match[str] | None:
    """The event phrase that ``before`` (the words up to a time phrase) ends with, or None."""
    if not _EVENT_DATED:
        _EVENT_DATED.append(re.compile(
            r"(?:^|(?<=\s))(?P<event>(?P<dir>(?:[Jj]ust\s+|[Rr]ight\s+)?(?:[Bb]efore|[Aa]fter|[Pp]rior\s+to))\s+(?:the|our)\s+"
            rf"(?:[a-z]+[\s-]){{0,2}}(?:{'|'.join(_EVENT_NOUNS)}))\s+$"))
    return _EVENT_DATED[0].search(before)


_EVENT_BEFORE = re.compile(rf"(?:^|(?<=\s)){_EVENT}\s*,\s*$", re.IGNORECASE)
_EVENT_AFTER = re.compile(rf"^\s*,\s*{_EVENT}(?=\s*(?:[,?.!]|$))", re.IGNORECASE)


# -- the past tense the time words call for ----------------------------------------------------------
_PAST_BE = {"was": ("is",), "were": ("are",), "did": ("does", "do"), "had": ("has", "have")}


def _presents(word: str, vocab: set[str]) -> tuple[str, ...]:
    """Present forms in ``vocab`` of a regular past-tense word ("owned": owns, own; "used": uses, use)."""
    low = word.lower()
    if low in _PAST_BE:
        return _PAST_BE[low]
    head, sep, last = low.rpartition("-")
    if not last.endswith("ed") or len(last) < 4:  # ("owned" of "owned by" too: the words as written are read first)
        return ()
    stems = [last[:-1], last[:-2]]  # used -> use, owned -> own
    if len(last) > 4 and last[-3] == last[-4]:
        stems.append(last[:-3])  # stopped -> stop
    if last.endswith("ied"):
        stems.append(last[:-3] + "y")  # applied -> apply
    out: list[str] = []
    for stem in stems:
        third = stem[:-1] + "ies" if stem.endswith("y") else stem + ("es" if stem.endswith(("s", "sh", "ch", "x")) else "s")
        out += [head + sep + f for f in (third, stem) if f in vocab or (sep and f"{head}{sep}{f}" in vocab)
                or (sep and f in vocab)]
    return tuple(dict.fromkeys(out))


VARIANTS_MAX = 8  # past-tense words are few in one request; each variant is interpreted once


def present_variants(text: str, vocab: set[str]) -> list[tuple[str, list[tuple[str, str]]]]:
    """``text`` with its past-tense words put in the present, every way the vocabulary allows (at most
    ``VARIANTS_MAX``), each with its (past, present) rewrites; empty when no word is in the past."""
    from itertools import product

    toks = re.split(r"(\s+)", text)
    slots = [(i, forms) for i, t in enumerate(toks) if (forms := _presents(t.strip("?.,!"), vocab))]
    if not slots:
        return []
    out: list[tuple[str, list[tuple[str, str]]]] = []
    for choice in product(*(forms for _, forms in slots)):
        new = list(toks)
        rewrites: list[tuple[str, str]] = []
        for (i, _), form in zip(slots, choice):
            word = toks[i].strip("?.,!")
            new[i] = toks[i].replace(word, form)
            rewrites.append((word, form))
        out.append(("".join(new), rewrites))
        if len(out) == VARIANTS_MAX:
            break
    return out
