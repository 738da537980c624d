"""Content terms: lower-cased alphanumeric words minus a small English stop list.

They feed the focused heuristic, QueryCov and the lexical half of snippet relevance.
(Answer normalisation is ``chainret.research.qa.metrics.normalize_answer``.)
"""

from __future__ import annotations

from chainret.core.words import PLAIN_WORD
from chainret.research.qa.signals import STOPWORDS as SIGNAL_STOPWORDS

# The benchmark signals' stop list (which extends the engine's) plus the rest of a common English list
# and the words benchmark questions use to name things; each word is written once.
STOPWORDS = SIGNAL_STOPWORDS | frozenset(
    """
    about above after again against all also am any because been before being below between both but called
    can could doing down during each few further having here hers herself him himself i if into itself just
    known many me more most much my myself name named no nor not now off once one ones only other our ours
    ourselves out over own s same should so some such t than theirs themselves then there these those through
    too two under until up very we while would you your yours yourself yourselves
    """.split()
)


def content_terms(text: str) -> frozenset[str]:
    """Distinct content words of ``text`` (lower-cased, stop words removed)."""
    return frozenset(w for w in PLAIN_WORD.findall(text.lower()) if w not in STOPWORDS)
