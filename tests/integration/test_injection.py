"""Injection: hostile strings in every input field are stored verbatim and never run as Cypher.

Every string of `tests.strategies.INJECTION_STRINGS` goes into the conversation id, speaker, turn
text, turn id, image caption, search query, and the entity/relation of ``current``/``history``.
A bystander conversation's checksum, the label and relationship-type sets, and the database's
other content stay exactly as they were. A static test checks that no Cypher text in the package
is built by string formatting from anything but the statement catalogue.
"""

from __future__ import annotations

import ast
import contextlib
import json
import re
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import neo4j
import pytest

from kgmem import Memory
from kgmem.config import Settings
from kgmem.errors import ConversationNotFound, MalformedInput
from kgmem.ingest.loaders.chat import load_chat
from kgmem.retrieve.config import EngineConfig
from kgmem.retrieve.retriever import SearchResult
from kgmem.store.catalogue import cypher_root
from tests.strategies import INJECTION_STRINGS, record_figure, snapshot

ROOT = Path(__file__).resolve().parents[2]
WHEN = datetime(2024, 5, 8, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def memory(settings: Settings) -> Iterator[Memory]:
    with Memory.from_settings(settings) as mem:
        mem.apply_schema()
        yield mem


def _schema_tokens(driver: neo4j.Driver) -> tuple[set[str], set[str]]:
    with driver.session() as session:
        labels = {r["label"] for r in session.run("CALL db.labels() YIELD label RETURN label")}
        types = {r["relationshipType"] for r in session.run("CALL db.relationshipTypes()")}
    return labels, types


def _bystander(memory: Memory) -> str:
    cid = f"inj-bystander-{uuid.uuid4().hex[:8]}"
    memory.add_turns(
        cid,
        [
            {"id": "b1", "speaker": "Ana", "text": "I moved to Lisbon last month."},
            {"id": "b2", "speaker": "Bo", "text": "I adopted a puppy named Pixel yesterday."},
        ],
        observed_at=WHEN,
    )
    return cid


def _visible(value: str) -> str:
    """A non-blank variant (speakers and texts must not be blank)."""
    return value if value.strip() else f"x{value}x"


def test_injection_strings_in_every_field_are_stored_verbatim(
    memory: Memory, driver: neo4j.Driver, tmp_path: Path
) -> None:
    bystander = _bystander(memory)
    before = snapshot(driver, bystander)
    labels_before, types_before = _schema_tokens(driver)
    tried = 0
    run = uuid.uuid4().hex[:8]
    try:
        for n, bad in enumerate(INJECTION_STRINGS):
            speaker, text, local = _visible(bad), f"{bad} said {bad}", _visible(bad)
            if ":" in bad:  # ':' separates tenant and turn ids: refused with a typed error
                with pytest.raises(MalformedInput):
                    memory.add_turns(f"inj-{run}-{n}-{bad}", [{"speaker": "A", "text": "x"}])
            cid = f"inj-{run}-{n}-{bad.replace(':', '_')}"
            # the API path: conversation id, speaker, text, turn id
            memory.add_turns(
                cid, [{"id": local, "speaker": speaker, "text": text}], observed_at=WHEN
            )
            with driver.session() as session:
                row = session.run(
                    "MATCH (t:Turn {conversation_id: $cid}) RETURN t.id AS id, t.dia_id AS dia, "
                    "t.speaker AS speaker, t.text AS text",
                    cid=cid,
                ).single()
            assert row is not None, bad
            assert row["text"] == text and row["speaker"] == speaker.strip()
            assert row["dia"] == local and row["id"] == f"{cid}:{local}"
            # queries and current/history arguments
            for engine in ("cosine", "linked"):
                config = EngineConfig.from_settings(memory.settings, engine=engine)  # type: ignore[arg-type]
                result: SearchResult = memory.search(_visible(bad), cid, k=3, config=config)
                assert [h.text for h in result.hits] == [text]
                assert result.query == _visible(bad)
            assert memory.history(cid, bad, bad) == []
            assert memory.current(cid, bad, _visible(bad)) is None
            assert memory.forget(cid)["turns"] == 1
            tried += 1
            # the file path (loader → add_conversation): caption and ids; ':' is refused there
            if ":" not in bad and bad.strip():
                file_cid = f"inj-{run}-f{n}-{bad}".strip()
                doc = {
                    "conversation_id": file_cid,
                    "sessions": [
                        {
                            "started_at": "2024-05-08T10:00:00Z",
                            "turns": [
                                {
                                    "id": bad.strip(),
                                    "speaker": speaker,
                                    "text": text,
                                    "image_caption": _visible(bad),
                                },
                            ],
                        }
                    ],
                }
                path = tmp_path / f"inj{n}.json"
                path.write_text(json.dumps(doc), encoding="utf-8")
                [record] = load_chat(path)
                memory.add_conversation(record, facts="extracted")
                with driver.session() as session:
                    stored = session.run(
                        "MATCH (t:Turn {conversation_id: $cid}) RETURN t.text AS text", cid=file_cid
                    ).value()
                assert stored == [f"{text.strip()} [shared image: {_visible(bad).strip()}]"]
                memory.forget(file_cid)
                tried += 1
        after = snapshot(driver, bystander)
        assert after.checksum == before.checksum
        labels_after, types_after = _schema_tokens(driver)
        assert labels_after <= labels_before | {"Turn", "Fact", "Entity", "Event", "Session"}
        assert "X" not in types_after and types_after <= types_before | {
            "NEXT",
            "CITES",
            "ABOUT",
            "MENTIONS",
            "MEMBER_OF",
            "SUPERSEDES",
            "IN_SESSION",
        }
        with driver.session() as session:
            leftovers = session.run(
                "MATCH (n) WHERE n.conversation_id STARTS WITH $prefix RETURN count(n)",
                prefix=f"inj-{run}-",
            ).single()
        assert leftovers is not None and leftovers[0] == 0  # forget removed every hostile tenant
        record_figure("injection_strings", len(INJECTION_STRINGS))
        record_figure("injection_writes_checked", tried)
    finally:
        with contextlib.suppress(ConversationNotFound):
            memory.forget(bystander)


# --- static checks --------------------------------------------------------------------------------

_DYNAMIC_CYPHER = re.compile(
    r"\$\(|apoc\.(cypher|create|merge|do|refactor)\.|\{\d*\}|%[sd]|\bCALL\s*\{\s*\$", re.IGNORECASE
)


def test_cypher_files_take_only_parameters() -> None:
    """No statement builds a label, type or property from a value (no ``:$(...)``, no APOC
    dynamic creation, no format placeholders); every ``$name`` is a plain parameter."""
    files = sorted(cypher_root().rglob("*.cypher"))
    assert len(files) >= 30
    for path in files:
        code = "\n".join(
            line.split("//", 1)[0] for line in path.read_text(encoding="utf-8").splitlines()
        )
        assert not _DYNAMIC_CYPHER.search(code), path
        for param in re.findall(r"\$(\S+)", code):
            assert re.match(r"[A-Za-z_]\w*", param), (path, param)


_RUNNERS = {
    "run",
    "execute_query",
    "read",
    "write",
    "write_batches",
    "write_many",
    "explain",
    "run_read",
    "run_write",
}
#: the one place that formats Cypher: EXPLAIN + a catalogue statement (kgmem/store/driver.py)
_ALLOWED = {("kgmem/store/driver.py", 'f"EXPLAIN {text}"')}


def _formatted(node: ast.expr) -> bool:
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod | ast.Add):
        return _formatted(node.left) or _formatted(node.right) or isinstance(node.op, ast.Mod)
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
    )


