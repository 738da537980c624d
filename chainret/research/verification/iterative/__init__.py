"""Iterative decomposition without an LLM: one hop at a time, join on the bridge, search again.

What chainret's chain retriever does over a catalog, done over a question's candidate paragraphs:

1. **Template** (rules over the question's surface, no gold): find the innermost *descriptor*, the
   noun phrase that stands for an unknown entity ("the performer of Lonely Harbor",
   "the Paper Lanterns performer", "Tomas Verhoef's birthplace", "the school that owns The Harbor
   Gazette", "the state where Ida Merrow was born"). It becomes hop k's sub-question; the
   question with the descriptor replaced by ``#k`` is the template of what remains. 2Wiki
   compositional/inference questions use the typed relation slots of
   ``decompose.decompose_2wiki`` instead ("Who directed X?" then "Where was #1 born?").
2. **Retrieve** with the filled sub-question (embedding cosine fused with BM25 over the question's
   own candidates); the top unused paragraph is hop k's *anchor*.
3. **Bridge**: candidates are spans of the anchor that are titles of other candidates, the anchor's
   own title, and capitalised names (typed by the answer type the descriptor asks for: no dates
   for "the actor", no people for "when"). Each candidate fills the *next* sub-question; the one
   whose filled next sub-question retrieves the most confident next anchor wins (plus a small
   prior for how it was found and for sitting near the descriptor's relation words), not the
   first one by position.
4. Repeat on the filled question until no descriptor is left (or the outer question is just
   "Who is [descriptor]?"). The last filled question is the later hop's sub-question.

Only the question text and the candidates' titles and texts are read (``Candidate``); the gold
decomposition, answers and gold flags never reach this module (tests/test_verify_decomp*.py checks
that stripping them leaves the output unchanged).

The package, one module per step: ``lexicon`` (word lists and limits), ``data`` (what the
decomposer reads and returns), ``tokens``, ``descriptors``, ``bridges`` (retrieval over the
candidates and bridge candidates) and ``decomposer`` (the iteration); its public names are
imported here.
"""


from chainret.research.verification.iterative.lexicon import MAX_HOPS, BM25_WEIGHT, PRIOR, CUE_BONUS, TYPE_BONUS, JOIN_PENALTY, SHORTLIST
from chainret.research.verification.iterative.data import Embed, Candidate, candidates_of, BridgeChoice, HopStep, IterativeDecomposition
from chainret.research.verification.iterative.descriptors import subquestion_of
from chainret.research.verification.iterative.bridges import CandidateIndex, bridge_candidates
from chainret.research.verification.iterative.decomposer import IterativeDecomposer, next_subquestion, PLACEHOLDERS, rule_chain

__all__ = ["BM25_WEIGHT", "BridgeChoice", "CUE_BONUS", "Candidate", "CandidateIndex", "Embed", "HopStep", "IterativeDecomposer", "IterativeDecomposition", "JOIN_PENALTY", "MAX_HOPS", "PLACEHOLDERS", "PRIOR", "SHORTLIST", "TYPE_BONUS", "bridge_candidates", "candidates_of", "next_subquestion", "rule_chain", "subquestion_of"]
