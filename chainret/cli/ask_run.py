"""The body of ``chainret ask``, without typer, and the argv fast path that runs it (issue 24).

``run_ask`` is the command: ``chainret.cli.ask_cmds.ask_cmd`` (the typer command: ``--help``, usage
errors, ``CliRunner``) calls it, and so does ``chainret.cli.main`` for the common invocations, which
``parse_ask_args`` reads without building typer's command (typer, its vendored click and its
pydantic adapters are most of a cold ask's import time). ``parse_ask_args`` answers None for
anything it does not fully understand (``--help``, an unknown, repeated or mistyped flag, a value
that typer might convert differently, ``--``, shell completion), and ``main`` then runs the typer
app as before. ``tests/test_cli_fast.py`` runs a matrix of invocations through both and compares
stdout, stderr and the exit code byte for byte.

The readable output goes through ``chainret.cli.plain`` (no rich) where it writes exactly what
rich would, else through ``chainret.cli.render``.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from chainret.core.errors import EXIT_NO, UsageError
from chainret.core.files import check_output_path
from chainret.core.textsafe import json_safe as json_out

if TYPE_CHECKING:
    from chainret.core.session import Session
    from chainret.store.base import CatalogReader
    from chainret.trace.model import Budget, Trace


def default_trace_dir() -> Path:
    """``$CHAINRET_TRACE_DIR``, else ``$XDG_CACHE_HOME/chainret/traces`` (``~/.cache/chainret/traces``)."""
    env = os.environ.get("CHAINRET_TRACE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "chainret" / "traces"


def _trace_name(trace: Trace) -> str:
    """A new file name: time, request hash, process id and a random part (no collision under concurrency)."""
    import datetime
    import hashlib
    import secrets

    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    h = hashlib.sha256(trace.request.encode("utf-8")).hexdigest()[:8]
    return f"{stamp}-{h}-{os.getpid()}-{secrets.token_hex(4)}.json"


def write_new_trace(trace: Trace, directory: Path) -> Path:
    """Write ``trace`` under a fresh generated name in ``directory``; never overwrites another file."""
    from chainret.trace.model import write_trace

    for _ in range(8):
        try:
            return write_trace(trace, directory / _trace_name(trace), exclusive=True)
        except FileExistsError:
            continue
    raise UsageError(f"could not find a free trace file name in {directory}")


def budget_from_flags(**values: int | None) -> Budget:
    """Only the flags given become explicit budget values (unset search/row caps scale with hops)."""
    from chainret.trace.model import Budget

    given = {k: v for k, v in values.items() if v is not None}
    if not given:
        from chainret.core.budget import DEFAULT_BUDGET

        return DEFAULT_BUDGET  # (``Budget()``, built without a validator: chainret.core.budget)
    try:
        return Budget(**given)
    except ValueError as exc:  # (pydantic's ValidationError: imported only where a flag is refused)
        msgs = "; ".join(f"--{'-'.join(map(str, e['loc'])).replace('_', '-')} ({e['loc'][0]}): {e['msg']}" for e in cast(Any, exc).errors())
        raise UsageError(f"bad budget flag: {msgs}") from None


def check_names(opened: Any, *, principal: str | None = None, viewer: str | None = None, view: str | None = None,
                principal_flag: str = "--principal") -> None:
    """Unknown principals and views are usage errors (exit 2) with did-you-mean, before any work."""
    from chainret.catalog.suggest import check_principal
    from chainret.catalog.views import check_view

    check_principal(opened, principal, principal_flag)
    check_principal(opened, viewer, "--as")
    check_view(opened, view)


def catalog_for(catalog: str | None, session: Session | None = None) -> CatalogReader:
    from chainret.store import is_store_spec, resolve_catalog

    if catalog is not None and not is_store_spec(catalog) and not Path(catalog).exists():
        from chainret.catalog.suggest import did_you_mean

        p = Path(catalog)
        near = [str(p.parent / c.name) if str(p.parent) != "." else c.name
                for c in (p.parent.iterdir() if p.parent.is_dir() else []) if looks_like_catalog(c)]
        raise UsageError(f"catalog {catalog} does not exist{did_you_mean(str(p), near)}")
    return resolve_catalog(catalog, session)


_FILE_SUFFIXES = (".yaml", ".yml", ".json")  # chainret.catalog.load.SUFFIXES (not imported: that loads the YAML reader)
_MARKERS = (b"chainret-catalog/", b"chainret-cases/")  # the ``format:`` of a catalog file or a cases file


def looks_like_catalog(path: Path) -> bool:
    """Whether ``path`` is something ``--catalog`` takes, so a did-you-mean offers it (``tokens.yaml`` is
    YAML but no catalog): a world directory (``catalog.yaml``/``.json`` in it), a compiled store by
    its suffix, or a catalog or cases file, told by the ``format:`` marker in its first 4 KiB."""
    from chainret.store import SQLITE_SUFFIXES

    try:
        if path.is_dir():
            return any((path / f"catalog{s}").is_file() for s in _FILE_SUFFIXES)
        suffix = path.suffix.lower()
        if suffix in SQLITE_SUFFIXES:
            return path.is_file()
        if suffix not in _FILE_SUFFIXES or not path.is_file():  # (never opens a FIFO: is_file first)
            return False
        with path.open("rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return any(m in head for m in _MARKERS)


def echo(text: str) -> None:
    """``click.echo(text)`` for a text that holds no terminal codes, on a UTF-8 stdout (``parse_ask_args`` checks)."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _print_lines(lines: Sequence[Any], width: int | None) -> None:
    """Lines of parts (``chainret.cli.plain``) on stdout: as plain text where it is rich's very output, else through rich."""
    from chainret.cli.plain import plain_text

    text = plain_text(lines, width) if width is not None and width > 0 else None
    if text is None:
        from chainret.cli.plain import TableItem
        from chainret.cli.render import console, fit_table, t

        for item in lines:
            if isinstance(item, TableItem):
                console.print(fit_table(item.columns, item.rows, width=console.width, title=item.title))
            else:
                console.print(t(*item))
        return
    sys.stdout.write(text)
    sys.stdout.flush()