def test_no_cypher_is_built_by_string_formatting() -> None:
    """Every first argument of ``tx.run`` / ``session.run`` / ``Store.read|write|...`` in the
    package is a literal or a name, never an f-string, ``%`` or ``.format`` (the allow-listed
    ``EXPLAIN`` prefix of a catalogue statement aside)."""
    found = []
    for path in sorted((ROOT / "kgmem").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        rel = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(source)):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr not in _RUNNERS or not node.args:
                continue
            receiver = ast.unparse(node.func.value)
            if receiver in {
                "subprocess",
                "fh",
                "sys.stdout",
                "sys.stderr",
                "server",
                "path",
                "self.path",
            }:
                continue
            first = node.args[0]
            if _formatted(first) and (rel, ast.unparse(first).replace("'", '"')) not in _ALLOWED:
                found.append(f"{rel}:{node.lineno}: {ast.unparse(node)[:120]}")
    assert not found, "\n".join(found)


def test_no_python_module_embeds_cypher_statements() -> None:
    """Cypher lives in cypher/*.cypher; Python holds none beyond trivial probes."""
    statement = re.compile(r"\b(MATCH|MERGE)\s*\(")
    offenders = []
    for path in sorted((ROOT / "kgmem").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}  # docstrings
        for node in ast.walk(tree):
            if (
                id(node) not in docs
                and isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and statement.search(node.value)
            ):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offenders, offenders


def test_evidence_cypher_keeps_hostile_ids_in_comments_or_literals(memory: Memory) -> None:
    from kgmem.audit import evidence_cypher

    result = SearchResult(
        query="q\nMATCH (n) DETACH DELETE n",
        conversation_id="c\nMATCH (n) DETACH DELETE n //",
        k=1,
        engine="linked",
        hits=[],
    )
    script = evidence_cypher(result)
    assert "\nMATCH (n) DETACH DELETE n" not in script
