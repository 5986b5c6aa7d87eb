"""One home for the read path's defaults (`kgmem.retrieve.config`): `EngineConfig()` is the
shipped configuration, each knob sizes one thing, and a bad setting is a `ConfigError` that
names its variable and what it allows."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from kgmem.cli import main
from kgmem.config import Settings
from kgmem.errors import ConfigError
from kgmem.retrieve.config import GENERATORS, POOL_SETTINGS, EngineConfig
from kgmem.retrieve.plan import Planner
from kgmem.retrieve.score import ScoreWeights


@pytest.fixture
def shipped(monkeypatch: pytest.MonkeyPatch) -> Settings:
    """`Settings` as shipped: no KGMEM_* variable and no .env file."""
    for name in list(os.environ):
        if name.upper().startswith("KGMEM_"):
            monkeypatch.delenv(name)
    return Settings(_env_file=None)  # type: ignore[call-arg]  # pydantic-settings' own keyword


def test_engine_config_is_the_shipped_configuration(shipped: Settings) -> None:
    assert EngineConfig() == EngineConfig.from_settings(shipped)
    assert ScoreWeights() == ScoreWeights.from_settings(shipped)
    assert Planner().base == EngineConfig().pools
    assert EngineConfig().bm25_content_words and EngineConfig().strip_speakers
    assert EngineConfig().generators == {"dense_turns", "dense_facts", "fulltext", "speaker"}


def test_every_pool_has_its_own_setting(shipped: Settings) -> None:
    assert set(POOL_SETTINGS) == set(GENERATORS)
    assert len(set(POOL_SETTINGS.values())) == len(POOL_SETTINGS)  # one setting per pool
    fulltext = EngineConfig.from_settings(shipped.model_copy(update={"pool_fulltext": 3}))
    events = EngineConfig.from_settings(shipped.model_copy(update={"expand_events": 5}))
    assert fulltext.pools["fulltext"] == 3 and fulltext.pools["window"] == 10
    assert events.pools["events"] == 5 and events.pools["hop"] == 8
    own = EngineConfig.from_settings(shipped.model_copy(update={"pool_window": 4, "expand_hop": 2}))
    assert own.pools["window"] == 4 and own.pools["hop"] == 2
    assert own.pools["fulltext"] == 10 and own.pools["events"] == 8


@pytest.mark.parametrize(
    ("variable", "value", "allowed"),
    [
        ("KGMEM_POOL_TURNS", "-1", "greater than or equal to 0"),
        ("KGMEM_POOL_WINDOW", "many", "valid integer"),
        ("KGMEM_LINK_CONFIDENCE", "2", "less than or equal to 1"),
        ("KGMEM_MAX_HOPS", "-3", "greater than or equal to 0"),
        ("KGMEM_BM25_CONTENT_WORDS", "maybe", "valid boolean"),
        ("KGMEM_W_FACT", "heavy", "valid number"),
    ],
)
def test_a_bad_setting_is_a_config_error_naming_it(
    shipped: Settings, monkeypatch: pytest.MonkeyPatch, variable: str, value: str, allowed: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigError, match=f"{variable}={value!r}: .*{allowed}"):
        Settings(_env_file=None)  # type: ignore[call-arg]
    result = CliRunner().invoke(main, ["conversations"])
    assert result.exit_code == 1 and variable in result.output and "Traceback" not in result.output


def test_a_bad_engine_config_is_a_config_error(shipped: Settings) -> None:
    with pytest.raises(ConfigError, match="allowed: cosine, linked"):
        EngineConfig(engine="bm25")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="generator is 'magic'; allowed: dense_turns"):
        EngineConfig(generators=frozenset({"magic"}))
    with pytest.raises(ConfigError, match=r"KGMEM_POOL_WINDOW .* allowed: an integer >= 0"):
        EngineConfig().with_(pools={"window": -1})
    with pytest.raises(ConfigError, match=r"KGMEM_LINK_CONFIDENCE .* allowed: 0 to 1"):
        EngineConfig(link_confidence=1.5)
    with pytest.raises(ConfigError, match="allowed: annotation, extracted, both"):
        EngineConfig(fact_sources="all")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="allowed: dense_turns"):
        Planner(windows=3)


KNOBS = {
    "adjacent_top": 5,
    "current_bonus": 0.25,
    "pool_holder": 7,
    "fulltext_filtered_factor": 3,
    "fulltext_filtered_max": 99,
    "chain_hops": 2,
    "chain_versions": 1,
    "max_instructions": 2,
    "instruction_similarity": 0.5,
}


@pytest.mark.parametrize("name", sorted(KNOBS))
def test_a_read_knob_set_in_settings_reaches_the_engine(shipped: Settings, name: str) -> None:
    config = EngineConfig.from_settings(shipped.model_copy(update={name: KNOBS[name]}))
    holder = config.weights if name == "adjacent_top" else config
    assert getattr(holder, name) == KNOBS[name]
    assert (
        getattr(EngineConfig().weights if name == "adjacent_top" else EngineConfig(), name)
        != (KNOBS[name])
    )


def test_chain_and_stateful_hop_limits_are_two_settings(shipped: Settings) -> None:
    assert {"chain_hops", "max_hops"} <= set(Settings.model_fields)
    config = EngineConfig.from_settings(shipped.model_copy(update={"chain_hops": 3}))
    assert (config.chain_hops, config.max_hops) == (3, shipped.max_hops)
