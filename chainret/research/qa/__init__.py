"""Multi-hop QA foundations: benchmark adapters, examples, metrics, embeddings, relevance signals and
the seeds' published figures.

The layer under ``chainret.research.verification``, ``chainret.pack`` and ``chainret.research.bench`` (the runs and reports):
it imports none of them, so verification and packing never reach up into a benchmark run.
"""
