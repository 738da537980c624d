"""Later-hop support (seed 000, Section XII, Table VII): which paragraph supports a *later* hop?

For each question we take its last hop, the one the original question does not name, and score
every candidate paragraph as the premise of one hypothesis per source:

    original          H(original question)                                   (a)
    gold-subq         H(gold sub-question, earlier #k resolved by gold answers) (b)
    gold-subq+answer  H(same, slot filled with the hop's gold answer)          (c)
    anchored-subq     MuSiQue: H(gold sub-question wording, #k resolved from the retrieval
                      anchor chain, never from gold answers)
    rule-decomp       2Wiki: H(rule-based relation decomposition of the question, #1 resolved
                      from the retrieval anchor): no gold annotation and no LLM at inference

AUC = the supporting paragraph vs all other candidates, pooled, with question-bootstrap CIs;
the lift (b - a) is a paired bootstrap over the same questions. MuSiQue decompositions come
with the data; 2Wiki's come from its ``evidences`` triples (``decompose.evidence_decomposition``).
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from chainret.research.qa import metrics as M
from chainret.research.qa.datasets import passage
from chainret.research.qa.example import Example, SubQuestion
from chainret.core.errors import UsageError
from chainret.trace.model import Hit, Hop, Trace, Verification
from chainret.research.verification.decompose import (
    decompose_2wiki,
    evidence_decomposition,
    extract_bridge,
    norm_name,
)
from chainret.research.verification.hypothesis import hypothesis, relation_question
from chainret.research.verification.scorer import EntailmentScorer

PLACEHOLDER = re.compile(r"#(\d+)")
PAPER = {  # seed 000, Table VII / Fig. 5 (MuSiQue, DeBERTa-v3-base)
    "original": {"overall": 0.546, "2": 0.570, "3": 0.503, "4": 0.558},
    "gold-subq": {"overall": 0.840, "2": 0.848, "3": 0.849, "4": 0.804},
    "gold-subq+answer": {"overall": 0.936},
    "qwen7b-anchored": {"overall": 0.637, "2": 0.710, "3": 0.556, "4": 0.560},
    "lift": 0.355,
}


@dataclass
class LaterHopItem:
    example: Example
    target: int  # 1-based index of the later hop
    positive: int  # paragraph idx supporting it
    questions: dict[str, str] = field(default_factory=dict)  # source -> question the hypothesis came from
    hypotheses: dict[str, str] = field(default_factory=dict)
    notes: dict[str, Any] = field(default_factory=dict)


def resolve(question: str, values: dict[int, str]) -> str:
    """Replace ``#k`` by ``values[k]``; MuSiQue's relational "X >> rel" becomes a natural question."""
    q = PLACEHOLDER.sub(lambda m: values.get(int(m.group(1)), m.group(0)), question)
    if ">>" in q:
        subj, _, rel = q.partition(">>")
        q = relation_question(subj.strip(), rel.strip())
    return " ".join(q.split())


def _relation_of(subq: str) -> str | None:
    """The relation of MuSiQue's "X >> relation" step (its cue words guide bridge extraction)."""
    if ">>" not in subq:
        return None
    return subq.partition(">>")[2].strip().lower() or None


def _top(vec_q: np.ndarray, mat: np.ndarray, exclude: set[int]) -> int:
    order = np.argsort(-(mat @ vec_q), kind="mergesort")
    for i in order:
        if int(i) not in exclude:
            return int(i)
    return int(order[0])


DECOMPOSERS = ("anchored", "iterative")


def build_items(
    examples: list[Example], dataset: str, *, embedder: str | None = None, decomposers: tuple[str, ...] = ("anchored",)
) -> tuple[list[LaterHopItem], Counter[str]]:
    """One item per usable question (its last hop), with every source's hypothesis. Skips are counted."""
    items, skipped = usable_items(examples, dataset)
    attach_deployable(items, dataset, embedder=embedder, decomposers=decomposers)
    return items, skipped


def _kind(dataset: str) -> str:
    kind = "2wiki" if dataset.startswith("2wiki") else "musique" if dataset.startswith("musique") else dataset
    if kind not in {"musique", "2wiki"}:
        raise UsageError(f"later-hop needs gold decompositions: dataset 'musique' or '2wiki', not {dataset!r}")
    return kind


