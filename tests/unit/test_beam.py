"""BEAM's layout (`kgmem.ingest.loaders.beam`) and the bench's metrics
(`kgmem.bench.beam.score_rows`), on the small long-turn chat written for these tests
(tests/data/beam/1; not BEAM's data)."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from kgmem.bench.beam import chat_dirs, score_rows
from kgmem.errors import MalformedInput
from kgmem.ingest.loaders.beam import chat_file, evidence_ids, load_beam_chat, parse_anchor

DATA = Path(__file__).resolve().parents[1] / "data" / "beam"
CHAT = DATA / "1"


def test_loader_sessions_dates_roles_and_bookkeeping() -> None:
    chat = load_beam_chat(CHAT, "beam-t")
    record = chat.record
    assert len(record.turns) == 16 and len(record.sessions) == 8
    # each BEAM session is a session; the latest time_anchor carries forward, n minutes apart
    starts = [s.started_at for s in record.sessions]
    assert starts[0] == datetime(2024, 3, 15, tzinfo=UTC)
    assert starts[1] == datetime(2024, 3, 15, 0, 1, tzinfo=UTC)
    assert starts[3] == datetime(2024, 4, 5, tzinfo=UTC)
    assert starts[7] == datetime(2024, 4, 25, 0, 1, tzinfo=UTC)
    assert starts == sorted(starts)
    first = record.turns[0]
    assert first.id == "beam-t:0" and first.speaker == "user" and first.role == "user"
    assert record.turns[1].role == "assistant"
    assert "->->" not in first.text and first.text.endswith("the data model?")
    assert not chat.undated and chat.chat_path.name == "chat.json"


def test_questions_evidence_parts_and_missing_ids() -> None:
    questions = {q.ability: q for q in load_beam_chat(CHAT, "beam-t").questions}
    ku = questions["knowledge_update"]
    assert ku.evidence == ("beam-t:6", "beam-t:12")
    assert ku.parts == {"original_info": ("beam-t:6",), "updated_info": ("beam-t:12",)}
    multi = questions["multi_session_reasoning"]
    assert multi.evidence == ("beam-t:0", "beam-t:14") and multi.missing == ("99",)
    assert questions["abstention"].evidence == ()
    assert evidence_ids({"a": [1, [2]], "b": 3}) == [1, 2, 3]


def test_truncated_file_preferred_and_anchor_formats(tmp_path: Path) -> None:
    shutil.copytree(CHAT, tmp_path / "7")
    assert chat_file(tmp_path / "7").name == "chat.json"
    shutil.copy(CHAT / "chat.json", tmp_path / "7" / "chat_trunecated.json")
    assert chat_file(tmp_path / "7").name == "chat_trunecated.json"
    assert [p.name for p in chat_dirs(tmp_path)] == ["7"]
    assert chat_dirs(tmp_path / "7") == [tmp_path / "7"]
    assert parse_anchor("March-03-2024", file="f") == datetime(2024, 3, 3, tzinfo=UTC)
    with pytest.raises(MalformedInput, match="time_anchor"):
        parse_anchor("the ides of March", file="f")


@pytest.mark.parametrize(
    ("content", "where"),
    [
        ("{not json", "chat.json"),
        ('{"batches": []}', "chat.json"),
        ('[{"turns": [[{"role": "user", "id": 0}]]}]', "chat.json"),
        (
            '[{"turns": [[{"role": "user", "id": 0, "content": "x", "time_anchor": "soon"}]]}]',
            "chat.json",
        ),
    ],
)
def test_malformed_chat_names_the_file(tmp_path: Path, content: str, where: str) -> None:
    shutil.copytree(CHAT, tmp_path / "1")
    (tmp_path / "1" / "chat.json").write_text(content, encoding="utf-8")
    with pytest.raises(MalformedInput) as info:
        load_beam_chat(tmp_path / "1", "beam-t")
    assert where in str(info.value) and str(tmp_path) in str(info.value)


def test_malformed_questions_name_the_file(tmp_path: Path) -> None:
    shutil.copytree(CHAT, tmp_path / "1")
    path = tmp_path / "1" / "probing_questions" / "probing_questions.json"
    path.write_text(json.dumps({"abstention": [{"q": "no question key"}]}), encoding="utf-8")
    with pytest.raises(MalformedInput, match=r"probing_questions\.json"):
        load_beam_chat(tmp_path / "1", "beam-t")
    with pytest.raises(MalformedInput, match="no chat directories named"):
        chat_dirs(tmp_path, ["2"])


def test_score_rows_metrics() -> None:
    questions = load_beam_chat(CHAT, "beam-t").questions
    by = {q.ability: q for q in questions}
    c = "beam-t:"
    ranked = {q.id: {"ranked": [f"{c}{i}" for i in (1, 3, 5)]} for q in questions}
    # information extraction #0: evidence 0 at rank 2; knowledge update: updated (12) above 6
    first_ie = next(q for q in questions if q.ability == "information_extraction")
    ranked[first_ie.id] = {"ranked": [f"{c}1", f"{c}0"]}
    ranked[by["knowledge_update"].id] = {"ranked": [f"{c}12", f"{c}6"]}
    ranked[by["contradiction_resolution"].id] = {"ranked": [f"{c}4", f"{c}9", f"{c}10"]}
    ranked[by["multi_session_reasoning"].id] = {
        "ranked": [f"{c}{i}" for i in range(12)] + [f"{c}14"]
    }
    row = score_rows("x", questions, ranked, (5, 10, 20))
    m = row["metrics"]
    assert m["all"]["n"] == 9  # every question but abstention carries evidence ids
    ie = m["information_extraction"]
    assert ie["n"] == 2 and ie["any_at"]["5"] == 0.5 and ie["mrr"] == 0.25
    ms = m["multi_session_reasoning"]
    assert ms["any_at"]["5"] == 1.0 and ms["all_at"]["10"] == 0.0 and ms["all_at"]["20"] == 1.0
    assert row["knowledge_update"] == {"n": 1, "updated_first": 1.0}
    assert row["contradiction"] == {"n": 1, "both": 1.0, "both_flagged": None}
    assert row["abstention"] is None and row["instructions"] is None
    # the original ranked above the update: not "updated first"
    ranked[by["knowledge_update"].id] = {"ranked": [f"{c}6", f"{c}12"]}
    assert score_rows("x", questions, ranked, (10,))["knowledge_update"]["updated_first"] == 0.0


def test_score_rows_abstention_instructions_conflicts() -> None:
    questions = load_beam_chat(CHAT, "beam-t").questions
    by = {q.ability: q for q in questions}
    found = {
        q.id: {
            "ranked": ["beam-t:4", "beam-t:10"],
            "ms": 10.0 + n,
            "read_path_ms": 5.0,
            "answerable": q.ability != "information_extraction",
            "conflicts": [frozenset({"beam-t:4", "beam-t:10"})],
            "instructions": ["beam-t:2"],
        }
        for n, q in enumerate(questions)
    }
    found[by["abstention"].id]["answerable"] = False
    row = score_rows("kgmem", questions, found, (10,), first=[questions[0].id])
    ab = row["abstention"]
    # 1 abstention question abstained on; 2 information-extraction questions abstained wrongly
    assert (ab["tp"], ab["fp"], ab["fn"]) == (1, 2, 0)
    assert ab["precision"] == round(1 / 3, 4) and ab["recall"] == 1.0
    assert ab["false_abstention"] == round(2 / 6, 4)  # 6 questions of the answerable abilities
    assert row["contradiction"] == {"n": 1, "both": 1.0, "both_flagged": 1.0}
    ins = row["instructions"]
    assert ins["instruction_following"] == {"n": 1, "recall": 1.0}
    assert ins["preference_following"] == {"n": 1, "recall": 0.0}
    assert ins["per_search"] == 1.0
    assert row["read_ms"]["first"] == 10.0 and row["read_ms"]["p50"] > 10.0
    rest = [v["ms"] for q, v in found.items() if q != questions[0].id]
    assert row["read_ms"]["mean"] == round(sum(rest) / len(rest), 4)


def test_score_rows_ordering() -> None:
    questions = load_beam_chat(CHAT, "beam-t").questions
    by = {q.ability: q for q in questions}
    positions = {f"beam-t:{i}": i for i in range(16)}
    found = {q.id: {"ranked": ["beam-t:1"], "order": "relevance"} for q in questions}
    ordering = by["event_ordering"].id  # evidence 0, 6, 14
    found[ordering] = {"ranked": ["beam-t:0", "beam-t:14", "beam-t:6"], "order": "time"}
    row = score_rows("x", questions, found, (10,), positions=positions)
    # pairs (0,14) and (0,6) in order, (14,6) not
    assert row["ordering"] == {
        "n": 1,
        "read_as_ordering": 1.0,
        "n_pairs": 1,
        "pairwise_in_order": round(2 / 3, 4),
    }
    assert (
        score_rows(
            "c",
            questions,
            {q: {"ranked": v["ranked"]} for q, v in found.items()},
            (10,),
            positions=positions,
        )["ordering"]["read_as_ordering"]
        is None
    )
