"""Benchmark layer: adapters, metrics, signals and runs over HotpotQA, 2Wiki, MuSiQue and SQuAD."""