def usable_items(examples: list[Example], dataset: str) -> tuple[list[LaterHopItem], Counter[str]]:
    """The questions with a usable later hop and their gold-built hypotheses; no model is loaded."""
    skipped: Counter[str] = Counter()
    items: list[LaterHopItem] = []
    kind = _kind(dataset)
    for ex in examples:
        dec: list[SubQuestion] | None
        if kind == "musique":
            dec = ex.decomposition
        else:
            if ex.qtype not in {"compositional", "inference"}:
                skipped[f"qtype {ex.qtype} (no chained hops)"] += 1
                continue
            dec = evidence_decomposition(ex)
        if not dec or len(dec) < 2:
            skipped["no usable decomposition"] += 1
            continue
        last = dec[-1]
        if last.paragraph_idx is None:
            skipped["later hop's paragraph not identified"] += 1
            continue
        gold_vals = {i + 1: d.answer for i, d in enumerate(dec)}
        item = LaterHopItem(ex, target=len(dec), positive=last.paragraph_idx)
        subq = resolve(last.question, gold_vals)
        item.questions = {"original": ex.question, "gold-subq": subq, "gold-subq+answer": subq}
        item.hypotheses = {
            "original": hypothesis(ex.question),
            "gold-subq": hypothesis(subq),
            "gold-subq+answer": hypothesis(subq, last.answer),
        }
        items.append(item)
    return items, skipped


def attach_deployable(
    items: list[LaterHopItem], dataset: str, *, embedder: str | None = None, decomposers: tuple[str, ...] = ("anchored",)
) -> None:
    """Add the deployable decompositions' hypotheses; embeds only these items' questions and paragraphs."""
    from chainret.pipeline.embed import embed_texts

    kind = _kind(dataset)
    bad = [d for d in decomposers if d not in DECOMPOSERS]
    if bad:
        raise UsageError(f"unknown decomposer {bad[0]!r}; valid: {', '.join(DECOMPOSERS)}")
    if not items:
        return
    # The retrieval anchor: the top paragraph by embedding similarity to the question (as the retriever ranks).
    texts: list[str] = []
    for it in items:
        texts.append(it.example.question)
        texts.extend(passage(p) for p in it.example.paragraphs)
    vecs = embed_texts(texts, embedder)
    pos = 0
    for it in items:
        n = len(it.example.paragraphs)
        qv, pv = vecs[pos], vecs[pos + 1 : pos + 1 + n]
        pos += 1 + n
        it.notes["anchor_gold"] = _top(qv, pv, set()) in it.example.gold_indices
        if "anchored" in decomposers:
            if kind == "musique":
                _anchored_musique(it, qv, pv, embedder)
            else:
                _rule_2wiki(it, qv, pv)
        if "iterative" in decomposers:
            _iterative(it, pv, kind, embedder)


def _iterative(it: LaterHopItem, pv: np.ndarray, kind: str, embedder: str | None) -> None:
    """The iterative decomposer (``verify.iterative``) sees the question, titles and texts only."""
    from chainret.pipeline.embed import embed_texts
    from chainret.research.verification.iterative import IterativeDecomposer, candidates_of

    ex = it.example
    dec = IterativeDecomposer(lambda t: embed_texts(list(t), embedder)).decompose(
        ex.question, candidates_of(ex), dataset=kind, pvecs=pv
    )
    it.questions["iterative"] = dec.final_question
    it.hypotheses["iterative"] = hypothesis(dec.final_question)
    it.notes["iterative"] = dec.to_dict()
    it.notes["iterative_template"] = dec.final_template
    # scoring only (never fed back): first anchor gold? bridges equal to the gold decomposition's answers?
    gold = _gold_chain(ex)
    steps = dec.steps
    it.notes["iterative_anchor_gold"] = bool(steps) and steps[0].anchor in ex.gold_indices
    it.notes["iterative_eval"] = {
        "steps": len(steps),
        "gold_bridges": len(gold) - 1,
        "bridge_correct": [_same(s.bridge, gold[s.hop - 1].answer) if s.hop - 1 < len(gold) - 1 else None for s in steps],
        "anchor_is_gold_hop": [s.anchor == gold[s.hop - 1].paragraph_idx if s.hop - 1 < len(gold) else None for s in steps],
        "last_bridge_correct": bool(steps) and _same(steps[-1].bridge, gold[-2].answer),
    }


