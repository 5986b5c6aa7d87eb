"""The kgmem error tree. Every error the package raises on purpose derives from `KgmemError`.

```
KgmemError
├── ConfigError                  a setting is missing or invalid
├── InputError                   bad input data; names file / conversation / turn / line
│   ├── MalformedInput           unparseable JSON, wrong types, missing fields
│   │   ├── DocumentRejected     a document too large, binary, unreadable or undecodable
│   │   └── InvalidCursor        a search cursor that is forged, stale or for another search
│   └── DateParseError           a session or fact date that cannot be parsed
├── StoreError                   anything between kgmem and Neo4j
│   ├── Neo4jUnavailable         no server at the URI (says how to start one)
│   ├── AuthenticationFailed     wrong user or password (never prints the password)
│   ├── SchemaMismatch           vector index of another dimension than the embedder's
│   ├── SchemaOutdated           a search index of an older layout (say how to rebuild it)
│   ├── IndexNotOnline           a search index still populating (or failed) after the wait
│   ├── QueryNotFound            a named Cypher statement is not in the catalogue
│   └── ServerError              the local Neo4j launcher failed (start/stop/status)
├── ModelUnavailable             the embedder or spaCy pipeline cannot be loaded
│   ├── OnnxExportFailed         the ONNX query backend cannot be built
│   └── TruthWeightsInvalid      the truth decisions' weights are missing, corrupt or stale
├── ConversationNotFound         a conversation id that holds no turns
│   └── OwnerNotFound            an owner that holds no conversation
├── NotSupported                 an adapter operation this build of kgmem cannot do (says why)
├── TurnNotFound                 turn ids a conversation never held (Memory.forget_turns)
├── ReaderError                  the optional OpenAI-compatible reader failed or is not configured
└── PeerError                    the latency bench's peer worker failed (kgmem.bench.latency)
```

The CLI turns every `KgmemError` into a one-line message and exit status 1 in one place
(`kgmem.cli`); nothing else is caught there.
"""

from __future__ import annotations

__all__ = [
    "AuthenticationFailed",
    "ConfigError",
    "ConversationNotFound",
    "DateParseError",
    "DocumentRejected",
    "IndexNotOnline",
    "InputError",
    "InvalidCursor",
    "KgmemError",
    "MalformedInput",
    "ModelUnavailable",
    "Neo4jUnavailable",
    "NotSupported",
    "OnnxExportFailed",
    "OwnerNotFound",
    "QueryNotFound",
    "ReaderError",
    "SchemaMismatch",
    "SchemaOutdated",
    "ServerError",
    "StoreError",
    "TruthWeightsInvalid",
    "TurnNotFound",
]


class KgmemError(Exception):
    """Root of every error kgmem raises on purpose."""


class ConfigError(KgmemError):
    """A setting is missing or invalid."""


class InputError(KgmemError):
    """Bad input data. Carries where it was found so a user can fix the file.

    Args:
        message: what is wrong.
        file: the input file, if any.
        conversation_id: the conversation being read, if known.
        turn: the turn id (e.g. ``D3:7``) or line number, if known.
        argument: the argument or field at fault (``conversation_id``, ``owner``, ...), for an
            error about a call's arguments rather than a file.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        conversation_id: str | None = None,
        turn: str | None = None,
        argument: str | None = None,
    ) -> None:
        self.file = file
        self.conversation_id = conversation_id
        self.turn = turn
        self.argument = argument
        where = ", ".join(
            f"{name} {value!r}"
            for name, value in (
                ("argument", argument),
                ("file", file),
                ("conversation", conversation_id),
                ("turn", turn),
            )
            if value is not None
        )
        super().__init__(f"{message} ({where})" if where else message)
        self.reason = message


class MalformedInput(InputError):
    """Unparseable JSON, wrong types or missing fields."""


class DocumentRejected(MalformedInput):
    """A document that `kgmem.api.Memory.add_document` refuses as a whole: nothing of it is
    written.

    Args:
        message: what is wrong and what to do.
        kind: ``too_large``, ``binary``, ``undecodable``, ``unreadable``, ``empty`` or
            ``unsupported`` (a format this build does not read, such as PDF).
        file: the file (or the ``source`` of a text), if any.
    """

    def __init__(self, message: str, *, kind: str, file: str | None = None) -> None:
        self.kind = kind
        super().__init__(message, file=file)


class InvalidCursor(MalformedInput):
    """A search cursor (`kgmem.steer`) that cannot continue a search.

    Args:
        message: what is wrong and what to do.
        reason: ``forged`` (not issued by this service, or altered), ``mismatched`` (issued for
            another query, filters or scope) or ``stale`` (memory changed since it was issued).
    """

    def __init__(self, message: str, *, reason: str) -> None:
        self.kind = reason
        super().__init__(message, argument="cursor")


class DateParseError(InputError):
    """A date or datetime that cannot be parsed."""


class StoreError(KgmemError):
    """Anything between kgmem and Neo4j."""


class Neo4jUnavailable(StoreError):
    """No Neo4j answers at the configured URI."""

    def __init__(self, uri: str, detail: str = "") -> None:
        self.uri = uri
        msg = (
            f"Neo4j is not reachable at {uri}. Start the local server with `kgmem neo4j start` "
            "(or `docker compose -f docker/compose.yaml up -d`), or set KGMEM_NEO4J_URI."
        )
        super().__init__(f"{msg} [{detail}]" if detail else msg)


class AuthenticationFailed(StoreError):
    """Neo4j refused the user/password. The password is never included in the message."""

    def __init__(self, uri: str, user: str) -> None:
        self.uri = uri
        self.user = user
        super().__init__(
            f"Neo4j at {uri} refused user {user!r}: wrong password. Set KGMEM_NEO4J_PASSWORD, "
            "or for the local server leave it unset so the generated password file is used."
        )


class SchemaMismatch(StoreError):
    """An existing vector index has another dimension than the configured embedder.

    Args:
        index: the index name.
        expected_dim: the embedder's dimension.
        found_dim: the dimension of the index in the database.
    """

    def __init__(self, index: str, expected_dim: int, found_dim: int) -> None:
        self.index = index
        self.expected_dim = expected_dim
        self.found_dim = found_dim
        super().__init__(
            f"vector index {index!r} has dimension {found_dim}, but the embedder produces "
            f"{expected_dim}-d vectors; refusing to mix them. Use a fresh database or drop the "
            "index and re-ingest."
        )


class SchemaOutdated(StoreError):
    """A kgmem search index exists with an older layout than this version creates, e.g. a
    vector index without the tenant filter properties that Cypher 25 ``SEARCH`` needs, or a
    fulltext index without the tenant token. kgmem never mixes layouts silently.

    Args:
        index: the index name.
        found: what the database has (indexed properties, quantization).
        expected: what this version creates.
    """

    def __init__(self, index: str, found: str, expected: str) -> None:
        self.index = index
        self.found = found
        self.expected = expected
        super().__init__(
            f"index {index!r} has an older layout ({found}; this version needs {expected}). "
            "Run `kgmem schema apply --rebuild` once: it drops and recreates kgmem's search "
            "indexes and backfills tenant tokens (data is kept; the indexes repopulate)."
        )


class IndexNotOnline(StoreError):
    """A kgmem search index is not ``ONLINE`` (still populating after the bounded wait, or
    failed), so a search would miss what it holds.

    Args:
        index: the index name.
        state: its state (``POPULATING``, ``FAILED``).
        percent: how much of it is populated (0-100), if Neo4j says.
        waited_s: how long kgmem waited, in seconds.
    """

    def __init__(self, index: str, state: str, percent: float | None, waited_s: float) -> None:
        self.index = index
        self.state = state
        self.percent = percent
        self.waited_s = waited_s
        done = f", {percent:.0f}% populated" if percent is not None else ""
        super().__init__(
            f"search index {index!r} is {state}{done} after waiting {waited_s:.0f} s; a search "
            "now would miss what it holds. Retry shortly (a freshly created or rebuilt index "
            "populates from the stored data), or check `SHOW INDEXES` if it FAILED."
        )


class QueryNotFound(StoreError):
    """A named Cypher statement is not in the catalogue (``cypher/<folder>/<name>.cypher``)."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"no Cypher statement named {name!r} in the catalogue")


