"""Content terms: lower-cased alphanumeric words minus a small English stop list.

They feed the focused heuristic, QueryCov and the lexical half of snippet relevance.
(Answer normalisation is ``chainret.research.qa.metrics.normalize_answer``.)
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[a-z0-9]+")

STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have having
    he her here hers herself him himself his how i if in into is it its itself just me more most my myself no
    nor not now of off on once only or other our ours ourselves out over own same she should so some such than
    that the their theirs them themselves then there these they this those through to too under until up very
    was we were what when where which while who whom why will with would you your yours yourself yourselves
    s t did does whose many much one ones two also known named name called
    """.split()
)


def content_terms(text: str) -> frozenset[str]:
    """Distinct content words of ``text`` (lower-cased, stop words removed)."""
    return frozenset(w for w in _WORD.findall(text.lower()) if w not in STOPWORDS)