def _gold_chain(ex: Example) -> list[SubQuestion]:
    return (ex.decomposition if ex.dataset.startswith("musique") else evidence_decomposition(ex)) or []


def _anchored_musique(it: LaterHopItem, qv: np.ndarray, pv: np.ndarray, embedder: str | None) -> None:
    """Resolve #1..#(T-1) hop by hop: each anchor names the next bridge; no gold answer is read."""
    from chainret.pipeline.embed import embed_texts

    ex = it.example
    dec = ex.decomposition or []
    anchor = _top(qv, pv, set())
    it.notes["anchor_gold"] = anchor in ex.gold_indices
    it.notes["anchor_is_first_hop"] = anchor == dec[0].paragraph_idx
    used = {anchor}
    bridges: dict[int, str] = {}
    methods = []
    for k in range(1, len(dec)):
        subq_k = dec[k - 1].question
        name, how = extract_bridge(
            ex.paragraphs[anchor], ex.paragraphs, _relation_of(subq_k),
            exclude=tuple(bridges.values()) + _named_in(ex.question, ex.paragraphs),
        )
        bridges[k] = name
        methods.append(how)
        nxt = resolve(dec[k].question, bridges)
        titled = [p.idx for p in ex.paragraphs if norm_name(p.title) == norm_name(name) and p.idx not in used]
        anchor = titled[0] if how == "title" and titled else _top(embed_texts([nxt], embedder)[0], pv, used)
        used.add(anchor)
    subq = resolve(dec[-1].question, bridges)
    it.questions["anchored-subq"] = subq
    it.hypotheses["anchored-subq"] = hypothesis(subq)
    it.notes["bridges"] = bridges
    it.notes["bridge_methods"] = methods


def _named_in(question: str, paragraphs: list) -> tuple[str, ...]:
    """Titles the question itself names: first-hop entities, never the bridge being sought."""
    q = " " + norm_name(question) + " "
    return tuple(p.title for p in paragraphs if norm_name(p.title) and f" {norm_name(p.title)} " in q)


def _rule_2wiki(it: LaterHopItem, qv: np.ndarray, pv: np.ndarray) -> None:
    """Rule decomposition of the question; the bridge read from the anchor paragraph."""
    ex = it.example
    d = decompose_2wiki(ex.question)
    top = _top(qv, pv, set())
    it.notes["anchor_gold"] = top in ex.gold_indices
    if d is None:
        it.questions["rule-decomp"] = ex.question
        it.hypotheses["rule-decomp"] = hypothesis(ex.question)  # no pattern: the original question, flagged
        it.notes["rule"] = "no-pattern"
        return
    # entity linking: the retrieved paragraph titled with the question's entity, else the retriever's top one
    linked = [p.idx for p in ex.paragraphs if norm_name(p.title) == norm_name(d.entity)]
    anchor = linked[0] if linked else top
    name, how = extract_bridge(ex.paragraphs[anchor], ex.paragraphs, d.relations[0])
    subq = relation_question(name, d.relations[1])
    it.questions["rule-decomp"] = subq
    it.hypotheses["rule-decomp"] = hypothesis(subq)
    it.notes.update(
        rule="ok",
        relations=list(d.relations),
        relations_match_gold=tuple(d.relations) == tuple(e.relation for e in ex.evidences or []),
        anchor_linked=bool(linked),
        anchor_is_first_hop=anchor == _first_hop_idx(ex),
        bridge=name,
        bridge_method=how,
        bridge_correct=bool(ex.evidences and _same(name, ex.evidences[0].object)),
    )


def _first_hop_idx(ex: Example) -> int | None:
    dec = evidence_decomposition(ex)
    return dec[0].paragraph_idx if dec else None


def _same(a: str, b: str) -> bool:
    return norm_name(a) == norm_name(b) or (bool(norm_name(a)) and norm_name(a) in norm_name(b)) or (
        bool(norm_name(b)) and norm_name(b) in norm_name(a)
    )


