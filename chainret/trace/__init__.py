"""The trace: one auditable record of a request (``model``), shared by the chain retriever and the benchmarks."""
