"""`kgmem bench beam` end to end on the small long-turn chat written for the tests
(tests/data/beam/1, BEAM's layout; BEAM itself is not redistributable): ingested through
`Memory`, every question searched, the report's counts and metrics as defined in
`kgmem.bench.beam`."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

from click.testing import CliRunner

from kgmem.api import Memory
from kgmem.bench.beam import run_beam_bench
from kgmem.cli import main

CHAT = Path(__file__).resolve().parents[1] / "data" / "beam" / "1"


def test_bench_beam_report(memory: Memory, tmp_path: Path) -> None:
    root = tmp_path / f"t{uuid.uuid4().hex[:8]}"
    shutil.copytree(CHAT, root / "1")
    cid = f"beam-{root.name}-1"
    try:
        report = run_beam_bench(memory, root, ks=(5, 10))
        assert report["schema"] == "kgmem.bench.beam/1"
        counts = report["counts"]
        assert (counts["chats"], counts["turns"], counts["questions"]) == (1, 16, 10)
        assert counts["with_evidence"] == 9 and counts["missing_evidence_ids"] == 1
        chat = report["chats"][0]
        assert chat["conversation_id"] == cid and chat["sessions"] == 8
        assert chat["missing_evidence"] == {f"{cid}:multi_session_reasoning:0": ["99"]}
        assert memory.counts(cid)["turns"] == 16
        assert report["ingest"]["turns_per_s"] > 0 and report["embedding_only"]["turns_per_s"] > 0
        inside = report["ingest"]["embedding_seconds"]
        assert 0 < inside < report["ingest"]["seconds"]
        assert report["ingest"]["over_embedding"] == round(report["ingest"]["seconds"] / inside, 3)
        assert 0 < report["chats"][0]["ingest"]["embedding_seconds"] == inside
        kg, cos = report["rows"]
        assert (kg["name"], cos["name"]) == ("kgmem", "cosine")
        for row in (kg, cos):
            overall = row["metrics"]["all"]
            assert overall["n"] == 9
            assert 0 <= overall["all_at"]["5"] <= overall["all_at"]["10"] <= 1
            assert overall["all_at"]["10"] <= overall["any_at"]["10"]
            assert row["knowledge_update"]["n"] == 1 and row["contradiction"]["n"] == 1
            assert len(row["questions"]) == 9
            for q in row["questions"]:
                ranks = [r for r in q["evidence_ranks"].values() if r is not None]
                assert q["id"].startswith(cid) and all(r >= 1 for r in ranks)
        # 16 turns: every single-evidence question has its turn somewhere in the top 10
        assert kg["metrics"]["all"]["any_at"]["10"] >= 0.8
        assert kg["abstention"]["n_abstention"] == 1 and kg["abstention"]["n_other"] == 6
        assert kg["read_ms"]["p50"] > 0 and cos["abstention"] is None
        # the standing instruction, the preference, the contradiction and the ordering question
        ins = kg["instructions"]
        assert ins["instruction_following"] == {"n": 1, "recall": 1.0}
        assert ins["preference_following"] == {"n": 1, "recall": 1.0}
        assert ins["per_search"] <= 5
        assert kg["contradiction"]["both_flagged"] == 1.0
        assert kg["ordering"]["read_as_ordering"] == 1.0
        assert kg["ordering"]["pairwise_in_order"] == 1.0
        # re-run with reuse: nothing ingested, same rankings
        again = run_beam_bench(memory, root, ks=(5, 10), reuse=True)
        assert again["ingest"] is None and again["chats"][0]["ingest"] is None
        assert again["rows"][1]["metrics"] == cos["metrics"]
        _check_standing(memory, cid)  # last: it forgets a turn
    finally:
        memory.forget(cid)


def _check_standing(memory: Memory, cid: str) -> None:
    """Passages, instructions, the conflict and time order on the ingested chat."""
    standing = {i["turn_id"]: i["kind"] for i in memory.instructions(cid)}
    assert standing == {f"{cid}:2": "instruction", f"{cid}:8": "preference"}
    code = memory.instructions(cid, "Write the function that exports my transactions to CSV")
    assert [i["turn_id"] for i in code] == [f"{cid}:2"] and code[0]["why"].startswith("scope:")
    found = memory.search("Have I used Flask-Login in this project?", cid, k=3)
    assert [sorted(c["turn_ids"]) for c in found.conflicts] == [sorted([f"{cid}:4", f"{cid}:10"])]
    assert {f"{cid}:4", f"{cid}:10"} <= {h.turn_id for h in found.hits}
    first, second = found.conflicts[0]["turns"]
    assert first["observed_at"] < second["observed_at"] and found.conflicts[0]["why"]
    # the instructions and conflicts are cached with the conversation's context: the same
    # search again makes no standing read and serves the same
    read, statements = memory.store.read, []
    memory.store.read = lambda name, **kw: statements.append(name) or read(name, **kw)  # type: ignore[method-assign]
    try:
        again = memory.search("Have I used Flask-Login in this project?", cid, k=3)
    finally:
        memory.store.read = read  # type: ignore[method-assign]
    assert "read/standing" not in statements and again.conflicts == found.conflicts
    ordered = memory.search("In what order did I bring up the data model and deployment?", cid)
    times = [h.observed_at for h in ordered.hits]
    assert ordered.order == "time" and times == sorted(times)
    assert memory.search("data model and deployment", cid, order="time").order == "time"
    # a long assistant turn is searched by its passages: the fix after the code block is found
    fix = memory.search("index on transactions.user_id and caching the monthly totals", cid)
    top = next(h for h in fix.hits if h.turn_id == f"{cid}:7")
    assert (
        top.passage is not None and "user_id" in top.text[top.passage["start"] : top.passage["end"]]
    )
    memory.forget_turns(cid, [f"{cid}:2"])  # forgetting the turn forgets its instruction
    assert [i["turn_id"] for i in memory.instructions(cid)] == [f"{cid}:8"]
    asked = memory.search("Write the function that exports my transactions to CSV", cid)
    assert f"{cid}:2" not in {i["turn_id"] for i in asked.instructions}  # not served from cache


def test_cli_bench_beam_json_and_malformed(memory: Memory, tmp_path: Path) -> None:
    root = tmp_path / f"t{uuid.uuid4().hex[:8]}"
    shutil.copytree(CHAT, root / "1")
    (root / "1" / "chat.json").write_text("[1, 2]", encoding="utf-8")
    result = CliRunner().invoke(main, ["bench", "beam", str(root), "-q"])
    assert result.exit_code == 1
    assert "chat.json" in result.output and "batch #0" in result.output
    assert memory.counts(f"beam-{root.name}-1").get("turns", 0) == 0  # nothing written