def score_items(items: list[LaterHopItem], scorer: EntailmentScorer, progress: Any = None) -> dict[str, list[np.ndarray]]:
    """P(entail | paragraph, hypothesis_source) for every item, paragraph and source."""
    sources = sorted({s for it in items for s in it.hypotheses}, key=_source_order)
    pairs: list[tuple[str, str]] = []
    for it in items:
        texts = [passage(p) for p in it.example.paragraphs]
        for s in sources:
            pairs.extend((t, it.hypotheses[s]) for t in texts)
    probs = scorer.p_entail(pairs, progress=progress)
    out: dict[str, list[np.ndarray]] = {s: [] for s in sources}
    pos = 0
    for it in items:
        n = len(it.example.paragraphs)
        for s in sources:
            out[s].append(probs[pos : pos + n])
            pos += n
    return out


def _source_order(s: str) -> int:
    order = ["original", "gold-subq", "gold-subq+answer", "anchored-subq", "rule-decomp", "iterative"]
    return order.index(s) if s in order else len(order)


def summarize(
    items: list[LaterHopItem], scores: dict[str, list[np.ndarray]], *, n_resamples: int = M.N_RESAMPLES, seed: int = M.SEED
) -> dict[str, Any]:
    labels = [np.arange(len(it.example.paragraphs)) == it.positive for it in items]
    hops = [str(it.target) for it in items]

    def auc(sc: list[np.ndarray], idx: list[int]) -> dict[str, Any]:
        """AUC with question-bootstrap CI over the items ``idx``."""
        return M.auc_ci([sc[i] for i in idx], [labels[i] for i in idx], n_resamples=n_resamples, seed=seed).as_dict()

    out: dict[str, Any] = {"sources": {}, "lifts": {}}
    for s, sc in scores.items():
        entry: dict[str, Any] = {"overall": auc(sc, list(range(len(items)))), "by_hops": {}}
        for h in sorted(set(hops)):
            entry["by_hops"][h] = auc(sc, [i for i, x in enumerate(hops) if x == h])
        entry["mean_p_entail_positive"] = float(np.mean([sc[i][it.positive] for i, it in enumerate(items)]))
        out["sources"][s] = entry
    for s in scores:
        if s != "original":
            out["lifts"][f"{s} - original"] = M.paired_auc_diff(scores["original"], scores[s], labels, n_resamples=n_resamples, seed=seed).as_dict()
    for base in ("anchored-subq", "rule-decomp"):  # the iterative decomposer against the single-anchor one
        if "iterative" in scores and base in scores:
            out["lifts"][f"iterative - {base}"] = M.paired_auc_diff(scores[base], scores["iterative"], labels, n_resamples=n_resamples, seed=seed).as_dict()
    for s in ("anchored-subq", "rule-decomp", "iterative"):
        if s not in scores:
            continue
        groups: dict[str, Any] = {}
        for key in ("anchor_gold", "iterative_anchor_gold") if s == "iterative" else ("anchor_gold",):
            for val in (True, False):
                idx = [i for i, it in enumerate(items) if it.notes.get(key) is val]
                if idx:
                    groups[f"{key}={val}"] = auc(scores[s], idx)
        out["sources"][s]["by_anchor"] = groups
    if "iterative" in scores and "gold-subq" in scores and "original" in scores:
        o, g, d = (out["sources"][k]["overall"]["value"] for k in ("original", "gold-subq", "iterative"))
        out["iterative_ceiling_share"] = (d - o) / (g - o) if g != o else None
    if any("iterative_eval" in it.notes for it in items):
        out["iterative_decomposer"] = iterative_diagnostics(items)
    rule = [it for it in items if "rule" in it.notes]
    if rule:
        ok = [it for it in rule if it.notes["rule"] == "ok"]
        out["rule_decomposer"] = {
            "questions": len(rule),
            "pattern_matched": len(ok),
            "relations_match_gold": sum(1 for it in ok if it.notes.get("relations_match_gold")),
            "bridge_correct": sum(1 for it in ok if it.notes.get("bridge_correct")),
            "bridge_methods": dict(Counter(it.notes.get("bridge_method") for it in ok)),
        }
    anch = [it for it in items if "bridge_methods" in it.notes]
    if anch:
        out["anchor_chain"] = {
            "questions": len(anch),
            "anchor_gold": sum(1 for it in anch if it.notes.get("anchor_gold")),
            "bridges_correct": sum(
                1 for it in anch if all(_same(b, d.answer) for b, d in zip(it.notes["bridges"].values(), it.example.decomposition or []))
            ),
            "bridge_methods": dict(Counter(m for it in anch for m in it.notes["bridge_methods"])),
        }
    return out


