"""Test and benchmark harnesses: not part of the shipped package.

Importable as ``support`` from the tests (pytest puts ``tests/`` on ``sys.path``: rootdir conftest, no
``tests/__init__.py``) and from the benchmarks (each inserts ``<repo>/tests``). Every path here is
resolved from this folder's own location inside the repository, so they work from any directory.
"""
