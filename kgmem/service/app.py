"""The HTTP API's application: routes over `kgmem.api.Memory`, the bearer-token gate, typed
errors, request ids (`kgmem.service`; docs/http.md)."""

from __future__ import annotations

import dataclasses
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request, Response
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.exceptions import HTTPException as StarletteHTTPException

from kgmem.api import Memory
from kgmem.bounds import parse_when
from kgmem.cursors import CursorCodec
from kgmem.errors import (
    ConversationNotFound,
    DocumentRejected,
    InputError,
    InvalidCursor,
    KgmemError,
    ModelUnavailable,
    NotSupported,
    StoreError,
    TurnNotFound,
)
from kgmem.ingest.loaders.documents import load_text
from kgmem.service.access import EVERYTHING, Gate, TokenTable
from kgmem.service.models import (
    AddDocument,
    AddTurns,
    DocumentOut,
    ErrorOut,
    FactQuery,
    ForgetAbout,
    ForgetTurns,
    Health,
    IngestOut,
    ProfileQuery,
    ScopeQuery,
    SearchOut,
    SearchQuery,
)
from kgmem.steer import Options, steered_search

__all__ = ["REQUEST_ID", "build_app"]

log = logging.getLogger("kgmem.service")

#: the id of the request being served (``X-Request-ID`` if the client sent a usable one);
#: every log record of the service names it
REQUEST_ID: ContextVar[str] = ContextVar("kgmem_request_id", default="-")

_ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorOut, "description": "no bearer token, or an unknown one"},
    404: {"model": ErrorOut, "description": "no such conversation or owner for this token"},
    422: {"model": ErrorOut, "description": "malformed input; `argument` names the field"},
    503: {"model": ErrorOut, "description": "Neo4j or the models are unavailable"},
}


def status_of(exc: KgmemError) -> int:
    """The HTTP status of a kgmem error: input 422, not found 404, not supported 501, store and
    models 503, anything else 500."""
    if isinstance(exc, InputError):
        return 422
    if isinstance(exc, ConversationNotFound | TurnNotFound):
        return 404
    if isinstance(exc, NotSupported):
        return 501
    if isinstance(exc, StoreError | ModelUnavailable):
        return 503
    return 500


def _error(status: int, kind: str, message: str, **extra: Any) -> JSONResponse:
    body = ErrorOut(error=kind, message=message, request_id=REQUEST_ID.get(), **extra)
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse(body.model_dump(), status_code=status, headers=headers)


class Unauthorized(Exception):
    """No bearer token, or one the token table does not hold (HTTP 401)."""


_bearer = HTTPBearer(auto_error=False, description="a token of the server's token file")


