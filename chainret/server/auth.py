"""Who is asking: bearer tokens from a token file, an optional trusted identity header, or nobody.

The token file (YAML or JSON) stores only the sha256 of each token, never the token::

    format: chainret-tokens/1
    anonymous: true            # a request without credentials runs as `public` (false: 401)
    tokens:
      - name: ops-audit        # a label for logs and rate limiting; not a secret
        sha256: 0b1f...64 hex  # sha256 of the token's UTF-8 bytes ("sha256:<hex>" also accepted)
        principal: auditor
        viewers: [public]      # narrower viewers this token may ask for (default: none)
    users:                     # read only with --trust-header: header value -> principal
      - user: alice@example.org
        principal: auditor

Rules (``Authenticator.authenticate``):

* ``Authorization: Bearer <token>`` whose hash is listed -> that entry's principal;
* an ``Authorization`` header that is not a listed bearer token -> 401, never a silent downgrade;
* no credentials -> ``public`` (or 401 when ``anonymous: false``);
* the trusted identity header is read only when the operator names it (``--trust-header``), and
  then its value must be a listed ``user``; without that flag such a header is ignored, because a
  header a client can set is routing information, not authorization;
* the viewer of a response is the principal, unless the entry lists a narrower viewer and the
  request asks for it (``resolve_viewer``). ``check_narrower`` refuses, at start-up, an entry
  whose viewer may read a document its principal may not.

Token hashes are looked up by their sha256; a token is 256 random bits (``new_token``), so the
lookup leaks nothing usable about other tokens.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from chainret.core.errors import UsageError
from chainret.server.errors import ApiError

TOKENS_FORMAT: Final = "chainret-tokens/1"
PUBLIC = "public"
_HEX = re.compile(r"^(?:sha256:)?([0-9a-f]{64})$")
_NAME = r"^[A-Za-z0-9_.@-]{1,64}$"


class TokenFileInvalid(UsageError):
    """The token file cannot be used (syntax, unknown field, plaintext token, bad viewer)."""


def hash_token(token: str) -> str:
    """``sha256:<hex>`` of a token's UTF-8 bytes: what the token file stores."""
    return "sha256:" + hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A fresh random bearer token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class _Grant(_Model):
    principal: str = Field(pattern=_NAME)
    viewers: list[str] = Field(default_factory=list)

    @field_validator("viewers")
    @classmethod
    def _viewer_names(cls, v: list[str]) -> list[str]:
        for name in v:
            if not re.match(_NAME, name):
                raise ValueError(f"viewer {name!r} is not a principal name")
        return v


class TokenEntry(_Grant):
    name: str = Field(pattern=_NAME)
    sha256: str

    @model_validator(mode="before")
    @classmethod
    def _no_plaintext(cls, data: Any) -> Any:
        if isinstance(data, dict) and ("token" in data or "secret" in data):
            raise ValueError(
                "store only the token's sha256 (field sha256), never the token itself; "
                "`chainret serve --hash-token` prints it"
            )
        return data

    @field_validator("sha256")
    @classmethod
    def _hex(cls, v: str) -> str:
        m = _HEX.match(v.strip().lower())
        if not m:
            raise ValueError("sha256 must be 64 hex digits (optionally prefixed 'sha256:')")
        return "sha256:" + m.group(1)


class UserEntry(_Grant):
    user: str = Field(min_length=1, max_length=256)


class TokenFile(_Model):
    format: Literal["chainret-tokens/1"] = TOKENS_FORMAT
    anonymous: bool = True
    tokens: list[TokenEntry] = Field(default_factory=list)
    users: list[UserEntry] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique(self) -> TokenFile:
        for what, keys in (
            ("token name", [t.name for t in self.tokens]),
            ("token hash", [t.sha256 for t in self.tokens]),
            ("user", [u.user for u in self.users]),
        ):
            dup = sorted({k for k in keys if keys.count(k) > 1})
            if dup:
                raise ValueError(f"duplicate {what}: {', '.join(dup[:3])}")
        return self