def iterative_diagnostics(items: list[LaterHopItem]) -> dict[str, Any]:
    """Bridge accuracy per hop (against the gold decomposition's answers) and where each chain breaks."""
    evs = [(it, it.notes["iterative_eval"]) for it in items if "iterative_eval" in it.notes]
    per_hop: dict[str, dict[str, int]] = {}
    for _, e in evs:
        for k, ok in enumerate(e["bridge_correct"], start=1):
            if ok is None:
                continue
            row = per_hop.setdefault(str(k), {"n": 0, "correct": 0})
            row["n"] += 1
            row["correct"] += int(ok)
    breaks: Counter[str] = Counter()
    by_hops: dict[str, Counter[str]] = {}
    for it, e in evs:
        why = chain_break(e)
        breaks[why] += 1
        by_hops.setdefault(str(it.target), Counter())[why] += 1
    return {
        "questions": len(evs),
        "steps_equal_gold": sum(1 for _, e in evs if e["steps"] == e["gold_bridges"]),
        "steps": dict(Counter(str(e["steps"]) for _, e in evs)),
        "bridge_accuracy_by_hop": per_hop,
        "last_bridge_correct": sum(1 for _, e in evs if e["last_bridge_correct"]),
        "all_bridges_correct": sum(1 for _, e in evs if e["steps"] == e["gold_bridges"] and all(e["bridge_correct"])),
        "first_anchor_gold": sum(1 for it, _ in evs if it.notes.get("iterative_anchor_gold")),
        "bridge_methods": dict(Counter(s["bridge_how"] for it, _ in evs for s in it.notes["iterative"]["steps"])),
        "chain_breaks": dict(breaks),
        "chain_breaks_by_hops": {h: dict(c) for h, c in sorted(by_hops.items())},
    }


def chain_break(e: dict[str, Any]) -> str:
    """Where an iterative chain first leaves the gold chain (hops aligned by position)."""
    if e["steps"] == 0:
        return "no descriptor found (original question kept)"
    for k, (ok, anchor_ok) in enumerate(zip(e["bridge_correct"], e["anchor_is_gold_hop"]), start=1):
        if ok is None:
            break
        if not ok:
            return f"hop {k}: anchor wrong" if not anchor_ok else f"hop {k}: bridge wrong (anchor right)"
    if e["steps"] < e["gold_bridges"]:
        return "fewer hops than gold (bridges so far right)"
    if e["steps"] > e["gold_bridges"]:
        return "more hops than gold (bridges so far right)"
    return "every bridge right"


def build_traces(items: list[LaterHopItem], scores: dict[str, list[np.ndarray]], model_id: str) -> list[Trace]:
    """One Trace per question: the later hop, every paragraph's P(entail) per hypothesis source."""
    traces = []
    for q, it in enumerate(items):
        ex = it.example
        main = scores.get("gold-subq", next(iter(scores.values())))[q]
        order = np.argsort(-main, kind="mergesort")
        hits = [
            Hit(ref=ex.paragraphs[i].ref, rank=r + 1, score=float(main[i]), title=ex.paragraphs[i].title,
                scores={s: float(scores[s][q][i]) for s in scores})
            for r, i in enumerate(order)
        ]
        ver = [
            Verification(hop=it.target, question=it.questions[s], hypothesis=it.hypotheses[s], hypothesis_kind=s,
                         premise_refs=[p.ref], p_entail=float(scores[s][q][p.idx]), model=model_id)
            for s in scores
            for p in ex.paragraphs
        ]
        hop = Hop(index=it.target, kind="retrieval", subquery=it.questions.get("gold-subq", ex.question), hits=hits, verifications=ver)
        notes = {k: v for k, v in it.notes.items() if k not in {"bridges", "iterative"}}
        if "bridges" in it.notes:
            notes["bridges"] = {str(k): v for k, v in it.notes["bridges"].items()}
        traces.append(
            Trace(
                request=ex.question, kind="bench", route="later-hop", dataset=ex.dataset, question_id=ex.id,
                hops=[*_iterative_hops(it), hop], outcome="retrieved",
                meta={"positive_ref": ex.paragraphs[it.positive].ref, "hops": it.target, "qtype": ex.qtype, **notes},
            )
        )
    return traces


