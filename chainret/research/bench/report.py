"""Render a bench run's ``summary.json`` as markdown tables and PNG figures."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from chainret.research.qa.metrics import too_few, withheld

TYPE_ORDER = ("comparison", "compositional", "inference", "bridge_comparison", "bridge", "single")


def est(d: dict[str, Any] | None, digits: int = 3, ci: bool = True) -> str:
    """An ``Estimate.as_dict`` (JSON) as "0.812 [0.790, 0.833]"; "n/a" when undefined, and
    "n/a (3 paragraphs)" when it rests on too few gold paragraphs (``metrics.MIN_SPLIT_PARAGRAPHS``)."""
    few = too_few(d)
    if few is not None:
        return withheld(few)
    if not d or d.get("value") is None or (isinstance(d["value"], float) and math.isnan(d["value"])):
        return "n/a"
    v = f"{d['value']:+.{digits}f}" if d.get("signed") else f"{d['value']:.{digits}f}"
    if ci and d.get("low") is not None and d.get("high") is not None:
        return f"{v} [{d['low']:.{digits}f}, {d['high']:.{digits}f}]"
    return v


def signed(d: dict[str, Any] | None, digits: int = 3) -> str:
    few = too_few(d)
    if few is not None:
        return withheld(few)
    if not d or d.get("value") is None:
        return "n/a"
    lo, hi = d.get("low"), d.get("high")
    ci = f" [{lo:+.{digits}f}, {hi:+.{digits}f}]" if lo is not None and hi is not None else ""
    return f"{d['value']:+.{digits}f}{ci}"


def md_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _group_key(g: str) -> tuple[int, str]:
    if g.isdigit():
        return (int(g), g)
    return (TYPE_ORDER.index(g) if g in TYPE_ORDER else len(TYPE_ORDER), g)


def auc_rows(summary: dict[str, Any]) -> list[list[str]]:
    rows = []
    for sig, m in summary["metrics"].items():
        a = m["auc"]
        r = m.get("recall_at", {})
        rows.append(
            [
                sig,
                est(a["overall"]),
                est(a["answer_bearing"]),
                est(a["bridge_only"]),
                signed(a["deficit"]),
                " / ".join(f"{r[k]:.3f}" for k in ("1", "2", "5") if k in r),
                f"{m.get('anchor_gold', float('nan')):.3f}",
            ]
        )
    return rows


def group_rows(summary: dict[str, Any], key: str) -> list[list[str]]:
    rows = []
    for sig, m in summary["metrics"].items():
        for g, v in sorted(m.get(key, {}).items(), key=lambda kv: _group_key(kv[0])):
            rows.append(
                [f"{g} ({v.get('n', '?')})", sig, est(v["overall"]), est(v["answer_bearing"]), est(v["bridge_only"]), signed(v["deficit"])]
            )
    return rows


def selector_rows(summary: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    sel = summary.get("selector_summary") or {}
    cols: list[str] = []
    for rec in sel.values():
        for k in rec:
            if k not in cols and not isinstance(rec[k], (dict, list)):
                cols.append(k)
    rows = []
    for name, rec in sel.items():
        rows.append([name] + [_fmt(rec.get(c)) for c in cols])
    return ["selector", *cols], rows


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.3f}"
    return "" if v is None else str(v)


def render_report(summary: dict[str, Any]) -> str:
    """The run's report.md."""
    t = summary.get("timings", {})
    models = ", ".join(f"{k}: {v}" for k, v in summary.get("models", {}).items()) or "none"
    skipped = summary.get("skipped", [])
    parts = [
        f"# Bench run: {summary['dataset']}",
        "",
        f"- questions: {summary['n']} (seed {summary['seed']}); signals: {', '.join(summary['signals'])}; "
        f"hits ranked by {summary.get('primary_signal')}",
        f"- models: {models}",
        f"- data files: {', '.join(Path(f).name for f in summary.get('data_files', []))}",
        f"- skipped records: {len(skipped)}"
        + (f" ({sum(s['kind'] == 'excluded' for s in skipped)} known-incomplete, "
           f"{sum(s['kind'] == 'malformed' for s in skipped)} malformed)" if skipped else ""),
        f"- wall time: {t.get('total_s', 0):.1f} s ("
        + ", ".join(f"{k.removesuffix('_s')} {v:.1f} s" for k, v in t.items() if k != "total_s")
        + ")",
        "",
        "## Gold vs distractor AUC (95% question-bootstrap CI)",
        "",
        "_answer-bearing_: gold paragraphs containing the normalised answer; _bridge-only_: the other gold paragraphs; "
        "_deficit_ = bridge-only − answer-bearing (positive: the signal prefers the paragraph without the answer). "
        "recall@k over all gold paragraphs; anchor = top-1 paragraph is gold.",
        "",
        md_table(["signal", "AUC", "answer-bearing", "bridge-only", "deficit", "recall@1/2/5", "anchor"], auc_rows(summary)),
    ]
    for key, title in (("by_type", "By question type"), ("by_hops", "By hop count")):
        rows = group_rows(summary, key)
        if rows and len({r[0] for r in rows}) > 1:
            parts += ["", f"## {title}", "", md_table(["group (n)", "signal", "AUC", "answer-bearing", "bridge-only", "deficit"], rows)]
    header, rows = selector_rows(summary)
    if rows:
        parts += ["", "## Selectors (top-k retrieved)", "", md_table(header, rows)]
    return "\n".join(parts) + "\n"


def plot_run(summary: dict[str, Any], out_dir: Path) -> list[Path]:
    """PNG figures: AUC by hop count and by question type, one line per signal, CI bars."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    for key, xlabel, fname in (("by_hops", "hop count", "auc_by_hops.png"), ("by_type", "question type", "auc_by_type.png")):
        series = {s: m.get(key, {}) for s, m in summary["metrics"].items() if len(m.get(key, {})) > 1}
        if not series:
            continue
        fig, ax = plt.subplots(figsize=(6, 4))
        for sig, groups in series.items():
            gs = sorted(groups, key=_group_key)
            x = list(range(len(gs)))
            y = [groups[g]["overall"]["value"] for g in gs]
            lo = [groups[g]["overall"]["value"] - groups[g]["overall"]["low"] for g in gs]
            hi = [groups[g]["overall"]["high"] - groups[g]["overall"]["value"] for g in gs]
            ax.errorbar(x, y, yerr=[lo, hi], marker="o", capsize=4, label=sig)
            ax.set_xticks(x, [f"{g}\n(n={groups[g].get('n', '?')})" for g in gs])
        ax.axhline(0.5, color="grey", lw=0.8, ls=":")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("gold vs distractor AUC")
        ax.set_title(f"{summary['dataset']}: AUC by {xlabel} (95% CI)")
        ax.legend()
        fig.tight_layout()
        path = out_dir / fname
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    return written
