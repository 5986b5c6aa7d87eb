"""Loader for the standard LoCoMo layout (``locomo10.json``; Maharana et al., ACL 2024).

The file is a JSON list of samples::

    {"sample_id": "conv-26",
     "conversation": {"speaker_a": "...", "speaker_b": "...",
                      "session_1_date_time": "1:56 pm on 8 May, 2023",
                      "session_1": [{"speaker": "...", "dia_id": "D1:1", "text": "...",
                                     "blip_caption": "..." (optional)}, ...], ...},
     "observation": {"session_1_observation": {"<speaker>": [["<fact>", "D1:3"], ...]}},
     "qa": [{"question": "...", "answer": "...", "evidence": ["D1:3"], "category": 2}, ...]}

Session datetimes carry no zone; they are taken to be UTC (see `parse_session_datetime`).
Observations become annotation facts (``source = "annotation"``) citing their turns.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path
from typing import Any

from kgmem.errors import InputError, MalformedInput
from kgmem.ingest.extraction.dates import session_start
from kgmem.models import (
    ConversationRecord,
    FactRecord,
    QuestionRecord,
    SessionRecord,
    TurnRecord,
)
from kgmem.turns import check_conversation_id, check_unicode, make_turn

__all__ = ["load_locomo", "normalize_evidence", "parse_locomo_sample"]

_SESSION_KEY = re.compile(r"^session_(\d+)$")
# "D8:6", "d8:6", "D:11:26", "D30:05", "D 8 : 6" -> (session, turn). Anything between two
# matches (";", ",", spaces) is a separator.
_EVIDENCE_ID = re.compile(r"[Dd]\s*:?\s*(\d+)\s*:\s*(\d+)")


def normalize_evidence(
    raw: str | Sequence[str] | None, valid_ids: Collection[str]
) -> tuple[list[str], list[str]]:
    """Turn LoCoMo gold evidence entries into canonical local turn ids.

    The released data holds entries such as ``"D8:6; D9:17"`` (two ids in one string),
    ``"D:11:26"`` (a stray colon), ``"D30:05"`` (a leading zero), lower case ``"d1:3"``, stray
    spaces, and ids that point at no turn. Every ``D<s>:<t>`` inside an entry is read, rewritten
    as ``D<int(s)>:<int(t)>`` and kept if it is in ``valid_ids``.

    Args:
        raw: one entry or a list of entries (the ``evidence`` field of a LoCoMo ``qa`` item).
            ``None`` and non-string items are tolerated (read as no entry / ``str(item)``).
        valid_ids: the conversation's local turn ids in canonical form (``"D1:3"``).

    Returns:
        ``(resolved, unresolved)``: canonical ids found in ``valid_ids``, and the raw pieces
        (stripped) that name no existing turn or no id at all. Both are deduplicated preserving
        first-seen order. Never raises.
    """
    if raw is None:
        entries: list[str] = []
    elif isinstance(raw, str):
        entries = [raw]
    else:
        entries = [item if isinstance(item, str) else str(item) for item in raw]

    resolved: list[str] = []
    unresolved: list[str] = []
    for entry in entries:
        matches = list(_EVIDENCE_ID.finditer(entry))
        if not matches:
            piece = entry.strip()
            if piece:
                _append_unique(unresolved, piece)
            continue
        for match in matches:
            canonical = f"D{int(match.group(1))}:{int(match.group(2))}"
            if canonical in valid_ids:
                _append_unique(resolved, canonical)
            else:
                _append_unique(unresolved, match.group(0).strip())
    return resolved, unresolved


def _append_unique(items: list[str], value: str) -> None:
    if value not in items:
        items.append(value)


def load_locomo(
    path: str | Path, conversations: Iterable[str] | None = None
) -> list[ConversationRecord]:
    """Read a LoCoMo file into conversation records.

    Args:
        path: a file in the ``locomo10.json`` layout.
        conversations: keep only these ``sample_id`` values (all when None).

    Returns:
        one `ConversationRecord` per sample, turns in utterance order.

    Raises:
        MalformedInput: unreadable JSON, wrong types, missing fields; names file, conversation,
            turn.
        DateParseError: a session date that cannot be parsed.
        InputError: a requested conversation id is not in the file.
    """
    file = str(path)
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8-sig"))
    except FileNotFoundError as exc:
        raise InputError("file not found", file=file) from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MalformedInput(f"not valid JSON: {exc}", file=file) from exc
    if not isinstance(raw, list):
        raise MalformedInput("expected a JSON list of samples", file=file)
    wanted = set(conversations) if conversations is not None else None
    records: list[ConversationRecord] = []
    for position, sample in enumerate(raw):
        if not isinstance(sample, dict):
            raise MalformedInput(f"sample {position} is not an object", file=file)
        sample_id = sample.get("sample_id")
        if not isinstance(sample_id, str) or not sample_id.strip():
            raise MalformedInput(f"sample {position} has no string sample_id", file=file)
        if wanted is not None and sample_id not in wanted:
            continue
        records.append(parse_locomo_sample(sample, file=file))
    if wanted is not None:
        missing = wanted - {r.conversation_id for r in records}
        if missing:
            raise InputError(f"conversation(s) not in file: {sorted(missing)}", file=file)
    return records


def _require(
    obj: Any, key: str, kind: type, *, file: str, cid: str, turn: str | None = None
) -> Any:
    value = obj.get(key) if isinstance(obj, dict) else None
    if not isinstance(value, kind) or isinstance(value, bool):
        raise MalformedInput(
            f"field {key!r} missing or not {kind.__name__}",
            file=file,
            conversation_id=cid,
            turn=turn,
        )
    return value


def parse_locomo_sample(sample: dict[str, Any], *, file: str = "<memory>") -> ConversationRecord:
    """Parse one LoCoMo sample (see module docstring). Raises like `load_locomo`."""
    sample_id = sample.get("sample_id") if isinstance(sample, dict) else None
    if not isinstance(sample_id, str) or not sample_id.strip():
        raise MalformedInput("sample has no string sample_id", file=file)
    cid = sample_id.strip()
    check_conversation_id(cid, file=file)
    conv = _require(sample, "conversation", dict, file=file, cid=cid)
    numbers = sorted(int(m.group(1)) for key in conv if (m := _SESSION_KEY.match(key)))
    if not numbers:
        raise MalformedInput("conversation has no session_N lists", file=file, conversation_id=cid)

    sessions: list[SessionRecord] = []
    turns: list[TurnRecord] = []
    speakers: list[str] = []
    for number in numbers:
        started = session_start(
            conv.get(f"session_{number}_date_time"),
            number,
            missing="date_time",
            file=file,
            conversation_id=cid,
        )
        sessions.append(SessionRecord(conversation_id=cid, session=number, started_at=started))
        items = _require(conv, f"session_{number}", list, file=file, cid=cid)
        for item in items:
            dia_id = _require(item, "dia_id", str, file=file, cid=cid).strip()
            caption = item.get("blip_caption")
            turn = make_turn(
                cid,
                dia_id,
                speaker=_require(item, "speaker", str, file=file, cid=cid, turn=dia_id),
                text=item.get("text", ""),
                caption=caption if isinstance(caption, str) else None,
                session=number,
                index=len(turns),
                observed_at=started,
                file=file,
            )
            if turn.speaker not in speakers:
                speakers.append(turn.speaker)
            turns.append(turn)
    if len({t.id for t in turns}) != len(turns):
        raise MalformedInput("duplicate dia_id in conversation", file=file, conversation_id=cid)
    for key in ("speaker_a", "speaker_b"):
        name = conv.get(key)
        if isinstance(name, str) and name.strip() and name.strip() not in speakers:
            check_unicode([name], file=file, cid=cid)
            speakers.append(name.strip())

    valid = {t.dia_id for t in turns}
    by_session = {s.session: s for s in sessions}
    facts = _annotation_facts(sample.get("observation"), cid, valid, by_session)
    questions = _questions(sample.get("qa"), cid, valid, file=file)
    return ConversationRecord(
        conversation_id=cid,
        speakers=tuple(speakers),
        sessions=tuple(sessions),
        turns=tuple(turns),
        facts=tuple(facts),
        questions=tuple(questions),
    )


def _annotation_facts(
    observation: Any, cid: str, valid: set[str], sessions: dict[int, SessionRecord]
) -> list[FactRecord]:
    """LoCoMo ``observation`` → annotation facts citing their turns (malformed entries skipped)."""
    if not isinstance(observation, dict):
        return []
    facts: list[FactRecord] = []
    for key in sorted(observation, key=_session_number):
        number = _session_number(key)
        per_speaker = observation[key]
        if not isinstance(per_speaker, dict):
            continue
        for speaker, entries in per_speaker.items():
            if not isinstance(entries, list):
                continue
            for n, entry in enumerate(entries):
                if not (isinstance(entry, list) and entry and isinstance(entry[0], str)):
                    continue
                if not all(_encodable(v) for v in (entry[0], str(speaker))):
                    continue  # lone surrogates: skipped like any malformed entry
                refs = _flatten(entry[1:])
                cites, _ = normalize_evidence(refs, valid)
                session = sessions.get(number)
                facts.append(
                    FactRecord(
                        id=f"{cid}:a:{number}:{speaker}:{n}",
                        conversation_id=cid,
                        subject=str(speaker),
                        relation="observation",
                        object="",
                        text=entry[0].strip(),
                        source="annotation",
                        cites=tuple(f"{cid}:{c}" for c in cites),
                        valid_from=session.started_at if session else None,
                        serial=len(facts),
                        session=number if session else None,
                    )
                )
    return facts


def _questions(qa: Any, cid: str, valid: set[str], *, file: str) -> list[QuestionRecord]:
    if qa is None:
        return []
    if not isinstance(qa, list):
        raise MalformedInput("'qa' is not a list", file=file, conversation_id=cid)
    out: list[QuestionRecord] = []
    for n, item in enumerate(qa):
        if not isinstance(item, dict) or not isinstance(item.get("question"), str):
            raise MalformedInput(f"qa[{n}] has no question", file=file, conversation_id=cid)
        check_unicode([item["question"]], file=file, cid=cid, turn=f"qa[{n}]")
        answer = item.get("answer", item.get("adversarial_answer", ""))
        gold, unresolved = normalize_evidence(_flatten(item.get("evidence") or []), valid)
        category = item.get("category")
        out.append(
            QuestionRecord(
                id=f"{cid}:qa{n}",
                conversation_id=cid,
                question=item["question"],
                answer="" if answer is None else str(answer),
                category=int(category)
                if isinstance(category, int | str) and str(category).isdigit()
                else 0,
                evidence=tuple(f"{cid}:{g}" for g in gold),
                unresolved_evidence=tuple(unresolved),
            )
        )
    return out


def _encodable(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _session_number(key: str) -> int:
    match = re.search(r"(\d+)", key)
    return int(match.group(1)) if match else 0


def _flatten(values: Sequence[Any] | Any) -> list[str]:
    if isinstance(values, str):
        return [values]
    out: list[str] = []
    if isinstance(values, list | tuple):
        for value in values:
            out.extend(_flatten(value))
    return out
