"""``kgmem bench cases FILE``: run a cases file (schema ``cases/1``) exactly as its ``about``
field says, and report pass/fail per query and per constraint.

Per case with a ``conversation`` (kgmem's generic chat format): the conversation is replaced
(forgotten if stored, then ingested with extracted facts — the write path a user gets); each
query runs ``Memory.search(query, conversation_id, k, as_of=as_of)`` with the default ``k``
(`kgmem.config.DEFAULT_K`, 10) and is checked for ``first`` (the top hit is one of these local
ids), ``not_above`` (each listed turn is absent from the top 10 or ranked below the top hit),
``absent`` (none of these turns is among the top 10) and ``abstain`` (``answerable`` is False
when true, True when false); ``current`` checks ``Memory.current`` / ``Memory.history``
citations; ``facts`` checks each constraint against the facts stored for a turn (``modality``,
``subject``, ``not_current``, ``entities_include``, ``entities_exclude``); each ``forgotten``
entry (``{"turn", "text"}``) is one check: the turn is not stored and ``text`` occurs in no
string or string-list property of any node of the conversation or relationship touching one
(``read/conversation_strings``). Cases with a ``procedure`` are reported as skipped (named
tests run them).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from kgmem.api import Memory
from kgmem.config import DEFAULT_K
from kgmem.errors import ConversationNotFound, MalformedInput
from kgmem.ingest.loaders.chat import parse_chat_conversation

__all__ = ["SCHEMA", "load_cases", "run_cases"]

SCHEMA = "cases/1"
K = DEFAULT_K
Check = dict[str, Any]


def load_cases(path: str | Path) -> dict[str, Any]:
    """Read and check a cases file.

    Raises:
        MalformedInput: not JSON, wrong schema, or a case without an id.
    """
    name = str(path)
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8-sig"))
    except (OSError, ValueError) as exc:
        raise MalformedInput(f"{name}: cannot read cases file: {exc}") from exc
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise MalformedInput(f"{name}: expected a JSON object with schema {SCHEMA!r}")
    cases = data.get("cases")
    if not isinstance(cases, list) or not all(
        isinstance(c, dict) and isinstance(c.get("id"), str) for c in cases
    ):
        raise MalformedInput(f"{name}: 'cases' must be a list of objects with an 'id'")
    return data


def _local(turn_id: str, conversation_id: str) -> str:
    prefix = f"{conversation_id}:"
    return turn_id[len(prefix) :] if turn_id.startswith(prefix) else turn_id


def _as_of(value: Any) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(str(value))
    except ValueError as exc:
        raise MalformedInput(f"as_of {value!r} is not an ISO 8601 datetime") from exc


def _query(memory: Memory, cid: str, q: dict[str, Any]) -> Check:
    as_of = _as_of(q.get("as_of"))
    result = memory.search(q["query"], cid, k=K, as_of=as_of)
    ranked = [_local(h.turn_id, cid) for h in result.hits]
    top = ranked[0] if ranked else None
    failures: list[str] = []
    if "first" in q and top not in q["first"]:
        failures.append(f"first: top hit is {top}, expected one of {q['first']}")
    for turn in q.get("not_above", []):
        if turn == top:  # anywhere else in the top 10 is below the top hit
            failures.append(f"not_above: {turn} is the top hit")
    for turn in q.get("absent", []):
        if turn in ranked:
            failures.append(f"absent: {turn} is hit {ranked.index(turn) + 1}")
    if "abstain" in q and bool(q["abstain"]) == result.answerable:
        failures.append(
            f"abstain: answerable={result.answerable} (unsupported {result.unsupported})"
        )
    return {
        "kind": "query",
        "query": q["query"],
        "as_of": q.get("as_of"),
        "passed": not failures,
        "failures": failures,
        "ranked": ranked,
        "answerable": result.answerable,
        "unsupported": result.unsupported,
    }


def _current(memory: Memory, cid: str, spec: dict[str, Any]) -> Check:
    failures: list[str] = []
    row = memory.current(cid, spec["entity"], spec["relation"])
    cites = [_local(t, cid) for t in (row or {}).get("cites", [])]
    if "cites" in spec and spec["cites"] not in cites:
        failures.append(f"current cites {cites}, expected {spec['cites']}")
    history = [
        _local(t, cid)
        for r in memory.history(cid, spec["entity"], spec["relation"])
        for t in r["cites"]
    ]
    if "history_cites" in spec and list(dict.fromkeys(history)) != spec["history_cites"]:
        failures.append(f"history cites {history}, expected {spec['history_cites']}")
    return {
        "kind": "current",
        "entity": spec["entity"],
        "relation": spec["relation"],
        "passed": not failures,
        "failures": failures,
    }


def _facts(memory: Memory, cid: str, spec: dict[str, Any]) -> Check:
    rows = memory.store.read(
        "read/turn_facts", conversation_id=cid, turn_id=f"{cid}:{spec['turn']}"
    )
    facts = rows[0]["facts"] if rows else []
    entities = rows[0]["entities"] if rows else []
    about = spec.get("about")
    chosen = [f for f in facts if about is None or about.casefold() in f["text"].casefold()]
    failures: list[str] = []
    wants_facts = any(k in spec for k in ("modality", "subject", "not_current"))
    if wants_facts and not chosen:
        failures.append(
            f"no facts for turn {spec['turn']}" + (f" about {about!r}" if about else "")
        )
    for f in chosen:
        if "modality" in spec and f["modality"] != spec["modality"]:
            failures.append(f"{f['text']!r}: modality {f['modality']}, expected {spec['modality']}")
        if "subject" in spec:
            names = [n.casefold() for n in f["subject_names"]] + [str(f["subject"]).casefold()]
            if spec["subject"].casefold() not in names:
                failures.append(f"{f['text']!r}: subject {f['subject_names'] or f['subject']}")
        if spec.get("not_current") and f["key"] is not None:
            failures.append(f"{f['text']!r}: takes part in current value {f['key']}")
    names = [e["name"] for e in entities]
    for want in spec.get("entities_include", []):
        if not any(want.casefold() in n.casefold() for n in names):
            failures.append(f"entities_include: no entity contains {want!r} (have {names})")
    for unwanted in spec.get("entities_exclude", []):
        if any(unwanted.casefold() == n.casefold() for n in names):
            failures.append(f"entities_exclude: entity {unwanted!r} is linked")
    return {
        "kind": "facts",
        "turn": spec["turn"],
        "about": about,
        "passed": not failures,
        "failures": failures,
        "facts": [{"text": f["text"], "modality": f["modality"], "key": f["key"]} for f in facts],
        "entities": names,
    }


def _forgotten(memory: Memory, cid: str, spec: dict[str, Any]) -> Check:
    failures: list[str] = []
    turn_id = f"{cid}:{spec['turn']}"
    if memory.store.read("read/existing_turn_ids", conversation_id=cid, turn_ids=[turn_id]):
        failures.append(f"turn {spec['turn']} is stored")
    needle = str(spec["text"])
    for row in memory.store.read("read/conversation_strings", conversation_id=cid):
        # case-insensitive: a capitalised copy of the secret is still the secret
        if any(needle.casefold() in value.casefold() for value in row["strings"]):
            failures.append(f"{needle!r} occurs in {row['kind']}.{row['key']}")
    return {
        "kind": "forgotten",
        "turn": spec["turn"],
        "text": needle,
        "passed": not failures,
        "failures": failures,
    }


def run_cases(
    memory: Memory,
    data: dict[str, Any],
    *,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run every case of a loaded cases file (see module docstring).

    Conversations with the cases' ids are replaced in the store.

    Returns:
        ``{"schema", "cases": [{"id", "kind", "status": passed|failed|skipped, "checks": [...]}],
        "totals": {"checks", "passed", "failed", "skipped_cases", "cases_passed",
        "cases_failed"}}``.
    """
    out_cases: list[dict[str, Any]] = []
    for case in data["cases"]:
        if progress:
            progress(case["id"])
        if "procedure" in case or "conversation" not in case:
            out_cases.append(
                {"id": case["id"], "kind": case.get("kind", ""), "status": "skipped", "checks": []}
            )
            continue
        conversation = parse_chat_conversation(case["conversation"], file=case["id"])
        cid = conversation.conversation_id
        with contextlib.suppress(ConversationNotFound):
            memory.forget(cid)
        memory.add_conversation(conversation, facts="extracted")
        checks = [_query(memory, cid, q) for q in case.get("queries", [])]
        if "current" in case:
            checks.append(_current(memory, cid, case["current"]))
        checks += [_facts(memory, cid, spec) for spec in case.get("facts", [])]
        checks += [_forgotten(memory, cid, spec) for spec in case.get("forgotten", [])]
        status = "passed" if all(c["passed"] for c in checks) else "failed"
        out_cases.append(
            {"id": case["id"], "kind": case.get("kind", ""), "status": status, "checks": checks}
        )
    checks = [c for case in out_cases for c in case["checks"]]
    return {
        "schema": data.get("schema"),
        "cases": out_cases,
        "totals": {
            "checks": len(checks),
            "passed": sum(c["passed"] for c in checks),
            "failed": sum(not c["passed"] for c in checks),
            "cases_passed": sum(c["status"] == "passed" for c in out_cases),
            "cases_failed": sum(c["status"] == "failed" for c in out_cases),
            "skipped_cases": sum(c["status"] == "skipped" for c in out_cases),
        },
    }
