"""The bottom layer: codes, errors, limits, atomic writes, safe display, stable JSON, word rules and the session.

Stable codes, the exception tree, request limits, atomic writes, safe display of data, stable JSON, the word
rules (tokens and filler words: words), trusted model construction and the per-process session. Imports
nothing else from chainret."""
