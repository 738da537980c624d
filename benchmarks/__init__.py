"""The benchmarks: each module writes one results page under ``docs/results/`` (``python -m benchmarks.<name>``).

A package, not a folder of scripts, so a benchmark imports chainret (installed editable by the README's
venv), its sibling benchmarks and the harnesses (``benchmarks.harness``) by name, with no ``sys.path``
edits. A benchmark that measures another checkout (``--src``) runs a child process with that checkout on
``PYTHONPATH`` (``benchmarks.harness.checkout``). ``benchmarks/manifest.yaml`` lists every page, the
command that writes it and its aims; ``python -m benchmarks run|check`` runs the commands or checks the aims.
Not shipped: the wheel holds ``chainret`` only, and no chainret module imports this package.
"""
