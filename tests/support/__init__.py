"""Test-only helpers: not part of the shipped package.

Importable as ``support`` from the tests (pytest puts ``tests/`` on ``sys.path``: rootdir conftest, no
``tests/__init__.py``). The harnesses the benchmarks drive too (local servers, fuzz cases, hostile inputs,
worlds ...) live in ``benchmarks.harness``; the tests import them from there.
"""
