"""How well does the no-LLM decomposition work, before any NLI model is involved?

    python -m benchmarks.verify_decompose

2Wiki (compositional + inference questions with a two-hop evidence chain): does the relation-phrase
decomposer match the question, do its relations equal the gold ``evidences`` relations, and is the
bridge read from the anchor paragraph the gold bridge entity? MuSiQue: how often the anchor chain
resolves the first placeholder (and all placeholders) to the gold intermediate answers. Uses only
the embedder (for the retrieval anchor); prints counts.
"""

from __future__ import annotations

import os
from collections import Counter

from benchmarks.harness.paths import use_data_dir  # noqa: E402

use_data_dir()  # chainret has no default data folder: ../shared/data beside the repo, or $CHAINRET_DATA_DIR
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def main() -> None:
    from chainret.research.qa.datasets import load_examples
    from chainret.research.verification.laterhop import _same, build_items

    items, skipped = build_items(load_examples("2wiki").examples, "2wiki")
    ok = [it for it in items if it.notes.get("rule") == "ok"]
    print(f"2wiki: {len(items)} chained questions (skipped: {dict(skipped)})")
    print(f"  pattern matched {len(ok)} ({len(ok) / len(items):.1%}); relations equal gold evidences "
          f"{sum(it.notes['relations_match_gold'] for it in ok)}; bridge = gold bridge entity "
          f"{sum(it.notes['bridge_correct'] for it in ok)} ({sum(it.notes['bridge_correct'] for it in ok) / len(items):.1%} of all)")
    print(f"  bridge found by: {dict(Counter(it.notes['bridge_method'] for it in ok))}")

    items, skipped = build_items(load_examples("musique").examples, "musique")
    first = sum(_same(it.notes["bridges"][1], it.example.decomposition[0].answer) for it in items)
    every = sum(all(_same(b, d.answer) for b, d in zip(it.notes["bridges"].values(), it.example.decomposition)) for it in items)
    print(f"musique: {len(items)} questions; retriever's top paragraph is gold {sum(it.notes['anchor_gold'] for it in items)}; "
          f"first placeholder resolved to the gold answer {first} ({first / len(items):.1%}); all placeholders {every}")
    print(f"  bridges found by: {dict(Counter(m for it in items for m in it.notes['bridge_methods']))}")


if __name__ == "__main__":
    import argparse
    import sys

    argparse.ArgumentParser(prog="python -m benchmarks.verify_decompose", description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter).parse_args(sys.argv[1:])
    main()