def _iterative_hops(it: LaterHopItem) -> list[Hop]:
    """The iterative decomposer's hops, as a chain trace records them: filled sub-question, anchor, bridge."""
    dec = it.notes.get("iterative")
    if not dec:
        return []
    ps = it.example.paragraphs
    return [
        Hop(index=st["hop"], kind="retrieval", branch="iterative", subquery=st["subquestion"], predicate=st["template"],
            hits=[Hit(ref=ps[st["anchor"]].ref, rank=1, score=float(st["anchor_score"]), title=ps[st["anchor"]].title)],
            bridge=st["bridge"], candidate_bridges=[a["name"] for a in st["alternatives"] if a["name"] != st["bridge"]])
        for st in dec["steps"]
    ]


def run_later_hop(
    dataset: str,
    out: Path | None = None,
    *,
    data_dir: str | None = None,
    n: int | None = None,
    seed: int = 1337,
    nli_model: str | None = None,
    embedder: str | None = None,
    n_resamples: int = M.N_RESAMPLES,
    scorer: EntailmentScorer | None = None,
    progress: Any = None,
    on_total: Any = None,
    decomposers: tuple[str, ...] = ("anchored",),
    collect: dict[str, Any] | None = None,
    skip_sources: tuple[str, ...] = (),
    first: int | None = None,
) -> dict[str, Any]:
    """Load, build hypotheses, score, summarise; write ``traces.jsonl`` and ``summary.json`` under ``out``.

    ``collect`` (a dict), when given, receives the ``items`` and their ``scores`` for further analysis;
    ``first`` keeps the first usable questions in file order instead of a sample (a run cut short by CPU
    reuses the NLI scores already cached for them); ``skip_sources`` names hypothesis sources not to score (e.g. ``gold-subq+answer`` when only the
    deployable rows are wanted: fewer NLI calls).
    """
    from chainret.research.qa.datasets import load_examples
    from chainret.research.verification.scorer import get_scorer

    t0 = time.perf_counter()
    loaded = load_examples(dataset, data_dir=data_dir, seed=seed)
    items, skipped = usable_items(loaded.examples, dataset)
    if not items:
        raise UsageError(f"{dataset}: no question has a usable later hop ({dict(skipped)})")
    if first is not None:
        items = items[:first]
    elif n is not None and n < len(items):  # sample among usable questions (2Wiki: compositional/inference only)
        import random

        keep = sorted(random.Random(seed).sample(range(len(items)), n))
        items = [items[i] for i in keep]
    attach_deployable(items, dataset, embedder=embedder, decomposers=decomposers)  # embeds the sample only
    for it in items:
        for src in skip_sources:
            it.hypotheses.pop(src, None)
    scorer = scorer or get_scorer(nli_model)
    t1 = time.perf_counter()
    if on_total:
        on_total(sum(len(it.example.paragraphs) * len(it.hypotheses) for it in items))
    scores = score_items(items, scorer, progress=progress)
    t2 = time.perf_counter()
    summary = summarize(items, scores, n_resamples=n_resamples, seed=seed)
    if collect is not None:
        collect.update(items=items, scores=scores)
    summary.update(
        dataset=dataset,
        n_loaded=len(loaded.examples),
        n_questions=len(items),
        n_pairs=int(sum(len(it.example.paragraphs) for it in items)),
        skipped=dict(skipped),
        nli_model=scorer.model_id,
        embedder=embedder or "all-MiniLM-L6-v2",
        decomposers=list(decomposers),
        selection=f"first {len(items)} in file order" if first is not None else ("sample" if n is not None else "all"),
        seed=seed,
        question_ids=[it.example.id for it in items],
        hypotheses_example={s: items[0].hypotheses[s] for s in items[0].hypotheses},
        paper=PAPER if dataset.startswith("musique") else None,
        timings={"build_s": t1 - t0, "score_s": t2 - t1, "nli_calls": scorer.calls},
    )
    if out is not None:
        import json

        from chainret.core.files import atomic_write_text

        out = Path(out)
        traces = build_traces(items, scores, scorer.model_id)
        atomic_write_text(out / "traces.jsonl", "".join(t.to_json(indent=None) + "\n" for t in traces))
        atomic_write_text(out / "summary.json", json.dumps(rounded(summary), indent=2, sort_keys=True) + "\n")
    return summary


