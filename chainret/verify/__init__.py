"""Traces that prove themselves: ``chainret trace verify`` and golden traces (``replay``); signed traces checked without the store (``signing``, ``offline``)."""
