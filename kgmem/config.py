"""Settings, read from ``KGMEM_*`` environment variables (and an optional ``.env``) when
`Settings()` is built — by the CLI or `kgmem.Memory.from_settings`, never at import.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import platformdirs
from pydantic import Field, SecretStr, ValidationError, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from kgmem.errors import ConfigError

__all__ = ["Settings", "default_data_dir", "shipped_default"]

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

    # --- read path (defaults = best dev configuration; `kgmem.retrieve.config` builds the
    # engine configuration from these and nothing else holds a default) ----------------------
    pool_turns: int = Field(default=40, ge=0, description="Dense turns seed pool.")
    pool_facts: int = Field(default=20, ge=0, description="Dense facts seed pool.")
    pool_fulltext: int = Field(default=10, ge=0, description="BM25 seed pool.")
    pool_speaker: int = Field(default=20, ge=0, description="Named speaker's turns seed pool.")
    pool_entity: int = Field(default=10, ge=0, description="Entity-linked turns seed pool.")
    pool_window: int = Field(default=10, ge=0, description="Turns in the named time range.")
    expand_events: int = Field(default=8, ge=0, description="Turns via event membership.")
    expand_hop: int = Field(default=8, ge=0, description="Turns the stateful hop may add.")
    link_confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    w_fact: float = 1.0
    w_adjacent: float = 0.06
    w_time: float = 0.05
    w_date: float = 0.2
    w_bm25: float = 0.3
    w_entity: float = 0.05
    w_event: float = 0.05
    w_hop: float = 0.05
    w_chain: float = 4.0
    w_speaker: float = 0.5
    bm25_content_words: bool = True
    strip_speakers: bool = True
    max_hops: int = Field(default=2, ge=0, description="Stateful hop limit (< 2: no hop).")

    # --- reader (optional, OpenAI-compatible) -----------------------------------------------
    reader_base_url: str | None = None
    reader_model: str | None = None
    reader_api_key: SecretStr | None = None
    reader_max_tokens: int = 256
    reader_timeout_s: float = 60.0

    # --- MCP server ---------------------------------------------------------------------------
    #: bearer token of ``kgmem mcp --http``; required when the bind address is not loopback
    mcp_token: SecretStr | None = None

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