def load_token_file(path: str | os.PathLike[str]) -> TokenFile:
    """Parse and validate a token file; every problem names the file and the record."""
    p = Path(path)
    try:
        raw = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TokenFileInvalid(f"{p}: no such token file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TokenFileInvalid(f"{p}: cannot read the token file ({exc.__class__.__name__})") from None
    try:
        data = json.loads(raw) if p.suffix == ".json" else yaml.safe_load(raw)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else (f" at line {exc.lineno}" if isinstance(exc, json.JSONDecodeError) else "")
        raise TokenFileInvalid(f"{p}: not valid {'JSON' if p.suffix == '.json' else 'YAML'}{where}") from None
    if not isinstance(data, dict):
        raise TokenFileInvalid(f"{p}: expected a mapping with 'tokens', found {type(data).__name__}")
    try:
        return TokenFile.model_validate(data)
    except ValidationError as exc:
        problems = []
        for e in exc.errors()[:5]:
            loc = ".".join(str(x) for x in e["loc"])
            record = _record(data, e["loc"])
            msg = e["msg"].removeprefix("Value error, ")
            if e["type"] == "extra_forbidden":
                msg = "unknown field"
            problems.append(f"{loc}{record}: {msg}")  # never echo the input (it may be a token)
        raise TokenFileInvalid(f"{p}: " + "; ".join(problems)) from None


def _record(data: dict[str, Any], loc: tuple[Any, ...]) -> str:
    """`` (name ops)`` for a token record, so a problem names the record and not only its index."""
    if len(loc) >= 2 and loc[0] in ("tokens", "users") and isinstance(loc[1], int):
        items = data.get(loc[0]) or []
        if loc[1] < len(items) and isinstance(items[loc[1]], dict):
            label = items[loc[1]].get("name") or items[loc[1]].get("user")
            if isinstance(label, str):
                return f" ({label})"
    return ""


# -- identities -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Identity:
    """An authenticated caller: whose access requests run under, and which viewers it may ask for."""

    principal: str
    viewers: frozenset[str] = field(default_factory=frozenset)
    key: str = "anonymous"  # rate-limit bucket: token name, header user, or the client address
    via: Literal["token", "header", "anonymous", "config"] = "anonymous"


def resolve_viewer(identity: Identity, requested: str | None) -> str:
    """The viewer of a response: the principal, or a narrower viewer the identity may ask for."""
    if requested is None or requested == identity.principal:
        return identity.principal
    if requested in identity.viewers:
        return requested
    raise ApiError(
        403,
        "viewer_not_allowed",
        f"this credential runs as {identity.principal!r} and may not ask for viewer {requested!r}",
    )


class Authenticator:
    """Turns request credentials into an ``Identity`` (see the module docstring)."""

    def __init__(self, tokens: TokenFile | None = None, trust_header: str | None = None) -> None:
        self.file = tokens or TokenFile()
        self.trust_header = trust_header.lower() if trust_header else None
        self._by_hash = {t.sha256: t for t in self.file.tokens}
        self._by_user = {u.user: u for u in self.file.users}
        if self.trust_header and self.trust_header in ("authorization", "cookie", "host"):
            raise UsageError(f"--trust-header {trust_header} cannot be an identity header")

    def grants(self) -> Iterable[tuple[str, _Grant]]:
        yield from ((f"tokens ({t.name})", t) for t in self.file.tokens)
        yield from ((f"users ({u.user})", u) for u in self.file.users)

    def authenticate(self, authorization: str | None, header_user: str | None = None, client: str = "") -> Identity:
        if header_user is not None and self.trust_header is not None:
            if authorization is not None:
                raise ApiError(400, "conflicting_credentials", "send a bearer token or the trusted identity header, not both")
            user = self._by_user.get(header_user.strip())
            if user is None:
                raise ApiError(401, "unknown_user", "the identity header names no configured user",
                               {"WWW-Authenticate": "Bearer"})
            return Identity(user.principal, frozenset(user.viewers), key=f"user:{user.user}", via="header")
        if authorization is not None:
            scheme, _, token = authorization.strip().partition(" ")
            token = token.strip()
            if scheme.lower() != "bearer" or not token:
                raise ApiError(401, "bad_authorization", "the Authorization header must be 'Bearer <token>'",
                               {"WWW-Authenticate": "Bearer"})
            entry = self._by_hash.get(hash_token(token))
            if entry is None:
                raise ApiError(401, "invalid_token", "the bearer token is not valid for this server",
                               {"WWW-Authenticate": 'Bearer error="invalid_token"'})
            return Identity(entry.principal, frozenset(entry.viewers), key=f"token:{entry.name}", via="token")
        if not self.file.anonymous:
            raise ApiError(401, "missing_credentials", "this server requires a bearer token",
                           {"WWW-Authenticate": "Bearer"})
        return Identity(PUBLIC, frozenset(), key=f"anonymous:{client}", via="anonymous")


def check_narrower(auth: Authenticator, readable: Any, source: str) -> None:
    """Refuse an entry whose viewer may read a document its principal may not.

    ``readable(principal) -> set of document refs``. A wider viewer would see audit details
    (what was withheld) that the principal's own request must not disclose to it.
    """
    bad = []
    for where, g in auth.grants():
        mine = readable(g.principal)
        for v in g.viewers:
            extra = readable(v) - mine
            if extra:
                bad.append(f"{where}: viewer {v!r} may read {len(extra)} document(s) that {g.principal!r} may not")
    if bad:
        raise TokenFileInvalid(f"{source}: viewers must be narrower than their principal: " + "; ".join(bad))
