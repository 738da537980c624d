"""``ApiError``: a refusal a client receives as JSON ``{"error": {"code", "message"}}``.

Messages are written for the client and built only from the client's own input, catalog-wide
names (views, patterns) and server settings: never from document text, and never from an
exception whose text the server did not write.
"""

from __future__ import annotations


class ApiError(Exception):
    """An HTTP status, a stable snake_case ``code`` and a message safe to show the caller."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}

    def body(self) -> dict[str, dict[str, str]]:
        return error_body(self.code, self.message)


def error_body(code: str, message: str) -> dict[str, dict[str, str]]:
    return {"error": {"code": code, "message": message}}