def json_with_answer(trace: Trace, names: dict[str, str]) -> str:
    """``ask --json``: the trace's JSON plus ``answer``, the ID and display name of the accepted path's last
    entity (null without one), and a count ask's ``count`` (``chainret.render.answers.count_words``), as HTTP ``/ask`` reports them (``chainret.pipeline.ask.named_path``). A set answer
    (a 1.1 trace) names every member in place: each of ``answers`` gains ``name`` and ``path`` (ID and name of
    each entity, start first) beside the trace's ``id``, ``path_ids`` and ``relations``, and ``completeness``
    says whether that is all; ``answer`` stays the first member, for scripts that read one value. The trace
    file holds the trace alone."""
    import json

    from chainret.pipeline.ask import named_path
    from chainret.render.answers import check_words, count_words, named_answers

    path = named_path(trace, names)
    data = json.loads(trace.to_json())  # stable JSON (sorted keys, rounded floats): the same text, a few keys more
    data["answer"] = {"id": path[-1][0], "name": path[-1][1]} if path else None
    if (number := count_words(trace)) is not None:  # a count ask: its number as words ("99 (25 shown)", "at least 3")
        data["count"] = number
    if (checked := check_words(trace, names)) is not None:  # a yes/no ask: "yes", "no" or "not known", and why
        data["check"] = {"answer": checked[0], "why": checked[1]}
    for entry, named in zip(data.get("answers") or [], named_answers(trace, names), strict=True):
        entry["name"] = named.name
        entry["path"] = [{"id": i, "name": n} for i, n in named.path]
    return json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False)


def _completeness_to_stderr(trace: Trace) -> None:
    """``-q`` prints a set one member per line for scripts; a part of a set still says so, on stderr."""
    from chainret.cli.plain import completeness_line
    from chainret.core.textsafe import visible
    from chainret.render.answers import is_set

    if is_set(trace) and trace.completeness is not None and not trace.completeness.complete:
        sys.stderr.write("".join(visible(p if isinstance(p, str) else p[0]) for p in completeness_line(trace, label=False)) + "\n")
        sys.stderr.flush()


