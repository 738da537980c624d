"""Measuring: fixture cases (``cases``), request sets (``requests``) and the ``chainret validate`` walker (``validate``)."""
