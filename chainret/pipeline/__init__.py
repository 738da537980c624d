"""One request end to end: ``ask`` interprets, hops, packs (``packet``) and projects (``projection``);
``baselines`` are the text routes it is compared with (``embed`` is their dense encoder)."""