def cond_selection(
    items: list[LaterHopItem], scorer: EntailmentScorer, sources: tuple[str, ...], *, k: int = 5, embedder: str | None = None,
    n_resamples: int = M.N_RESAMPLES, seed: int = M.SEED, progress: Any = None,
) -> dict[str, Any]:
    """Seed 000's COND selector (Algorithm 1) with the hypothesis taken from each source.

    The retriever's top chunk (embedding, original question) is the anchor; the completion is the argmax
    over the other k-1 of P(entail | anchor ⊕ cj, H(source)). Reported per source: gold recall, argmax
    pair accuracy, and how often the later hop's own paragraph is kept, with question-bootstrap CIs;
    overall and on the 2-hop questions (the seed's end-to-end subset).
    """
    from chainret.pipeline.embed import embed_texts
    from chainret.research.verification.selectors import pair_premise

    texts: list[str] = []
    for it in items:
        texts.append(it.example.question)
        texts.extend(passage(p) for p in it.example.paragraphs)
    vecs = embed_texts(texts, embedder)
    tops, pos = [], 0
    for it in items:
        n = len(it.example.paragraphs)
        tops.append(M.top_k(vecs[pos + 1 : pos + 1 + n] @ vecs[pos], k))
        pos += 1 + n
    pairs, jobs = [], []
    for q, it in enumerate(items):
        anchor_text = passage(it.example.paragraphs[tops[q][0]])
        for s in sources:
            for j in tops[q][1:]:
                jobs.append((q, s, j))
                pairs.append((pair_premise(anchor_text, passage(it.example.paragraphs[j])), it.hypotheses[s]))
    probs = scorer.p_entail(pairs, progress=progress)
    best: dict[tuple[int, str], tuple[float, int]] = {}
    for (q, s, j), p in zip(jobs, probs):
        if (q, s) not in best or float(p) > best[(q, s)][0]:  # ties: retrieval order (first seen) wins
            best[(q, s)] = (float(p), j)
    out: dict[str, Any] = {"k": k, "nli_calls_per_question": k - 1, "anchor_gold": float(np.mean([t[0] in it.example.gold_indices for t, it in zip(tops, items)]))}
    for subset, idx in (("all", list(range(len(items)))), ("2-hop", [i for i, it in enumerate(items) if it.target == 2])):
        rows: dict[str, Any] = {}
        for s in sources:
            kept = {q: [tops[q][0], best[(q, s)][1]] for q in idx}
            rec = np.array([M.selected_recall(kept[q], items[q].example.gold_indices) for q in idx])
            pair = np.array([float(M.argmax_correct(kept[q], items[q].example.gold_indices)) for q in idx])
            later = np.array([float(items[q].positive in kept[q]) for q in idx])

            def ci(v: np.ndarray) -> dict[str, float]:
                def mean_of(ix: np.ndarray) -> float:
                    return float(np.mean(v[ix])) if len(ix) else float("nan")

                return M.bootstrap(len(v), mean_of, n_resamples=n_resamples, seed=seed).as_dict()

            rows[s] = {"gold_recall": ci(rec), "argmax_pair_accuracy": ci(pair), "later_hop_kept": ci(later)}
        out[subset] = {"n": len(idx), "sources": rows}
    return out


def rounded(value: Any, digits: int = 6) -> Any:
    """Floats rounded inside nested dicts/lists (stable JSON for summaries)."""
    if isinstance(value, float):
        return round(value, digits)
    if isinstance(value, dict):
        return {str(k): rounded(v, digits) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [rounded(v, digits) for v in value]
    return value
