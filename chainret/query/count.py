"""A count ask: "how many people are on growth", "what is the number of components without an owner".

A count is the size of a set chainret already answers: "how many X ..." asks "which X ...", and its answer is the
number of that set's members, with the members and their proofs beside it (``chainret.render.answers.count_words``).
So the ask is read as the set question (``read_count`` gives its words) and answered by the same path; nothing here
decides what holds. The number is the set's ``eligible`` count, which the completeness check makes over the
reader's whole readable catalog: where the budget stopped the set's members ("25 of 99 shown"), the count is still
the 99, and where the set could not be counted, the number is "at least" what was found.

A regular expression rather than a parser: one closed list of leads (and the leading frames of
``chainret.query.understand.IGNORED_LEADING``, their one home), at the start of the request only.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# The leads that ask for a number, each followed by the set's noun phrase: "how many people ...", "the number of
# teams ...", "count the components ...", "what's the count of ..."
_LEADS = re.compile(
    r"^(?P<lead>how\s+many(?:\s+of\s+the)?|(?:what\s+is|what's|whats)\s+the\s+(?:number|count|total\s+number)\s+of"
    r"|(?:the\s+)?(?:total\s+)?number\s+of|count(?:\s+(?:up|all))?(?:\s+the)?)\s+(?P<rest>[a-z].*)$",
    re.IGNORECASE,
)


class CountAsk(NamedTuple):
    """A count ask read: the words that asked for a number, and the set question it counts."""

    lead: str  # as written, e.g. "how many"
    question: str  # the set question: "which people are on growth?"

    def record(self) -> dict[str, str]:
        """What a trace records of it (``meta.count``): the lead and the question the set was read from."""
        return {"lead": self.lead, "question": self.question}


def may_count(request: str) -> bool:
    """Whether ``request`` has a word a count's lead needs (most requests have none: no pattern to run, no frame
    list to import, on the cold ``chainret ask``)."""
    low = request.lower()
    return "how many" in low or "number of" in low or "count" in low


def read_count(request: str) -> CountAsk | None:
    """The count ask ``request`` is, or None. The question is "which" and the words after the lead, as written
    (a leading frame, "could you tell me", is left out of it: the set question reads without it too)."""
    from chainret.query.frames import without_leading_frame

    text = request.strip()
    for said in (text, without_leading_frame(text)):
        m = _LEADS.match(said or "")
        if m is not None:
            return CountAsk(m["lead"], f"which {m['rest']}")
    return None
