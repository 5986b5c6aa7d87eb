"""Settings, read from ``KGMEM_*`` environment variables (and an optional ``.env``) when
`Settings()` is built — by the CLI or `kgmem.Memory.from_settings`, never at import.
"""

from __future__ import annotations

from pathlib import Path

import platformdirs
from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["Settings", "default_data_dir"]

DEFAULT_EMBEDDER = "sentence-transformers/all-MiniLM-L6-v2"


def default_data_dir() -> Path:
    """The per-user data directory (``~/.local/share/kgmem`` on Linux); never inside the repo."""
    return Path(platformdirs.user_data_dir("kgmem", appauthor=False))


class Settings(BaseSettings):
    """All knobs of kgmem. Every field can be set as ``KGMEM_<FIELD>`` (case-insensitive).

    Retrieval weights and pool sizes default to the best dev-split configuration (LoCoMo
    conv-26/30/41); see README "Benchmarks" for the measurements behind them.
    """

    model_config = SettingsConfigDict(
        env_prefix="KGMEM_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    # --- Neo4j connection -------------------------------------------------------------------
    neo4j_uri: str = Field(
        default="bolt://127.0.0.1:7687",
        description="Defaults to bolt://127.0.0.1:<neo4j_bolt_port> when not set.",
    )
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr | None = Field(
        default=None,
        description="If unset, the local server's generated password file is used.",
    )
    neo4j_database: str = "neo4j"

    # --- local server (no Docker) -----------------------------------------------------------
    data_dir: Path = Field(default_factory=default_data_dir)
    neo4j_bolt_port: int = 7687
    neo4j_http_port: int = 7474
    neo4j_heap: str = "1g"
    neo4j_pagecache: str = "512m"
    neo4j_start_timeout_s: float = 180.0
    java_home: Path | None = Field(
        default=None, description="Java 21+ for the local server; default: found by find_java."
    )

    # --- models -----------------------------------------------------------------------------
    embedder: str = DEFAULT_EMBEDDER
    embed_batch_size: int = 64
    embed_max_chars: int = 4000
    spacy_model: str = "en_core_web_sm"

    # --- write path -------------------------------------------------------------------------
    write_batch_size: int = 500
    # memory requests inside a conversation (kgmem.ingest.requests, docs/roles-and-requests.md)
    requests: bool = Field(
        default=True, description="Detect 'forget X' / 'don't save this' requests at write time."
    )
    request_roles: list[str] = Field(
        default_factory=lambda: ["user"],
        description="Roles whose turns may make memory requests (JSON list in the env var).",
    )
    request_max_turns: int = Field(
        default=5,
        ge=0,
        description="A request that would remove more turns than this is reported, not applied.",
    )
    request_similarity: float = Field(
        default=0.3,
        description="Least topic-turn cosine (all-MiniLM-L6-v2) for a forget request to match.",
    )

    # --- read path (defaults = best dev configuration) --------------------------------------
    pool_turns: int = 40
    pool_facts: int = 20
    pool_fulltext: int = 10
    pool_speaker: int = 20
    pool_entity: int = 10
    expand_events: int = 8
    link_confidence: float = 0.5
    w_fact: float = 1.0
    w_adjacent: float = 0.06
    w_time: float = 0.05
    w_bm25: float = 0.3
    w_entity: float = 0.05
    w_event: float = 0.05
    w_hop: float = 0.05
    w_chain: float = 4.0
    w_speaker: float = 0.5
    bm25_content_words: bool = True
    strip_speakers: bool = True
    max_hops: int = 2

    # --- reader (optional, OpenAI-compatible) -----------------------------------------------
    reader_base_url: str | None = None
    reader_model: str | None = None
    reader_api_key: SecretStr | None = None
    reader_max_tokens: int = 256
    reader_timeout_s: float = 60.0

    # --- MCP server ---------------------------------------------------------------------------
    #: bearer token of ``kgmem mcp --http``; required when the bind address is not loopback
    mcp_token: SecretStr | None = None

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
