"""The scale benchmark's pure parts: templates copied into tenants and long conversations,
perturbed embeddings, seeded slices, BM25 drift, configuration checks (no server)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from kgmem.bench.scale import (
    ScaleConfig,
    Template,
    copy_piece,
    drift,
    long_id,
    long_pieces,
    perturb,
    tenant_id,
    tenant_slice,
)
from kgmem.errors import ConfigError

WHEN = datetime(2023, 5, 8, 13, 0, tzinfo=UTC)


def template(cid: str = "conv-1", n: int = 6, dim: int = 8) -> Template:
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(n, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    turns = [
        {
            "id": f"{cid}:D{1 + i // 3}:{i % 3}",
            "session": 1 + i // 3,
            "index": i,
            "dia_id": f"D{1 + i // 3}:{i % 3}",
            "speaker": "Ana" if i % 2 == 0 else "Ben",
            "text": f"turn {i}",
            "observed_at": WHEN + timedelta(days=7 * (i // 3)),
        }
        for i in range(n)
    ]
    ana = f"{cid}:e:person:ana"

    def fact(k: int, cites: list[int], key: str | None) -> dict[str, object]:
        return {
            "id": f"{cid}:x:{k}",
            "subject": ana,
            "relation": "live_in",
            "object": "Berlin",
            "text": f"fact {k}",
            "source": "extracted",
            "event_time": WHEN,
            "event_end": WHEN + timedelta(days=1),
            "event_granularity": "day",
            "event_phrase": "today",
            "valid_from": WHEN,
            "key": key,
            "serial": cites[0] * 1000,
            "confidence": 0.9,
            "session": 1,
            "cites": [turns[c]["id"] for c in cites],
            "about": [{"entity_id": ana, "role": "subject"}],
        }

    facts = [
        fact(0, [0], f"{ana}|residence"),
        fact(1, [2, 3], None),
        fact(2, [4], f"{ana}|residence"),
    ]
    return Template(
        conversation_id=cid,
        sessions=[{"session": s, "started_at": WHEN + timedelta(days=7 * (s - 1))} for s in (1, 2)],
        turns=turns,
        turn_vectors=vectors,
        facts=facts,
        fact_vectors=vectors[: len(facts)].copy(),
        entities={ana: {"id": ana, "name": "Ana", "type": "person", "aliases": ["Annie"]}},
        mentions=[(turns[0]["id"], ana), (turns[4]["id"], ana)],
        events=[
            {
                "id": f"{cid}:ev:0",
                "name": "move",
                "time": WHEN,
                "time_end": WHEN + timedelta(days=1),
                "granularity": "day",
                "fact_ids": [f"{cid}:x:0", f"{cid}:x:2"],
            }
        ],
        supersedes=[(f"{cid}:x:2", f"{cid}:x:0")],
    )


def test_a_slice_keeps_what_cites_it_and_moves_every_id() -> None:
    t = template()
    copy = copy_piece(
        t, 2, 5, conversation_id="scale-t00003", rng=np.random.default_rng(1), noise=0.02
    )
    assert [x.id for x in copy.turns] == [
        "scale-t00003:D1:2",
        "scale-t00003:D2:0",
        "scale-t00003:D2:1",
    ]
    assert [x.index for x in copy.turns] == [0, 1, 2]
    assert {x.conversation_id for x in copy.turns + copy.facts} == {"scale-t00003"}
    assert [s.session for s in copy.sessions] == [1, 2]
    # fact 0 cites turn 0 only (dropped); fact 1 keeps its cites inside the slice; fact 2 kept
    assert [f.id for f in copy.facts] == ["scale-t00003:x:1", "scale-t00003:x:2"]
    assert copy.facts[0].cites == ("scale-t00003:D1:2", "scale-t00003:D2:0")
    assert copy.facts[1].key == "scale-t00003:e:person:ana|residence"
    assert copy.facts[1].about == (("scale-t00003:e:person:ana", "subject"),)
    assert [e.id for e in copy.entities] == ["scale-t00003:e:person:ana"]
    assert copy.entities[0].aliases == ("Annie",)
    assert copy.mentions == [("scale-t00003:D2:1", "scale-t00003:e:person:ana")]
    assert copy.supersedes == []  # its older fact is outside the slice
    assert copy.events[0].fact_ids == ("scale-t00003:x:2",)
    assert copy.next_rows == [
        {"prev": "scale-t00003:D1:2", "next": "scale-t00003:D2:0"},
        {"prev": "scale-t00003:D2:0", "next": "scale-t00003:D2:1"},
    ]
    assert np.concatenate(copy.turn_vectors).shape == (3, 8)
    assert np.concatenate(copy.fact_vectors).shape == (2, 8)


def test_a_long_copy_is_tagged_shifted_and_linked() -> None:
    t = template()
    shift = timedelta(days=100)
    copy = copy_piece(
        t, 0, 6, conversation_id=long_id(), tag="c3:", index_offset=60, session_offset=10,
        shift=shift, rng=np.random.default_rng(1), noise=0.0, previous_turn_id="scale-long:c2:D9:9",
    )  # fmt: skip
    assert copy.turns[0].id == "scale-long:c3:D1:0" and copy.turns[0].dia_id == "c3:D1:0"
    assert [x.index for x in copy.turns] == list(range(60, 66))
    assert [s.session for s in copy.sessions] == [11, 12]
    assert copy.turns[0].observed_at == WHEN + shift
    assert copy.facts[0].event_time is not None and copy.facts[0].event_time.start == WHEN + shift
    assert copy.facts[0].serial == 60_000  # arrival order continues after the earlier copies
    assert copy.supersedes == [("scale-long:c3:x:2", "scale-long:c3:x:0")]
    assert copy.next_rows[0] == {"prev": "scale-long:c2:D9:9", "next": "scale-long:c3:D1:0"}
    assert np.array_equal(np.concatenate(copy.turn_vectors), t.turn_vectors)  # noise 0


def test_perturbed_vectors_are_unit_and_close() -> None:
    v = template(n=50, dim=384).turn_vectors
    out = perturb(v, np.random.default_rng(99), 0.02)
    assert out.dtype == np.float32
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)
    cos = np.sum(out * v, axis=1)
    assert cos.min() > 0.85 and cos.max() < 0.99


def test_slices_and_pieces_are_seeded_and_cover_the_length() -> None:
    ts = [template("a", 30), template("b", 12), template("c", 9)]
    assert tenant_slice(ts, 4, 10, 7) == tenant_slice(ts, 4, 10, 7)
    picked, start = tenant_slice(ts, 4, 10, 7)
    assert picked is ts[1] and 0 <= start <= 2
    pieces = list(long_pieces(ts, 100))
    assert sum(stop - start for _, _, start, stop in pieces) == 100
    assert [p[1].conversation_id for p in pieces[:4]] == ["a", "b", "c", "a"]
    assert tenant_id(42) == "scale-t00042"


def test_drift_counts_changed_sets() -> None:
    a = frozenset({"1", "2"})
    b = frozenset({"1", "3"})
    out = drift([(a, a), (a, b)], [(a, a), (b, b)])
    assert out == {"questions": 2, "turn_sets_changed": 1, "fact_sets_changed": 0,
                   "mean_jaccard": round((1 + 1 + 1 / 3 + 1) / 4, 4)}  # fmt: skip


@pytest.mark.parametrize(
    "bad",
    [
        {"tenant_levels": (100, 10)},
        {"tenant_levels": (0,)},
        {"long_lengths": (5, 5)},
        {"tenant_turns": 1},
        {"noise": -1.0},
        {"locomo": "sometimes"},
    ],
)
def test_bad_configuration_is_a_config_error(bad: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        ScaleConfig(**bad)  # type: ignore[arg-type]
