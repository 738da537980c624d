"""Need and politeness wrappers around a request ("hey, quick one: ... thanks!", "I need ...", "Looking for ..., cheers").

The wrapper words are dropped; everything else must still be accounted for, so a wrapped request that
says more than a pattern (another relation, two entities) is still refused.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from chainret.pipeline.ask import ask
from chainret.store import resolve_catalog

SEED = resolve_catalog(str(Path(__file__).resolve().parents[1] / "catalogs" / "default.yaml"))


@pytest.mark.parametrize("request_text", [
    "hey, quick one: who is the contact for PR-85? thanks a lot",
    "I need the contact for PR-85",
    "looking for the contact for PR-85, cheers",
])
def test_a_wrapped_request_reads_as_the_request(request_text: str) -> None:
    it = ask(request_text, SEED).interpretation
    assert it is not None and (it.pattern, it.start_id) == ("contact_for_project", "project:final:side")


@pytest.mark.parametrize("request_text", [
    "I need the operator of PR-85",  # another relation
    "quick one: the contact for PR-84 and PR-85",  # two entities
    "I need the contact for PR-85 in 2019",  # a date no view has
])
def test_a_wrapped_request_that_says_more_is_still_refused(request_text: str) -> None:
    assert ask(request_text, SEED).interpretation is None
