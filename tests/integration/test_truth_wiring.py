"""The trained truth decisions through the product, against the real Neo4j: supersession by the
relation decision (`kgmem.ingest.extraction.relation_keys`), a retraction as `SearchResult.answer`,
and the trained answerability score beside the rules (`kgmem.retrieve.answerable_model`)."""

from __future__ import annotations

import contextlib
import uuid
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from kgmem.api import Memory
from kgmem.cli.search import search as search_cli
from kgmem.errors import ConversationNotFound
from kgmem.ingest.extraction import relation_keys
from kgmem.ingest.loaders.chat import parse_chat_conversation
from kgmem.truth.corpus import LABELS
from kgmem.truth.decisions import relation
from kgmem.truth.weights import LinearModel, shipped_models


def _ingest(memory: Memory, turns: list[tuple[str, str]]) -> tuple[str, Any]:
    cid = f"it-wiring-{uuid.uuid4().hex[:8]}"
    raw = {
        "conversation_id": cid,
        "sessions": [
            {
                "started_at": f"2026-0{i + 1}-03T09:00:00+00:00",
                "turns": [{"id": f"t{i}", "speaker": speaker, "text": text}],
            }
            for i, (speaker, text) in enumerate(turns)
        ],
    }
    with contextlib.suppress(ConversationNotFound):
        memory.forget(cid)
    report = memory.add_conversation(parse_chat_conversation(raw), facts="extracted")
    return cid, report


def test_a_change_no_rule_keys_supersedes_through_the_relation_decision(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The decision (fixed here to say ``new_value``) gives the unkeyed fact the old value's
    key: the move becomes the current residence and the answer, the old value its history."""
    shipped = shipped_models()
    labels = LABELS["relation"]
    bias = np.zeros(len(labels), dtype=np.float32)
    bias[labels.index("new_value")] = 5.0
    fixed = LinearModel(labels, np.zeros_like(shipped.relation.weights), bias, 1.0)
    models = replace(shipped, relation=fixed)
    monkeypatch.setattr(
        relation_keys, "relation", lambda s, n, t, texts, m=None: relation(s, n, t, texts, models)
    )
    cid, report = _ingest(
        memory,
        [
            ("user", "I live in Leeds with my partner."),
            ("assistant", "Lovely city."),
            ("user", "We've packed up and we're in Bristol now."),
        ],
    )
    assert [a["older_id"] for a in report.adoptions] == [f"{cid}:x:t0:0"]
    adopted = report.adoptions[0]
    assert adopted["label"] == "new_value" and adopted["key"].endswith("|residence")
    history = memory.history(cid, "user", "residence")
    assert [row["id"] for row in history][-1] == adopted["fact_id"]
    result = memory.search("Where do I live?", cid, k=3)
    assert result.answer is not None and result.answer["fact_id"] == adopted["fact_id"]
    memory.forget(cid)


def test_with_the_shipped_weights_an_unrelated_turn_takes_no_key(memory: Memory) -> None:
    cid, report = _ingest(
        memory,
        [
            ("user", "I live in Leeds with my partner."),
            ("assistant", "Lovely city."),
            ("user", "I went to a pottery class on Sunday and made a lopsided bowl."),
        ],
    )
    assert report.adoptions == []
    memory.forget(cid)


def test_a_retracted_value_is_answered_as_retracted(memory: Memory) -> None:
    cid, _ = _ingest(
        memory,
        [
            ("user", "I drink oat lattes every morning."),
            ("assistant", "Nice."),
            ("user", "Quick update: I don't drink lattes anymore."),
        ],
    )
    result = memory.search("What do I drink?", cid, k=3)
    answer = result.answer
    assert answer is not None
    assert answer["negated"] is True and answer["why"].startswith("retracted")
    assert answer["turn_id"] == f"{cid}:t2"
    memory.forget(cid)


def test_the_trained_answerability_score_is_reported(memory: Memory) -> None:
    cid, _ = _ingest(
        memory,
        [
            ("user", "My phone number is 0151 444 1234."),
            ("assistant", "Noted."),
        ],
    )
    detail = memory.search("What's my phone number?", cid, k=3).answerability
    assert 0.0 <= detail["trained"] <= 1.0
    assert str(detail["trained_fact"]).startswith(f"{cid}:")
    explained = CliRunner().invoke(
        search_cli,
        ["What's my phone number?", "--conversation", cid, "--k", "2", "--explain"],
        obj=memory.settings,
    )
    assert explained.exit_code == 0, explained.output
    assert "trained answerability: best 'answers'" in explained.output
    assert "not yet used" not in explained.output
    assert f"{cid}:t0: answerability" in explained.output
    memory.forget(cid)
