"""The four-term packing objective F(S) and its marginal gains.

F(S) = w_rel·Rel(S) + w_qry·QueryCov(S) + w_cov·Repr(S) + w_div·Div(S), each term monotone,
submodular and scaled to [0, 1] on the question's candidate set V:

- Rel(S)      = Σ_{i∈S} r_i / Σ_{i∈V} r_i                      (modular; r = snippet relevance ≥ 0)
- QueryCov(S) = |Q ∩ ∪_{i∈S} T_i| / |Q|                          (set cover of query content terms)
- Repr(S)     = Σ_i min(Σ_{j∈S} s_ij, α·deg_i) / Σ_i α·deg_i,   deg_i = Σ_{j∈V} s_ij
                (saturated facility location; saturation stops near-duplicates from buying score)
- Div(S)      = Σ_d sqrt(Σ_{i∈S∩d} r_i) / Σ_d sqrt(Σ_{i∈d} r_i) (concave over documents)

Similarities s_ij must lie in [0, 1]; a term whose normaliser is 0 contributes 0.
Marginal gains for every candidate are computed at once with numpy (n is tens per question).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

WEIGHTS = {"rel": 1.0, "qry": 0.5, "cov": 0.4, "div": 0.3}
ALPHA = 0.3


@dataclass
class GreedyState:
    """What the incremental gains need: the selection and its running sums."""

    selected: list[int]
    covered: np.ndarray  # bool per query term
    reach: np.ndarray  # Σ_{j∈S} s_ij per candidate i
    doc_mass: np.ndarray  # relevance mass of S per document


class Objective:
    """F over one question's candidates. Build once per question; reuse across budgets."""

    def __init__(
        self,
        relevance: Sequence[float],
        doc_ids: Sequence[str | None],
        term_sets: Sequence[frozenset[str]],
        query_terms: frozenset[str],
        sim: np.ndarray,
        *,
        weights: dict[str, float] | None = None,
        alpha: float = ALPHA,
    ) -> None:
        n = len(relevance)
        self.n = n
        self.w = dict(WEIGHTS if weights is None else weights)
        self.alpha = alpha
        self.r = np.clip(np.asarray(relevance, dtype=float), 0.0, None)
        sim = np.asarray(sim, dtype=float).reshape(n, n)
        if n and (sim.min() < -1e-9 or sim.max() > 1 + 1e-9):
            raise ValueError("similarities must lie in [0, 1]")
        self.sim = np.clip(sim, 0.0, 1.0)
        q = sorted(query_terms)
        self.q_terms = q
        self.qmat = np.array([[t in ts for t in q] for ts in term_sets], dtype=bool).reshape(n, len(q))
        docs = [d if d is not None else f"#{i}" for i, d in enumerate(doc_ids)]
        self.doc_names = sorted(set(docs))
        index = {d: k for k, d in enumerate(self.doc_names)}
        self.doc_of = np.array([index[d] for d in docs], dtype=int)
        self.cap = alpha * self.sim.sum(axis=1)
        self._z_rel = float(self.r.sum())
        self._z_cov = float(self.cap.sum())
        full_mass = np.bincount(self.doc_of, weights=self.r, minlength=len(self.doc_names)) if n else np.zeros(0)
        self._z_div = float(np.sqrt(full_mass).sum())

    # -- state --------------------------------------------------------------------------------
    def empty(self) -> GreedyState:
        return GreedyState(
            selected=[],
            covered=np.zeros(len(self.q_terms), dtype=bool),
            reach=np.zeros(self.n),
            doc_mass=np.zeros(len(self.doc_names)),
        )

    def add(self, state: GreedyState, j: int) -> None:
        state.selected.append(j)
        state.covered |= self.qmat[j]
        state.reach += self.sim[:, j]
        state.doc_mass[self.doc_of[j]] += self.r[j]

    def state_of(self, selection: Sequence[int]) -> GreedyState:
        st = self.empty()
        for j in selection:
            self.add(st, j)
        return st

    # -- values -------------------------------------------------------------------------------
    def term_values(self, selection: Sequence[int]) -> dict[str, float]:
        """Each normalised term at ``selection`` (for tests and diagnostics)."""
        st = self.state_of(selection)
        rel = float(self.r[list(selection)].sum()) / self._z_rel if self._z_rel > 0 and selection else 0.0
        qry = float(st.covered.mean()) if len(self.q_terms) else 0.0
        cov = float(np.minimum(st.reach, self.cap).sum()) / self._z_cov if self._z_cov > 0 else 0.0
        div = float(np.sqrt(st.doc_mass).sum()) / self._z_div if self._z_div > 0 else 0.0
        return {"rel": rel, "qry": qry, "cov": cov, "div": div}

    def value(self, selection: Sequence[int]) -> float:
        t = self.term_values(selection)
        return sum(self.w[k] * t[k] for k in WEIGHTS)

    def gains(self, state: GreedyState) -> np.ndarray:
        """Marginal gain F(S ∪ {i}) − F(S) for every candidate i (0 for those already in S)."""
        g = np.zeros(self.n)
        if self.n == 0:
            return g
        if self._z_rel > 0:
            g += self.w["rel"] * self.r / self._z_rel
        if len(self.q_terms):
            g += self.w["qry"] * (self.qmat & ~state.covered).sum(axis=1) / len(self.q_terms)
        if self._z_cov > 0:
            now = np.minimum(state.reach, self.cap)
            after = np.minimum(state.reach[:, None] + self.sim, self.cap[:, None])  # row i, column candidate j
            g += self.w["cov"] * (after.sum(axis=0) - now.sum()) / self._z_cov
        if self._z_div > 0:
            m = state.doc_mass[self.doc_of]
            g += self.w["div"] * (np.sqrt(m + self.r) - np.sqrt(m)) / self._z_div
        if state.selected:
            g[state.selected] = 0.0
        return g