class ServerError(StoreError):
    """The local Neo4j launcher failed (missing Java/Maven, port taken, start timed out)."""


class ModelUnavailable(KgmemError):
    """The embedding model or the spaCy pipeline cannot be loaded; says what to install."""


class OnnxExportFailed(ModelUnavailable):
    """The ONNX query-embedding backend cannot be built: ``onnx``/``onnxruntime`` missing, a
    model that is not Transformer + mean pooling, or the export or its session failed (the
    cause is in the message). With ``KGMEM_EMBEDDING_BACKEND=auto`` it only logs a warning and
    the torch path is used."""


class TruthWeightsInvalid(ModelUnavailable):
    """The shipped weights of the truth decisions (``kgmem/data/truth/``) are missing, corrupt
    (their SHA-256 differs from the manifest's) or were trained on another corpus than the one
    beside the package (the manifest's corpus hash differs). Raised when `kgmem.api.Memory`
    starts; ``kgmem train truth`` rebuilds them.

    Args:
        file: the file that is missing or wrong.
        reason: what is wrong with it.
    """

    def __init__(self, file: str, reason: str) -> None:
        self.file = file
        self.reason = reason
        super().__init__(f"truth weights {file}: {reason}; rebuild them with `kgmem train truth`")


class ConversationNotFound(KgmemError):
    """A conversation id that holds no turns in the store."""

    def __init__(self, conversation_id: str) -> None:
        self.conversation_id = conversation_id
        super().__init__(f"conversation {conversation_id!r} has no turns in the store")


class OwnerNotFound(ConversationNotFound):
    """An owner whose conversations hold no turns (a `ConversationNotFound`, so callers that
    handle an empty conversation handle an empty owner alike)."""

    def __init__(self, owner: str) -> None:
        KgmemError.__init__(self, f"owner {owner!r} has no conversations with turns in the store")
        self.owner = owner
        self.conversation_id = ""


class NotSupported(KgmemError, NotImplementedError):
    """An operation a framework adapter exposes but this build of kgmem cannot perform (e.g.
    deleting a single item before turn-level forgetting exists, or TTLs). The message names the
    operation and what to use instead."""


class TurnNotFound(KgmemError):
    """Turn ids that a conversation neither holds nor has forgotten.

    Args:
        conversation_id: the conversation.
        turn_ids: the unknown ids (full ids, ``<conversation_id>:<local id>``).
    """

    def __init__(self, conversation_id: str, turn_ids: list[str]) -> None:
        self.conversation_id = conversation_id
        self.turn_ids = list(turn_ids)
        names = ", ".join(repr(t) for t in self.turn_ids)
        super().__init__(
            f"conversation {conversation_id!r} holds no turn {names}; nothing was forgotten"
        )


class ReaderError(KgmemError):
    """The optional reader (OpenAI-compatible endpoint) is not configured or failed."""