def _gate(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Gate:
    """The request's `Gate`: its token's grant (everything when the server has no tokens).

    Raises:
        Unauthorized: tokens are configured and the request has none, or an unknown one.
    """
    tokens: TokenTable | None = request.app.state.tokens
    lookup = request.app.state.lookup
    if tokens is None:
        return Gate(EVERYTHING, lookup)
    if credentials is None:
        raise Unauthorized("a bearer token is required (Authorization: Bearer <token>)")
    grant = tokens.grant(credentials.credentials)
    if grant is None:
        raise Unauthorized("unknown bearer token")
    return Gate(grant, lookup)


Access = Annotated[Gate, Depends(_gate)]


def build_app(
    memory: Memory,
    *,
    tokens: TokenTable | None = None,
    codec: CursorCodec | None = None,
) -> FastAPI:
    """The HTTP API over ``memory``.

    Args:
        memory: the memory every request uses (its calls run in the server's worker threads);
            the caller closes it.
        tokens: bearer tokens and their grants; None: every request may reach everything (only
            for a loopback address: `kgmem.service.serve` refuses otherwise).
        codec: signs search cursors (default: a per-process secret).

    Returns:
        the FastAPI application (OpenAPI at ``/openapi.json``, docs at ``/docs``).
    """
    codec = codec or CursorCodec()
    app = FastAPI(
        title="kgmem",
        version="1",
        summary="Long-term memory for LLM agents, kept as a knowledge graph in Neo4j.",
        description="Every endpoint but /health needs `Authorization: Bearer <token>` when the "
        "server has a token file; a token reaches one owner's conversations or a set of "
        "conversations, and anything else is 404. Errors are `ErrorOut` bodies.",
    )

    def lookup(conversation_id: str) -> tuple[bool, str | None]:
        rows = memory.store.read("read/conversation_access", conversation_id=conversation_id)
        return (bool(rows[0]["exists"]), rows[0]["owner"]) if rows else (False, None)

    app.state.tokens = tokens
    app.state.lookup = lookup

    _request_ids(app)
    _error_handlers(app)
    _health_route(app, memory)
    _write_routes(app, memory)
    _read_routes(app, memory, codec)
    return app


def _request_ids(app: FastAPI) -> None:
    """Give every request an id (``X-Request-ID`` if usable) that its log lines name."""

    @app.middleware("http")
    async def request_ids(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        given = request.headers.get("x-request-id", "")
        rid = given if given.isascii() and given.isprintable() and 0 < len(given) <= 64 else ""
        token = REQUEST_ID.set(rid or uuid.uuid4().hex)
        t0 = time.perf_counter()
        try:
            response = await call_next(request)
        except Exception:
            log.info(
                "request_id=%s %s %s -> 500", REQUEST_ID.get(), request.method, request.url.path
            )
            REQUEST_ID.reset(token)
            raise
        ms = (time.perf_counter() - t0) * 1000
        log.info(
            "request_id=%s %s %s -> %d in %.1f ms",
            REQUEST_ID.get(),
            request.method,
            request.url.path,
            response.status_code,
            ms,
        )
        response.headers["X-Request-ID"] = REQUEST_ID.get()
        REQUEST_ID.reset(token)
        return response


def _error_handlers(app: FastAPI) -> None:
    """Every error as an `ErrorOut` body with its status (`status_of`)."""

    @app.exception_handler(KgmemError)
    async def kgmem_error(request: Request, exc: KgmemError) -> JSONResponse:
        status = status_of(exc)
        if status >= 500:
            log.error("request_id=%s %s: %s", REQUEST_ID.get(), type(exc).__name__, exc)
        extra: dict[str, Any] = {}
        if isinstance(exc, InputError):
            extra["argument"] = exc.argument
        if isinstance(exc, InvalidCursor | DocumentRejected):
            extra["reason"] = exc.kind
        return _error(status, type(exc).__name__, str(exc), **extra)

    @app.exception_handler(Unauthorized)
    async def unauthorized(request: Request, exc: Unauthorized) -> JSONResponse:
        return _error(401, "Unauthorized", str(exc))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        first = errors[0] if errors else {}
        loc = [str(p) for p in first.get("loc", ()) if p not in ("body",)]
        field = ".".join(loc) or None
        message = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ()) if p != 'body') or 'body'}: {e.get('msg')}"
            for e in errors[:5]
        )
        return _error(422, "MalformedInput", message or "malformed request", argument=field)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400:  # a body that is not JSON: malformed input like any other
            return _error(422, "MalformedInput", str(exc.detail), argument="body")
        kinds = {404: "NotFound", 405: "MethodNotAllowed"}
        return _error(exc.status_code, kinds.get(exc.status_code, "HTTPError"), str(exc.detail))

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("request_id=%s unexpected error", REQUEST_ID.get())
        return _error(500, "InternalError", "unexpected error; see the server log")


def _health_route(app: FastAPI, memory: Memory) -> None:
    """``GET /health``."""

    @app.get("/health", response_model=Health, responses={503: {"model": Health}}, tags=["service"])
    def health() -> Any:
        """``ok`` when Neo4j answers ``RETURN 1`` with the configured credentials; 503 when it
        does not. Needs no token and says nothing about what memory holds."""
        try:
            memory.verify()
        except KgmemError as exc:
            log.warning("request_id=%s health: %s", REQUEST_ID.get(), type(exc).__name__)
            return JSONResponse({"status": "unavailable", "neo4j": "unavailable"}, 503)
        return Health(status="ok", neo4j="ok")


