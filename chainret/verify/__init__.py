"""Traces that prove themselves: ``chainret trace verify`` and golden traces (``replay``)."""
