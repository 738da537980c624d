"""`chainret serve` (HTTP API) and `chainret mcp` (MCP server over stdio).

Thin commands: read the options, build ``chainret.server`` objects, run. fastapi, uvicorn and the
mcp SDK are imported inside the command bodies only, so `import chainret.cli` stays light and a
missing extra is a one-line message, not a traceback.
"""

from __future__ import annotations

import importlib.util
import ipaddress
import os
import secrets
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer

from chainret.core.errors import MissingExtra, UsageError

if TYPE_CHECKING:
    from chainret.catalog.suggest import NamesPrincipals

CATALOG_HELP = "Catalog file or world dir, or any catalog the library accepts (default: $CHAINRET_CATALOG or catalogs/default.yaml)."
# The slow-client and connection bounds both servers take (chainret.server.limits.Limits has their defaults' reasons).
# The budget ceilings ``serve`` and ``mcp`` share (``chainret.server.limits``: a request's budget is kept within them).
MAX_SET_ROWS_PER_HOP = typer.Option(25, "--max-set-rows-per-hop", help="Ceiling for the rows a many-valued hop reads on to (a set's default limits; the library's default is 25).")
MAX_SEARCHES = typer.Option(8, "--max-searches", help="Ceiling for max_searches.")
MAX_ROWS = typer.Option(40, "--max-rows", help="Ceiling for max_rows.")
MAX_HOPS = typer.Option(4, "--max-hops", help="Ceiling for max_hops.")
HEADER_TIMEOUT = typer.Option(10.0, "--header-timeout", help="Seconds a client has to send a request's line and headers (408 and closed after).")
BODY_TIMEOUT = typer.Option(10.0, "--body-timeout", help="Seconds a client has to send a request's body, from its headers (408 and closed after).")
MAX_CONNECTIONS = typer.Option(500, "--max-connections", help="Connections a server process holds open at once; past it a connection is answered 503 server_busy (Retry-After) and closed.")
MAX_CONNECTIONS_PER_CLIENT = typer.Option(100, "--max-connections-per-client", help="Connections one client address holds open at once; past it 429 too_many_connections (Retry-After), closed. Addresses in --forwarded-allow-ips are exempt.")


def _require(extra: str, *modules: str) -> None:
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise MissingExtra(
            f"chainret {extra} needs {', '.join(missing)}: install the '{extra}' extra "
            f"(pip install 'chainret[{extra}]')",
            extra=extra,
        )