def run_ask(
    request: str, *, catalog: str | None = None, view: str | None = None, viewer: str | None = None,
    principal: str = "public", as_json: bool = False, trace_out: Path | None = None, no_trace: bool = False,
    quiet: bool = False, text_route: bool = False, no_backtrack: bool = False, rows_per_hop: int | None = None,
    max_searches: int | None = None, max_rows: int | None = None, max_hops: int | None = None,
    packet_units: int | None = None, packet_chars: int | None = None, no_proofs: bool = False,
    today: str | None = None, echo: Callable[[str], Any] = echo,
) -> int:
    """``chainret ask``: the answer (or why not) on stdout, then the trace file; the exit code (0 or ``EXIT_NO``)."""
    from chainret.pipeline.ask import answer

    if not request.strip():  # not a request: nothing to interpret, no trace to write
        raise UsageError('the request is empty: give the words to answer, e.g. chainret ask "Which contact serves PR-84?"')
    day = today_flag(today)
    budget = budget_from_flags(
        rows_per_hop=rows_per_hop, max_searches=max_searches, max_rows=max_rows, max_hops=max_hops,
        packet_units=packet_units, packet_chars=packet_chars,
    )
    if trace_out is not None and not no_trace:
        check_output_path(trace_out, create_parent=False)  # fail before the work, with a clear message
    from chainret.core.session import Session
    from chainret.store import catalog_location

    session = Session()  # this command's caches
    opened = catalog_for(catalog, session)  # resolved once, here at the edge, into the catalog reader the library takes
    check_names(opened, principal=principal, viewer=viewer, view=view)
    result = answer(request, opened, view=view, principal=principal, budget=budget, viewer=viewer,
                    backtrack=not no_backtrack, text_route=text_route, source=catalog_location(catalog), session=session,
                    proofs=not no_proofs, today=day)
    trace = result.trace
    # The answer first; then the trace file (a failed write cannot lose the answer).
    from chainret.trace.model import write_trace

    width = None
    if as_json:
        echo(json_out(json_with_answer(trace, result.names)))
    else:
        from chainret.cli.plain import plain_stream_width, trace_items

        width = plain_stream_width()
        _print_lines(trace_items(trace, names=result.names, suggestions=result.suggestions, quiet=quiet), width)
        if quiet:
            _completeness_to_stderr(trace)
    if not no_trace:
        path = write_trace(trace, trace_out) if trace_out is not None else write_new_trace(trace, default_trace_dir())
        if not as_json and not quiet:
            _print_lines([["trace written to ", str(path)]], width)
    return EXIT_NO if trace.outcome != "accepted_path" else 0


def today_flag(value: str | None) -> date | None:
    """``--today``'s day, or a usage error naming the flag (checked before any catalog is opened)."""
    if value is None:
        return None
    if re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value):  # (fromisoformat alone also takes 20261206, 2026-W49)
        try:
            return date.fromisoformat(value)
        except ValueError:  # 2026-02-30
            pass
    raise UsageError(f"--today: {value!r} is not a day written YYYY-MM-DD (e.g. --today 2026-12-06)")


# -- the argv fast path ---------------------------------------------------------------------------
# ask_cmd's options (tests/test_cli_fast.py holds this table equal to the typer command's).
VALUE_OPTIONS = {
    "--catalog": "catalog", "--view": "view", "--as": "viewer", "--principal": "principal", "--trace-out": "trace_out",
    "--rows-per-hop": "rows_per_hop", "--max-searches": "max_searches", "--max-rows": "max_rows",
    "--max-hops": "max_hops", "--packet-units": "packet_units", "--packet-chars": "packet_chars", "--today": "today",
}
INT_OPTIONS = frozenset({"rows_per_hop", "max_searches", "max_rows", "max_hops", "packet_units", "packet_chars"})
FLAGS = {"--json": "as_json", "--no-trace": "no_trace", "--quiet": "quiet", "-q": "quiet", "--text-route": "text_route",
         "--no-backtrack": "no_backtrack", "--no-proofs": "no_proofs"}
_PLAIN_INT = r"0|[1-9][0-9]{0,8}"  # (compiled by ``re`` when a number is first given)


def _utf8(stream: object) -> bool:
    """click's echo writes to such a stream as it is (it rewraps an ASCII one)."""
    return str(getattr(stream, "encoding", None) or "").lower().replace("_", "-") in ("utf-8", "utf8")


def _surrogate(text: str) -> bool:
    return any("\ud800" <= ch <= "\udfff" for ch in text)


def parse_ask_args(args: Sequence[str]) -> dict[str, Any] | None:
    """``chainret ask``'s arguments (after ``ask``) as ``run_ask``'s keywords, or None: let typer read them.

    Read here: one request, each flag at most once, ``--opt VALUE`` or ``--opt=VALUE`` with a
    non-empty value that does not start with ``-``, integers written plainly (``0``, ``12``)."""
    if any(k.startswith("_") and k.endswith("_COMPLETE") for k in os.environ):  # shell completion: typer's
        return None
    if not _utf8(sys.stdout):
        return None
    out: dict[str, Any] = {}
    request: str | None = None
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if not arg or _surrogate(arg):
            return None
        if not arg.startswith("-"):
            if request is not None:
                return None
            request = arg
            continue
        name, eq, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        val: bool | int | str | Path
        if name in FLAGS and not eq:
            key, val = FLAGS[name], True
        elif name in VALUE_OPTIONS:
            if not eq:
                if not rest:
                    return None
                value = rest.pop(0)
            if not value or value.startswith("-") or _surrogate(value):
                return None
            key = VALUE_OPTIONS[name]
            if key in INT_OPTIONS:
                if not re.fullmatch(_PLAIN_INT, value):
                    return None
                val = int(value)
            else:
                val = Path(value) if key == "trace_out" else value
        else:
            return None
        if key in out:
            return None
        out[key] = val
    if request is None:
        return None
    return {"request": request, **out}
