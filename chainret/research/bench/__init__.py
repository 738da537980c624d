"""Benchmark runs and reports: ``chainret bench run`` over HotpotQA, 2Wiki, MuSiQue and SQuAD.

Adapters, metrics and signals live one layer down in ``chainret.research.qa``.
"""
