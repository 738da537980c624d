"""The research layers, above the retriever: they import the engine (``chainret.trace.model``,
``chainret.pack``, ``chainret.pipeline.embed``, ...), the retriever never imports them.

- ``qa``: benchmark dataset adapters, examples, metrics, retrieval signals;
- ``packing``: the packers beyond ``naive``, token counts, packing runs (``chainret bench pack``);
- ``nli``: chainret's NLI model: data, training, loading, evaluation (``chainret nli``);
- ``verification``: hypothesis operator, NLI signals, selectors, later-hop measurement, decomposition;
- ``bench``: benchmark runs and reports (``chainret bench run``).

Nothing is imported here; import the subpackage you need.
"""
