"""The read path's configuration: one frozen `EngineConfig`, built from `kgmem.config.Settings`.

This is the one home of the read path's defaults. `EngineConfig()` is the shipped
configuration: every field defaults to its setting's shipped default (`shipped_default`), and
`EngineConfig.from_settings` reads the same fields from a `Settings` (the ``KGMEM_*``
variables). The generator budgets of `kgmem.retrieve.plan.Planner` and the scorer's weights
(`kgmem.retrieve.score.ScoreWeights`) take their defaults from the same settings. Each knob
sizes one thing (`POOL_SETTINGS`).

A configuration that cannot run (an unknown engine, generator or fact source, a negative pool,
a confidence outside [0, 1]) raises `ConfigError` when it is built, naming the setting and the
allowed values, rather than failing later inside the driver.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, get_args

from kgmem.config import Settings, shipped_default
from kgmem.errors import ConfigError
from kgmem.retrieve.score import ScoreWeights

__all__ = [
    "DEFAULT_GENERATORS",
    "GENERATORS",
    "POOL_SETTINGS",
    "EngineConfig",
    "EngineName",
    "FactSourceChoice",
    "pools_from",
    "shipped_pools",
]

EngineName = Literal["cosine", "linked"]
FactSourceChoice = Literal["annotation", "extracted", "both"]

GENERATORS: tuple[str, ...] = (
    "dense_turns",
    "dense_facts",
    "fulltext",
    "speaker",
    "entity",
    "window",
    "events",
    "hop",
)
"""Seed generators and expansions a plan budgets (each value = max candidates it may add):
dense_turns / dense_facts (vector search over turns / facts), fulltext (BM25 over turns),
speaker (vector search over the turns spoken by a speaker the question names; 0 when it names
none), entity (turns linked to resolved entities), window (turns said in, or dated into, the
time range the question names), events (turns via event membership), hop (hop-2 structured
query from hop-1 nodes; 0 = no second hop)."""

#: generator -> the setting that sizes its pool (one setting per pool)
POOL_SETTINGS: dict[str, str] = {
    "dense_turns": "pool_turns",
    "dense_facts": "pool_facts",
    "fulltext": "pool_fulltext",
    "speaker": "pool_speaker",
    "entity": "pool_entity",
    "window": "pool_window",
    "events": "expand_events",
    "hop": "expand_hop",
}

#: the shipped generator set (the best dev configuration; see docs/benchmarks.md)
DEFAULT_GENERATORS = frozenset({"dense_turns", "dense_facts", "fulltext", "speaker"})


def shipped_pools() -> dict[str, int]:
    """Generator -> its shipped pool size (the defaults of `POOL_SETTINGS`)."""
    return {name: int(shipped_default(setting)) for name, setting in POOL_SETTINGS.items()}


#: integer fields of `EngineConfig` -> their least allowed value (the settings' bounds)
_INT_LEAST: dict[str, int] = {
    "max_hops": 0,
    "pool_holder": 0,
    "fulltext_filtered_factor": 1,
    "fulltext_filtered_max": 1,
    "chain_hops": 1,
    "chain_versions": 1,
    "max_instructions": 0,
}

#: `EngineConfig` fields read from the setting of the same name as they are
_FROM_SETTINGS = (
    "current_bonus",
    "pool_holder",
    "fulltext_filtered_factor",
    "fulltext_filtered_max",
    "chain_hops",
    "chain_versions",
    "max_instructions",
    "instruction_similarity",
    "passage_gain",
    "passage_draws",
)


def _shipped(name: str) -> Any:
    return field(default_factory=lambda: shipped_default(name))


def _allowed(value: object, choices: Sequence[str], what: str) -> None:
    if value not in choices:
        raise ConfigError(f"{what} is {value!r}; allowed: {', '.join(choices)}")


@dataclass(frozen=True)
class EngineConfig:
    """One frozen retrieval configuration (a row of the ablation table).

    Attributes:
        engine: ``cosine`` or ``linked``.
        generators: generator names switched on (see `GENERATORS`).
        weights: scorer weights (0 switches a term off).
        fact_sources: which fact sources the fact generators read.
        pools: pool size per generator (turns per pool; a missing generator has pool 0).
        link_confidence: the least confidence of a fact the entity generator and event
            expansion follow, in [0, 1].
        max_hops: the stateful hop's limit (below 2: no hop).
        bm25_content_words: the BM25 query leaves out stop words and the named speakers'
            names (`kgmem.retrieve.question.bm25_terms`).
        strip_speakers: embed the question without the named speakers' names
            (`kgmem.retrieve.linked.LinkedRetriever.reading`).
        current_bonus: score given to a key's chosen value's turns and taken from its other
            values' turns (`kgmem.retrieve.resolve.resolve_state`).
        pool_holder: facts read for answerability's holder gap (0 when no person is named).
        fulltext_filtered_factor / fulltext_filtered_max: under a search filter, BM25 asks
            the index for this many times its pool, at most the maximum.
        chain_hops / chain_versions: the chain operator's longest chain and the newest values
            it keeps per (entity, relation) (`kgmem.retrieve.chain.follow_chain`).
        max_instructions: standing instructions a search serves at most.
        instruction_similarity: least cosine of an instruction to a request it applies to
            without a shared typed scope (`kgmem.retrieve.standing.applicable`).
        passage_gain / passage_draws: how a long turn's dense score weighs its best passage
            against its head and the number of its passages (`kgmem.retrieve.generators.
            with_passage`).

    Raises:
        ConfigError: a field outside its allowed values (the message names the setting).
    """

    engine: EngineName = "linked"
    generators: frozenset[str] = DEFAULT_GENERATORS
    weights: ScoreWeights = field(default_factory=ScoreWeights)
    fact_sources: FactSourceChoice = "both"
    pools: dict[str, int] = field(default_factory=shipped_pools)
    link_confidence: float = _shipped("link_confidence")
    max_hops: int = _shipped("max_hops")
    bm25_content_words: bool = _shipped("bm25_content_words")
    strip_speakers: bool = _shipped("strip_speakers")
    current_bonus: float = _shipped("current_bonus")
    pool_holder: int = _shipped("pool_holder")
    fulltext_filtered_factor: int = _shipped("fulltext_filtered_factor")
    fulltext_filtered_max: int = _shipped("fulltext_filtered_max")
    chain_hops: int = _shipped("chain_hops")
    chain_versions: int = _shipped("chain_versions")
    max_instructions: int = _shipped("max_instructions")
    instruction_similarity: float = _shipped("instruction_similarity")
    passage_gain: float = _shipped("passage_gain")
    passage_draws: float = _shipped("passage_draws")

    def __post_init__(self) -> None:
        _allowed(self.engine, get_args(EngineName), "engine (kgmem search --engine)")
        _allowed(self.fact_sources, get_args(FactSourceChoice), "fact_sources (--facts)")
        for name in sorted(self.generators):
            _allowed(name, GENERATORS, "generator")
        for name, size in self.pools.items():
            _allowed(name, GENERATORS, "pool")
            if not isinstance(size, int) or isinstance(size, bool) or size < 0:
                raise ConfigError(
                    f"KGMEM_{POOL_SETTINGS[name].upper()} (pool {name}) is {size!r}; "
                    "allowed: an integer >= 0"
                )
        if not 0.0 <= self.link_confidence <= 1.0:
            raise ConfigError(f"KGMEM_LINK_CONFIDENCE is {self.link_confidence!r}; allowed: 0 to 1")
        for name, least in _INT_LEAST.items():
            value = getattr(self, name)
            if value < least:
                raise ConfigError(
                    f"KGMEM_{name.upper()} is {value!r}; allowed: an integer >= {least}"
                )

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        *,
        engine: EngineName = "linked",
        fact_sources: FactSourceChoice = "both",
        generators: Sequence[str] | None = None,
    ) -> EngineConfig:
        """The configuration ``settings`` describe: pools, weights and switches from the
        ``KGMEM_*`` read-path settings, the shipped generator set unless ``generators``.

        Raises:
            ConfigError: an engine, fact source or generator outside the allowed values.
        """
        return cls(
            engine=engine,
            generators=frozenset(generators) if generators is not None else DEFAULT_GENERATORS,
            weights=ScoreWeights.from_settings(settings),
            fact_sources=fact_sources,
            pools=pools_from(settings),
            link_confidence=settings.link_confidence,
            max_hops=settings.max_hops,
            bm25_content_words=settings.bm25_content_words,
            strip_speakers=settings.strip_speakers,
            **{name: getattr(settings, name) for name in _FROM_SETTINGS},
        )

    def with_(self, **changes: Any) -> EngineConfig:
        """A copy with ``changes`` (checked like a new configuration)."""
        return replace(self, **changes)

    @property
    def sources(self) -> list[str] | None:
        """The fact sources as the statements take them (None = both)."""
        return None if self.fact_sources == "both" else [self.fact_sources]


def pools_from(settings: Settings) -> dict[str, int]:
    """Generator -> pool size from ``settings`` (`POOL_SETTINGS`)."""
    return {name: int(getattr(settings, setting)) for name, setting in POOL_SETTINGS.items()}
