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
        kg, cos = report["rows"]
        assert (kg["name"], cos["name"]) == ("kgmem", "cosine")
        for row in (kg, cos):
            overall = row["metrics"]["all"]
            assert overall["n"] == 9
            assert 0 <= overall["all_at"]["5"] <= overall["all_at"]["10"] <= 1
            assert overall["all_at"]["10"] <= overall["any_at"]["10"]
            assert row["knowledge_update"]["n"] == 1 and row["contradiction"]["n"] == 1
        # 16 turns: every single-evidence question has its turn somewhere in the top 10
        assert kg["metrics"]["all"]["any_at"]["10"] >= 0.8
        assert kg["abstention"]["n_abstention"] == 1 and kg["abstention"]["n_other"] == 6
        assert kg["read_ms"]["p50"] > 0 and cos["abstention"] is None
        # re-run with reuse: nothing ingested, same rankings
        again = run_beam_bench(memory, root, ks=(5, 10), reuse=True)
        assert again["ingest"] is None and again["chats"][0]["ingest"] is None
        assert again["rows"][1]["metrics"] == cos["metrics"]
    finally:
        memory.forget(cid)


def test_cli_bench_beam_json_and_malformed(memory: Memory, tmp_path: Path) -> None:
    root = tmp_path / f"t{uuid.uuid4().hex[:8]}"
    shutil.copytree(CHAT, root / "1")
    (root / "1" / "chat.json").write_text("[1, 2]", encoding="utf-8")
    result = CliRunner().invoke(main, ["bench", "beam", str(root), "-q"])
    assert result.exit_code == 1
    assert "chat.json" in result.output and "batch #0" in result.output
    assert memory.counts(f"beam-{root.name}-1").get("turns", 0) == 0  # nothing written
