"""The bottom layer: codes, errors, limits, atomic writes, safe display, stable JSON and the session.

Stable codes, the exception tree, request limits, atomic writes, safe display of data, stable JSON, trusted model
construction and the per-process session. Imports nothing else from chainret."""