def serve_cmd(
    catalog: Optional[str] = typer.Option(None, "--catalog", help=CATALOG_HELP),
    tokens: Optional[Path] = typer.Option(None, "--tokens", help="Token file (YAML/JSON, sha256 hashes only; see docs/serving.md). Without it every request runs as public and any bearer token is refused."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (default: loopback only)."),
    port: int = typer.Option(8000, "--port", help="Port to bind."),
    trust_header: Optional[str] = typer.Option(None, "--trust-header", help="Read the caller's identity from this header (e.g. X-Forwarded-User), set by an authenticating proxy; its values must be `users` in the token file. Off by default."),
    max_rows_per_hop: int = typer.Option(10, "--max-rows-per-hop", help="Ceiling for a request's rows_per_hop."),
    max_set_rows_per_hop: int = MAX_SET_ROWS_PER_HOP,
    max_searches: int = MAX_SEARCHES,
    max_rows: int = MAX_ROWS,
    max_hops: int = MAX_HOPS,
    max_packet_units: int = typer.Option(8, "--max-packet-units", help="Ceiling for packet_units."),
    max_packet_chars: int = typer.Option(4000, "--max-packet-chars", help="Ceiling for packet_chars."),
    max_body_bytes: int = typer.Option(65536, "--max-body-bytes", help="Largest request body (413 above)."),
    max_request_chars: int = typer.Option(1000, "--max-request-chars", help="Longest request text."),
    rate: float = typer.Option(20.0, "--rate", help="Requests per second per token (or per address without one); 0 = no limit."),
    burst: int = typer.Option(40, "--burst", help="Requests a token may make at once before --rate applies."),
    timeout: float = typer.Option(15.0, "--timeout", help="Seconds per request, waiting for the engine included (504 after)."),
    header_timeout: float = HEADER_TIMEOUT,
    body_timeout: float = BODY_TIMEOUT,
    max_connections: int = MAX_CONNECTIONS,
    max_connections_per_client: int = MAX_CONNECTIONS_PER_CLIENT,
    reload_interval: float = typer.Option(1.0, "--reload-interval", help="Seconds between looks for a store update (a request this long after `catalog compile --update` sees it; 0 = every request)."),
    forwarded_allow_ips: Optional[str] = typer.Option(None, "--forwarded-allow-ips", help="Comma-separated proxy addresses whose X-Forwarded-For/-Proto are believed (the client address for rate limits and logs). Default: none, so forwarded headers are ignored."),
    workers: int = typer.Option(1, "--workers", help="Server processes; each loads the catalog once (rate limits are per process)."),
    threads: int = typer.Option(4, "--threads", help="Engine calls at once per process where the store allows it (a SQLite store: one connection per thread); one at a time otherwise (see docs/serving.md)."),
    pin: bool = typer.Option(False, "--pin", help="Run each worker process (its event loop and engine threads) on a CPU of its own, one per worker while CPUs last: a request's hand-offs between threads then stay on one CPU (cheaper, markedly on virtual machines; see docs/serving.md). Best with --threads 1."),
    log_level: str = typer.Option("info", "--log-level", help="uvicorn log level."),
    http: str = typer.Option("auto", "--http", help="HTTP parser: httptools (C, the serve extra installs it), h11 (pure Python), or auto (httptools where installed). Both bound a request head's time and size."),
    sign_key: Optional[Path] = typer.Option(None, "--sign-key", metavar="KEY.pem", help="Sign every /ask trace with this Ed25519 private key (owner-only PEM, `chainret trace keygen`): answers carry `envelope`, checkable with `trace verify --offline --key PUB` (docs/proof.md). Needs the sign extra."),
    hash_token: bool = typer.Option(False, "--hash-token", help="Read a token on stdin, print its sha256 for the token file, and exit."),
    new_token: Optional[str] = typer.Option(None, "--new-token", metavar="PRINCIPAL", help="Print a new random token and its token-file entry for PRINCIPAL, and exit."),
) -> None:
    """Serve the HTTP API (POST /ask, GET /patterns, POST /trace/verify, GET /healthz, /docs); the principal comes from the bearer token."""
    from chainret.server import auth as auth_mod

    if hash_token:
        token = sys.stdin.readline().strip()
        if not token:
            raise UsageError("--hash-token reads a token from stdin; none was given")
        typer.echo(auth_mod.hash_token(token))
        return
    if new_token is not None:
        tok = auth_mod.new_token()
        typer.echo(f"token (give it to the client; it is not stored): {tok}")
        typer.echo("token-file entry (a list item under `tokens:`):")
        # As the README shows: a principal other than public may also ask for the public view (--as public).
        viewers = "[]" if new_token == "public" else "[public]"
        typer.echo(f"  - name: {new_token}-1\n    sha256: {auth_mod.hash_token(tok)}\n    principal: {new_token}\n    viewers: {viewers}")
        return
    _require("serve", "fastapi", "uvicorn")
    from pydantic import ValidationError

    from chainret.server.app import CONFIG_ENV, ServeConfig, build
    from chainret.server.limits import Limits
    from chainret.trace.model import Budget

    if workers < 1 or threads < 1:
        raise UsageError("--workers and --threads must be at least 1")
    try:
        ceiling = Budget(rows_per_hop=max_rows_per_hop, max_searches=max_searches, max_rows=max_rows, max_hops=max_hops,
                         packet_units=max_packet_units, packet_chars=max_packet_chars, set_rows_per_hop=max_set_rows_per_hop)
        limits = Limits(ceiling=ceiling, body_bytes=max_body_bytes, request_chars=max_request_chars, rate=rate,
                        burst=burst, timeout_s=timeout, header_timeout_s=header_timeout, body_timeout_s=body_timeout,
                        reload_interval_s=reload_interval, connections=max_connections,
                        connections_per_client=max_connections_per_client)
    except ValidationError as exc:
        raise _bad_limits(exc) from None
    from chainret.server.protocol import ConnectionCaps, protocol_factory

    # an unknown or missing --http: refused before the catalog loads
    protocol = protocol_factory(limits.header_timeout_s, http,
                                ConnectionCaps(limits.connections, limits.connections_per_client, forwarded_allow_ips or ""))
    cfg = ServeConfig(catalog=catalog, tokens=str(tokens.resolve()) if tokens is not None else None,
                      trust_header=trust_header, limits=limits, threads=threads,
                      sign_key=str(sign_key.resolve()) if sign_key is not None else None)
    # --pin: this server's workers claim CPUs under one name (chainret.server.affinity). One worker: this process
    # serves, pinned here. Several: this process only checks the catalog and token file once up front (never pinned:
    # it would hold a CPU no worker runs on); each worker pins itself.
    served = cfg.model_copy(update={"pin_group": f"{os.getpid()}.{secrets.token_hex(4)}"}) if pin else cfg
    service, authn, app = build(served if workers == 1 else cfg)
    _warn_exposed(host, trust_header)
    for line in service.submit(unknown_grants, service.catalog, authn.file).result():
        typer.echo(f"warning: {line}", err=True)
    import uvicorn

    n = len(authn.file.tokens)
    typer.echo(
        f"chainret serve: world {service.catalog.world} ({service.digest[:19]}…), {n} token(s), "
        f"anonymous {'public' if authn.file.anonymous else 'refused'}, trusted header {trust_header or 'none'}, "
        f"{workers} worker process(es) x {service.threads} engine thread(s){', one CPU each (--pin)' if pin else ''}, "
        f"HTTP parser {protocol.func.implementation}, "
        f"http://{host}:{port}/docs",
        err=True,
    )
    common: dict[str, Any] = {
        "host": host, "port": port, "log_level": log_level, "timeout_keep_alive": 5, "server_header": False,
        "http": protocol,  # httptools or h11, with a bound on each request head's time and size
        # uvicorn believes X-Forwarded-For from 127.0.0.1 unless told otherwise: only the named proxies
        "proxy_headers": bool(forwarded_allow_ips), "forwarded_allow_ips": forwarded_allow_ips or "",
    }
    if workers == 1:
        uvicorn.run(app, **common)
        return
    del service, app  # each worker loads its own copy
    os.environ[CONFIG_ENV] = served.model_dump_json()
    uvicorn.run("chainret.server.app:app_from_env", factory=True, workers=workers, **common)


def _bad_limits(exc: Any) -> UsageError:
    bad = ", ".join(".".join(map(str, e["loc"])) for e in exc.errors())
    return UsageError(f"every limit must be positive (--rate may be 0); check {bad}")


def unknown_grants(catalog: NamesPrincipals, file: Any) -> list[str]:
    """Token-file principals and viewers no document of the catalog names (a typo reads nothing), with did you mean.

    A warning, not an error: the catalog may gain such documents on reload."""
    from chainret.catalog.suggest import did_you_mean, known_principals

    known = known_principals(catalog)
    out = []
    for entry in [*file.tokens, *file.users]:
        label = f"token {entry.name}" if hasattr(entry, "name") else f"user {entry.user}"
        for who in [entry.principal, *entry.viewers]:
            if who not in known:
                out.append(f"{label}: principal {who!r} is named by no document of this catalog, so it reads only "
                           f"public documents{did_you_mean(who, known)}")
    return out


def _warn_exposed(host: str, trust_header: str | None) -> None:
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if not loopback:
        from chainret.cli.render import err_console, t

        note = "; the trusted header must be set (and stripped from clients) by your proxy" if trust_header else ""
        err_console.print(
            t(("warning:", "yellow"), f" binding {host}: reachable beyond this machine; use TLS in front (bearer tokens travel in headers){note}"),
        )


def mcp_cmd(
    catalog: Optional[str] = typer.Option(None, "--catalog", help=CATALOG_HELP),
    principal: Optional[str] = typer.Option(None, "--principal", help="stdio: the one principal every tool call answers as (default public; set by whoever configures the agent; no tool takes a principal). Not with --http."),
    http: bool = typer.Option(False, "--http", help="Serve MCP over streamable HTTP at http://HOST:PORT/mcp instead of stdio; the principal comes from the bearer token, as for `chainret serve`."),
    host: str = typer.Option("127.0.0.1", "--host", help="With --http: address to bind (default: loopback only)."),
    port: int = typer.Option(8001, "--port", help="With --http: port to bind."),
    tokens: Optional[Path] = typer.Option(None, "--tokens", help="With --http: the token file of `chainret serve` (sha256 hashes only). Without it every request runs as public and any bearer token is refused."),
    max_rows_per_hop: int = typer.Option(10, "--max-rows-per-hop", help="Ceiling for a tool call's rows_per_hop."),
    max_set_rows_per_hop: int = MAX_SET_ROWS_PER_HOP,
    max_searches: int = MAX_SEARCHES,
    max_rows: int = MAX_ROWS,
    max_hops: int = MAX_HOPS,
    header_timeout: float = HEADER_TIMEOUT,
    body_timeout: float = BODY_TIMEOUT,
    max_connections: int = MAX_CONNECTIONS,
    max_connections_per_client: int = MAX_CONNECTIONS_PER_CLIENT,
    max_streams: int = typer.Option(32, "--max-streams", help="With --http: GET /mcp event streams open at once; past it 503 too_many_streams (Retry-After)."),
    max_streams_per_client: int = typer.Option(4, "--max-streams-per-client", help="With --http: event streams one token (or address without one) holds open at once; past it 429 too_many_streams (Retry-After)."),
    stream_idle_timeout: float = typer.Option(60.0, "--stream-idle-timeout", help="With --http: seconds after which an event stream that sent no event is ended (the client may open another)."),
) -> None:
    """Run an MCP server (tools: ask, list_patterns, verify_trace): over stdio as one configured principal, or with --http over streamable HTTP as each bearer token's principal."""
    _require("mcp", "mcp")
    from pydantic import ValidationError

    from chainret.server.limits import DEFAULT_CEILING, Limits
    from chainret.server.mcp import build_server
    from chainret.server.service import Service
    from chainret.trace.model import Budget

    try:
        ceiling = Budget(**{**DEFAULT_CEILING.model_dump(), "rows_per_hop": max_rows_per_hop, "max_searches": max_searches,
                            "max_rows": max_rows, "max_hops": max_hops, "set_rows_per_hop": max_set_rows_per_hop})
    except ValueError:
        raise UsageError("every budget ceiling must be at least 1") from None
    if http:
        try:
            limits = Limits(ceiling=ceiling, header_timeout_s=header_timeout, body_timeout_s=body_timeout,
                            connections=max_connections, connections_per_client=max_connections_per_client,
                            streams=max_streams, streams_per_client=max_streams_per_client, stream_idle_s=stream_idle_timeout)
        except ValidationError as exc:
            raise _bad_limits(exc) from None
        _mcp_http(catalog, limits, principal, host, port, tokens)
        return
    if tokens is not None:
        raise UsageError("--tokens applies to --http; over stdio the principal is --principal")
    if principal is not None:  # a typo would answer every tool call as a principal that reads nothing
        from chainret.store import resolve_catalog
        from chainret.catalog.suggest import check_principal

        check_principal(resolve_catalog(catalog), principal)
    service = Service(catalog, Limits(ceiling=ceiling))
    import anyio

    from chainret.server.mcp_stdio import serve_stdio

    anyio.run(serve_stdio, build_server(service, principal or "public"))  # answers lines the SDK cannot parse


def _mcp_http(catalog: Optional[str], limits: Any, principal: Optional[str], host: str, port: int, tokens: Optional[Path]) -> None:
    """``chainret mcp --http``: the token file, the catalog once, uvicorn (needs the serve extra too)."""
    if principal is not None:
        raise UsageError("with --http the principal comes from each request's bearer token (--tokens), not --principal")
    _require("serve", "fastapi", "uvicorn")
    import uvicorn

    from chainret.server.auth import Authenticator, load_token_file
    from chainret.server.mcp_http import MCP_PATH, build_http_app
    from chainret.server.service import Service

    authn = Authenticator(load_token_file(tokens) if tokens is not None else None)
    service = Service(catalog, limits, authn, tokens_source=str(tokens or "tokens"))
    _warn_exposed(host, None)
    typer.echo(f"chainret mcp: world {service.world}, {len(authn.file.tokens)} token(s), anonymous "
               f"{'public' if authn.file.anonymous else 'refused'}, streamable HTTP at http://{host}:{port}{MCP_PATH}", err=True)
    from chainret.server.protocol import ConnectionCaps, protocol_factory

    # the same slow-client and connection bounds as `chainret serve`, and no forwarded headers believed (no proxy named)
    caps = ConnectionCaps(limits.connections, limits.connections_per_client)
    uvicorn.run(build_http_app(service, authn, host=host), host=host, port=port, log_level="warning",
                timeout_keep_alive=5, server_header=False, http=protocol_factory(limits.header_timeout_s, caps=caps),
                proxy_headers=False, forwarded_allow_ips="")


def register(app: typer.Typer) -> None:
    app.command("serve")(serve_cmd)
    app.command("mcp")(mcp_cmd)
