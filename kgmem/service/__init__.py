"""The HTTP API (``kgmem serve``): the `kgmem.api.Memory` operations over HTTP with an OpenAPI
document, for agent stacks outside Python (docs/http.md).

Built on FastAPI (served by uvicorn): ``POST /turns``, ``POST /documents``, ``POST /search``,
``POST /current``, ``POST /history``, ``POST /profile``, ``POST /timeline``,
``POST /forget/turns``, ``POST /forget/about`` and ``GET /health``; the OpenAPI document at
``/openapi.json``. Same types and errors as the Python API: `kgmem.errors.MalformedInput` is 422
naming the field, an unknown conversation or owner 404, Neo4j down 503; every error body is
``{"error", "message", "argument", "reason", "request_id"}``.

Access (`kgmem.service.access`): bearer tokens from a token file (``KGMEM_HTTP_TOKENS_FILE``)
that stores their SHA-256 only, each granting one owner or a set of conversations. Without a
token file the server binds only to loopback (and then every request reaches everything);
with one, every request but ``/health`` needs a known token (401 otherwise), and anything
outside its grant is 404 whatever exists.
"""

from __future__ import annotations

import logging

from kgmem.api import Memory
from kgmem.config import Settings
from kgmem.cursors import CursorCodec
from kgmem.errors import ConfigError
from kgmem.mcp.auth import is_loopback
from kgmem.service.access import Grant, TokenTable, hash_token, new_token
from kgmem.service.app import REQUEST_ID, build_app

__all__ = [
    "REQUEST_ID",
    "Grant",
    "TokenTable",
    "build_app",
    "codec_from",
    "hash_token",
    "new_token",
    "serve",
    "tokens_from",
]


def tokens_from(settings: Settings) -> TokenTable | None:
    """The token table of ``KGMEM_HTTP_TOKENS_FILE``, or None when unset.

    Raises:
        ConfigError: a token file that cannot be read or holds a bad entry.
    """
    if settings.http_tokens_file is None:
        return None
    return TokenTable.load(settings.http_tokens_file)


def codec_from(settings: Settings) -> CursorCodec:
    """The cursor codec of ``KGMEM_CURSOR_SECRET`` (a random per-process key when unset)."""
    secret = settings.cursor_secret
    return CursorCodec(secret.get_secret_value().encode("utf-8") if secret else None)


def serve(settings: Settings, *, host: str = "127.0.0.1", port: int = 8080) -> None:
    """Serve the HTTP API until the process is stopped (SIGINT / SIGTERM).

    Waits for the search indexes and loads the models before it accepts requests
    (`kgmem.api.Memory.warm`), so the first request is not the slow one.

    Raises:
        ConfigError: a non-loopback ``host`` without a token file, or a bad token file
            (checked before anything connects or binds).
        Neo4jUnavailable, AuthenticationFailed: checked before serving.
    """
    import uvicorn

    tokens = tokens_from(settings)
    if tokens is None and not is_loopback(host):
        raise ConfigError(
            f"refusing to serve on {host!r} (not loopback) without bearer tokens: set "
            "KGMEM_HTTP_TOKENS_FILE (make entries with `kgmem token`), or bind to 127.0.0.1"
        )
    memory = Memory.from_settings(settings)
    try:
        memory.verify()
        memory.apply_schema()
        memory.warm()
        app = build_app(memory, tokens=tokens, codec=codec_from(settings))
        _log_to_stderr()
        uvicorn.run(app, host=host, port=port, access_log=False, log_level="info")
    finally:
        memory.close()


def _log_to_stderr() -> None:
    """The service's log lines (one per request, with its id) on stderr, unless the host
    application configured logging already."""
    logger = logging.getLogger("kgmem.service")
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