def _write_routes(app: FastAPI, memory: Memory) -> None:
    """``POST /turns``, ``/documents``, ``/forget/turns``, ``/forget/about``."""

    @app.post("/turns", response_model=IngestOut, responses=_ERRORS, tags=["write"])
    def add_turns(body: AddTurns, access: Access) -> Any:
        """Append turns to a conversation (created if new; `Memory.add_turns`). An owner
        token claims a new conversation for its owner."""
        owner = access.writable(body.conversation_id, body.owner)
        turns = [t.model_dump(exclude_none=True) for t in body.turns]
        report = memory.add_turns(
            body.conversation_id,
            turns,
            session=body.session,
            observed_at=body.observed_at,
            roles=body.roles,
            requests=body.requests,
            owner=owner,
            metadata=body.metadata,
        )
        return IngestOut(**{k: getattr(report, k) for k in IngestOut.model_fields})

    @app.post("/documents", response_model=DocumentOut, responses=_ERRORS, tags=["write"])
    def add_document(body: AddDocument, access: Access) -> Any:
        """Add a Markdown or plain-text document as turns (`Memory.add_document`); the text is
        never read as a path. Default conversation: ``doc-<name of source>``."""
        document = load_text(body.text, source=body.source, observed_at=body.observed_at)
        cid = body.conversation_id or document.conversation_id
        owner = access.writable(cid, body.owner)
        report = memory.add_document(document, conversation_id=cid, owner=owner)
        return DocumentOut(**{k: getattr(report, k) for k in DocumentOut.model_fields})

    @app.post("/forget/turns", responses=_ERRORS, tags=["write"])
    def forget_turns(body: ForgetTurns, access: Access) -> dict[str, int]:
        """Forget turns by id, with everything derived from them (`Memory.forget_turns`)."""
        access.conversation(body.conversation_id)
        return memory.forget_turns(body.conversation_id, body.turn_ids)

    @app.post("/forget/about", responses=_ERRORS, tags=["write"])
    def forget_about(body: ForgetAbout, access: Access) -> dict[str, Any]:
        """Forget what the user said about something (`Memory.forget_about`)."""
        access.conversation(body.conversation_id)
        return memory.forget_about(body.conversation_id, body.description)


def _read_routes(app: FastAPI, memory: Memory, codec: CursorCodec) -> None:
    """``POST /search``, ``/current``, ``/history``, ``/profile``, ``/timeline``."""

    @app.post("/search", response_model=SearchOut, responses=_ERRORS, tags=["read"])
    def search(body: SearchQuery, access: Access) -> Any:
        """The turns that bear on ``query``, best first, one page at a time
        (`kgmem.steer.steered_search`; docs/search-options.md)."""
        cid, owner = access.scope(body.conversation_id, body.owner)
        options = Options(
            k=body.k,
            cursor=body.cursor,
            exact=body.exact,
            speaker=body.speaker,
            since=parse_when(body.since, "since", end=False),
            until=parse_when(body.until, "until", end=True),
            session=body.session,
            max_tokens=body.max_tokens,
            where=body.where or None,
        )
        page = steered_search(
            memory, body.query, conversation_id=cid, owner=owner, options=options, codec=codec
        )
        return SearchOut(**dataclasses.asdict(page))

    @app.post("/current", responses=_ERRORS, tags=["read"])
    def current(body: FactQuery, access: Access) -> dict[str, Any] | None:
        """The current value of a single-valued relation (`Memory.current`), or null."""
        cid, owner = access.scope(body.conversation_id, body.owner)
        row = memory.current(cid, body.entity, body.relation, owner=owner if cid is None else None)
        return jsonable_encoder(row)  # type: ignore[no-any-return]

    @app.post("/history", responses=_ERRORS, tags=["read"])
    def history(body: FactQuery, access: Access) -> list[dict[str, Any]]:
        """Every value a single-valued relation has had, oldest first (`Memory.history`)."""
        cid, owner = access.scope(body.conversation_id, body.owner)
        rows = memory.history(cid, body.entity, body.relation, owner=owner if cid is None else None)
        return jsonable_encoder(rows)  # type: ignore[no-any-return]

    @app.post("/profile", responses=_ERRORS, tags=["read"])
    def profile(body: ProfileQuery, access: Access) -> dict[str, list[dict[str, Any]]]:
        """Every current attribute value of an entity (`Memory.profile`)."""
        cid, owner = access.scope(body.conversation_id, body.owner)
        groups = memory.profile(
            cid, body.entity, history=body.history, owner=owner if cid is None else None
        )
        return jsonable_encoder(groups)  # type: ignore[no-any-return]

    @app.post("/timeline", responses=_ERRORS, tags=["read"])
    def timeline(body: ScopeQuery, access: Access) -> list[dict[str, Any]]:
        """Sessions and documents with dates and turn counts, oldest first
        (`Memory.timeline`)."""
        cid, owner = access.scope(body.conversation_id, body.owner)
        rows = memory.timeline(cid, owner=owner if cid is None else None)
        return jsonable_encoder(rows)  # type: ignore[no-any-return]
