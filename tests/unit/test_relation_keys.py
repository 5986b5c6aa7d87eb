"""Supersession by the trained relation decision (`kgmem.ingest.extraction.relation_keys`), pure: a
fixed model stands in for the shipped one so each guard is tested on its own."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from kgmem.ingest.extraction.relation_keys import ADOPT_SCORE, adopt_keys
from kgmem.ingest.extraction.supersession import assign_keys, supersession_chain
from kgmem.models import FactRecord
from kgmem.truth.corpus import LABELS
from kgmem.truth.weights import LinearModel, TruthModels, shipped_models


def _models(label: str) -> TruthModels:
    """Models whose relation decision always says ``label`` with probability ~0.96."""
    shipped = shipped_models()
    labels = LABELS["relation"]
    bias = np.zeros(len(labels), dtype=np.float32)
    bias[labels.index(label)] = 5.0
    width = shipped.relation.weights.shape[1]
    model = LinearModel(labels, np.zeros((len(labels), width), np.float32), bias, 1.0)
    return replace(shipped, relation=model)


def _encode(texts: list[str]) -> np.ndarray:
    """One fixed unit vector for every text: every pair has cosine 1."""
    out = np.zeros((len(texts), 384), dtype=np.float32)
    out[:, 0] = 1.0
    return out


def _fact(fid: str, text: str, turn: int, **kw: Any) -> FactRecord:
    return FactRecord(
        id=fid, conversation_id="c", subject=kw.pop("subject", "kai"),
        relation=kw.pop("relation", "work_at"), object=kw.pop("object", "c:e:org:acme"),
        text=text, source="extracted", serial=turn * 1000 + kw.pop("n", 0),
        cites=(f"t{turn}",), **kw,
    )  # fmt: skip


TURNS = {f"t{n}": f"turn {n}" for n in range(10)}


def _stored(fact: FactRecord) -> dict[str, Any]:
    vector = _encode(["x"])[0]
    return {
        "id": fact.id, "key": fact.key, "serial": fact.serial, "embedding": vector,
        "turn_text": TURNS[fact.cites[0]], "turn_embedding": vector,
    }  # fmt: skip


def test_an_unkeyed_change_takes_the_older_key_and_supersedes() -> None:
    old = assign_keys([_fact("f1", "Kai works at Acme", 1)])[0]
    assert old.key == "kai|employer"
    new = _fact("f2", "after the reorg Kai ended up in platform", 5, relation="end_up_in")
    out, adopted = adopt_keys([new], [_stored(old)], TURNS, _encode, _models("new_value"))
    assert out[0].key == "kai|employer"
    assert [(a.fact_id, a.older_id, a.label) for a in adopted] == [("f2", "f1", "new_value")]
    assert adopted[0].score >= ADOPT_SCORE
    assert supersession_chain([old, out[0]]) == [("f2", "f1")]


def test_no_key_when_the_decision_says_it_is_not_a_replacement() -> None:
    old = assign_keys([_fact("f1", "Kai works at Acme", 1)])[0]
    new = _fact("f2", "Kai also plays chess", 5, relation="play")
    for label in ("unrelated", "additional_value", "restatement", "conflict"):
        out, adopted = adopt_keys([new], [_stored(old)], TURNS, _encode, _models(label))
        assert out[0].key is None and adopted == []


def test_guards_holder_turn_modality_and_rule_keys() -> None:
    old = assign_keys([_fact("f1", "Kai works at Acme", 1)])[0]
    models = _models("correction")
    other = _fact("f2", "Ana ended up in platform", 5, subject="ana", relation="end_up_in")
    same_turn = _fact("f3", "and then platform", 1, n=1, relation="end_up_in")
    plan = _fact("f4", "Kai might end up in platform", 5, relation="end_up_in",
                 modality="hypothetical")  # fmt: skip
    before = _fact("f5", "Kai previously ended up in platform", 5, relation="end_up_in")
    for fact in (other, same_turn, plan, before):
        out, adopted = adopt_keys([fact], [_stored(old)], TURNS, _encode, models)
        assert out[0].key is None and adopted == [], fact.id
    keyed = assign_keys([_fact("f6", "Kai moved to Lisbon", 5, relation="move_to",
                               object="Lisbon")])[0]  # fmt: skip
    out, adopted = adopt_keys([keyed], [_stored(old)], TURNS, _encode, models)
    assert out[0].key == "kai|residence" and adopted == []


def test_candidates_from_the_same_batch_and_nothing_to_compare() -> None:
    old = assign_keys([_fact("f1", "Kai works at Acme", 1)])[0]
    new = _fact("f2", "Kai ended up in platform", 5, relation="end_up_in")
    out, adopted = adopt_keys([old, new], [], TURNS, _encode, _models("retraction"))
    assert out[1].key == old.key and adopted[0].older_id == "f1"
    calls: list[list[str]] = []

    def encode(texts: list[str]) -> np.ndarray:
        calls.append(texts)
        return _encode(texts)

    assert adopt_keys([new], [], TURNS, encode, _models("retraction")) == ([new], [])
    assert calls == []  # nothing keyed to compare with: no embedding


def test_of_one_turn_the_fact_nearest_the_old_value_takes_the_key() -> None:
    def encode(texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), 384), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i, 1 if "beach" in text else 0] = 1.0
        return out

    old = assign_keys([_fact("f1", "Kai lives in Leeds", 1, relation="live_in", object="Leeds")])
    move = _fact("f2", "Kai is in Bristol now", 5, relation="be_in")
    beach = _fact("f3", "Kai loves the beach", 5, n=1, relation="love")
    stored = {**_stored(old[0]), "embedding": encode(["x"])[0], "turn_embedding": encode(["x"])[0]}
    out, adopted = adopt_keys([beach, move], [stored], TURNS, encode, _models("new_value"))
    assert [(a.fact_id, a.key) for a in adopted] == [("f2", "kai|residence")]
    assert out[0].key is None
