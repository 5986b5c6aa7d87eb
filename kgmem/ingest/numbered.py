"""Numbered fact lists ("0. …\\n1. …", higher number = newer) → `Fact` / `Entity` rows.

A generic input format for user-supplied facts (``source = 'manual'``). Each line is parsed into
``(serial, subject, relation, object)`` by cloze templates. The built-in templates are the
relation prompts of MQuAKE (Zhong et al., EMNLP 2023, princeton-nlp/MQuAKE
``requested_rewrite.prompt``), from which MemoryAgentBench FactConsolidation (Hu, Wang, McAuley,
ICLR 2026) builds its fact lists; they are kept with the dataset's own spellings ("univeristy",
"origianl"). Lines that no built-in template matches fall back to a generic frame learned
from the phrasing (``<S> is the <rel> of <O>``, relation = the slugged ``<rel>``, confidence
0.8); anything still unparsed is listed in `ParsedFacts.unparsed`.

Supersession: the key of a fact is ``<subject entity id>|<relation>``; within a conversation the
fact with the higher serial supersedes the one before it (``SUPERSEDES`` edge, newer → older).
There is no clock, so the old fact keeps ``valid_to = null`` and gets ``valid_to_serial`` = the
serial of the fact that superseded it. Nothing is deleted.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgmem.errors import MalformedInput
from kgmem.store.driver import Store

__all__ = [
    "RELATIONS",
    "NumberedFact",
    "ParsedFacts",
    "Relation",
    "entity_id",
    "entity_key",
    "fact_rows",
    "ingest_numbered",
    "load_numbered_file",
    "parse_numbered_facts",
]


@dataclass(frozen=True)
class Relation:
    """A relation with its cloze template(s) and the kinds of its two ends.

    Attributes:
        id: stable relation name stored in ``Fact.relation`` (e.g. ``citizenship``).
        templates: cloze templates with ``{s}`` and ``{o}`` slots, as written in the facts.
        subject_kind / object_kind: fine entity kinds (``person``, ``country``, ``city``,
            ``continent``, ``language``, ``sport``, ``religion``, ``organization``, ``work``,
            ``position``, ``genre``, ``occupation``, ``place``, ``other``).
    """

    id: str
    templates: tuple[str, ...]
    subject_kind: str
    object_kind: str


def _r(rid: str, sk: str, ok: str, *templates: str) -> Relation:
    return Relation(rid, templates, sk, ok)


#: MQuAKE relation templates (Wikidata property in the comment), dataset spellings kept.
RELATIONS: tuple[Relation, ...] = (
    _r("author", "work", "person", "The author of {s} is {o}"),  # P50
    _r("capital", "country", "city", "The capital of {s} is {o}"),  # P36
    _r("chairperson", "organization", "person", "The chairperson of {s} is {o}"),  # P488
    _r("ceo", "organization", "person", "The chief executive officer of {s} is {o}"),  # P169
    _r("manufacturer", "work", "organization", "The company that produced {s} is {o}"),  # P176
    _r("director", "organization", "person", "The director of {s} is {o}"),  # P1037
    _r("head_coach", "organization", "person", "The head coach of {s} is {o}"),  # P286
    _r(
        "headquarters",
        "organization",
        "city",
        "The headquarters of {s} is located in the city of {o}",
    ),  # P159
    _r(
        "head_of_state", "country", "person", "The name of the current head of state in {s} is {o}"
    ),  # P35
    _r(
        "head_of_government",
        "country",
        "person",
        "The name of the current head of the {s} government is {o}",
    ),  # P6
    _r("official_language", "country", "language", "The official language of {s} is {o}"),  # P37
    _r(
        "original_broadcaster",
        "work",
        "organization",
        "The origianl broadcaster of {s} is {o}",
        "The original broadcaster of {s} is {o}",
    ),  # P449
    _r(
        "original_language",
        "work",
        "language",
        "The original language of {s} is {o}",
        "The origianl language of {s} is {o}",
    ),  # P364
    _r("genre", "person", "genre", "The type of music that {s} plays is {o}"),  # P136
    _r(
        "educated_at",
        "person",
        "organization",
        "The univeristy where {s} was educated is {o}",
        "The university where {s} was educated is {o}",
    ),  # P69
    _r("place_of_death", "person", "city", "{s} died in the city of {o}"),  # P20
    _r("citizenship", "person", "country", "{s} is a citizen of {o}"),  # P27
    _r("religion", "person", "religion", "{s} is affiliated with the religion of {o}"),  # P140
    _r("sport", "other", "sport", "{s} is associated with the sport of {o}"),  # P641
    _r("employer", "person", "organization", "{s} is employed by {o}"),  # P108
    _r("notable_work", "person", "work", "{s} is famous for {o}"),  # P800
    _r("continent", "place", "continent", "{s} is located in the continent of {o}"),  # P30
    _r("country", "place", "country", "{s} is located in the country of {o}"),  # P17
    _r("located_in", "place", "place", "{s} is located in {o}"),  # P131 / P276
    _r("spouse", "person", "person", "{s} is married to {o}"),  # P26
    _r("position", "person", "position", "{s} plays the position of {o}"),  # P413
    _r("languages_spoken", "person", "language", "{s} speaks the language of {o}"),  # P1412
    _r("place_of_birth", "person", "city", "{s} was born in the city of {o}"),  # P19
    _r("creator", "work", "person", "{s} was created by {o}"),  # P170
    _r("country_of_origin", "other", "country", "{s} was created in the country of {o}"),  # P495
    _r("developer", "work", "organization", "{s} was developed by {o}"),  # P178
    _r("founded_by", "organization", "person", "{s} was founded by {o}"),  # P112
    _r(
        "location_of_formation", "organization", "city", "{s} was founded in the city of {o}"
    ),  # P740
    _r("performer", "work", "person", "{s} was performed by {o}"),  # P175
    _r("language_of_work", "work", "language", "{s} was written in the language of {o}"),  # P407
    _r("work_location", "person", "city", "{s} worked in the city of {o}"),  # P937
    _r("occupation", "person", "occupation", "{s} works in the field of {o}"),  # P106
    _r("child", "person", "person", "{s}'s child is {o}"),  # P40
    _r("owned_by", "other", "organization", "{s} is owned by {o}"),  # P127
    _r("record_label", "person", "organization", "{s} is represented by {o}"),  # P264
    _r("officeholder", "office", "person", "The {s} is {o}"),  # P1308 (least specific: last)
)
RELATION_BY_ID: dict[str, Relation] = {r.id: r for r in RELATIONS}

#: fine kind -> the coarse `kgmem.models.EntityType` stored in ``Entity.type``
COARSE_TYPE = {
    "person": "person",
    "country": "place",
    "city": "place",
    "continent": "place",
    "place": "place",
    "organization": "organization",
    "work": "work",
}

_LINE = re.compile(r"^\s*(\d+)\s*[.)]\s+(.*\S)\s*$")
_GENERIC = (  # frames learned from the phrasing, tried after every built-in template
    re.compile(r"^(?P<s>.+?) is the (?P<rel>[a-z][a-z ]{1,40}?) of (?P<o>.+)$"),
)


def _compile(template: str) -> re.Pattern[str]:
    literal = re.escape(template).replace(r"\{s\}", "(?P<s>.+?)").replace(r"\{o\}", "(?P<o>.+)")
    return re.compile(f"^{literal}$")


# Most specific first: longer literal text wins ("is located in the continent of" before
# "is located in"); the order is fixed, so parsing is deterministic.
_TEMPLATES: list[tuple[Relation, re.Pattern[str]]] = [
    (rel, _compile(t))
    for rel, t in sorted(
        ((rel, t) for rel in RELATIONS for t in rel.templates),
        key=lambda item: -len(item[1].replace("{s}", "").replace("{o}", "")),
    )
]


@dataclass(frozen=True)
class NumberedFact:
    """One parsed line. ``text`` is the line without its number; ``confidence`` in [0, 1]."""

    serial: int
    subject: str
    relation: str
    object: str
    text: str
    confidence: float = 1.0


@dataclass
class ParsedFacts:
    """What `parse_numbered_facts` returns: facts in serial order and the lines it could not
    parse as ``(line number (1-based), line text)``."""

    source: str
    facts: list[NumberedFact] = field(default_factory=list)
    unparsed: list[tuple[int, str]] = field(default_factory=list)

    def raise_if_unparsed(self) -> None:
        """Raise `MalformedInput` naming the first unparsed line (and how many there are)."""
        if self.unparsed:
            lineno, text = self.unparsed[0]
            raise MalformedInput(
                f"{len(self.unparsed)} line(s) match no fact template; first: {text!r}",
                file=self.source,
                turn=f"line {lineno}",
            )


def _strip_final_period(text: str) -> str:
    return text[:-1].rstrip() if text.endswith(".") else text


def _parse_sentence(sentence: str) -> tuple[str, str, str, float] | None:
    body = _strip_final_period(sentence.strip())
    for rel, pattern in _TEMPLATES:
        m = pattern.match(body)
        if m and m["s"].strip() and m["o"].strip():
            return m["s"].strip(), rel.id, m["o"].strip(), 1.0
    for pattern in _GENERIC:
        m = pattern.match(body)
        if m:
            return m["s"].strip(), re.sub(r"\W+", "_", m["rel"].strip()), m["o"].strip(), 0.8
    return None


def parse_numbered_facts(text: str, *, source: str = "<text>") -> ParsedFacts:
    """Parse a numbered fact list.

    Lines that are empty, or carry no leading number (a header such as "Here is a list of
    facts:"), are skipped. A numbered line that matches no template is listed in ``unparsed``.

    Args:
        text: the list, one fact per line, ``"<serial>. <sentence>"``.
        source: a name for messages (file name or tenant).

    Returns:
        `ParsedFacts` with facts sorted by serial (higher = newer).

    Raises:
        MalformedInput: the same serial appears twice (the order would be ambiguous).
    """
    parsed = ParsedFacts(source=source)
    seen: set[int] = set()
    for lineno, line in enumerate(text.splitlines(), start=1):
        m = _LINE.match(line)
        if m is None:
            continue
        serial, sentence = int(m.group(1)), m.group(2)
        if serial in seen:
            raise MalformedInput(
                f"serial {serial} appears twice", file=source, turn=f"line {lineno}"
            )
        seen.add(serial)
        triple = _parse_sentence(sentence)
        if triple is None:
            parsed.unparsed.append((lineno, line.strip()))
            continue
        subj, rel, obj, conf = triple
        parsed.facts.append(NumberedFact(serial, subj, rel, obj, sentence.strip(), conf))
    parsed.facts.sort(key=lambda f: f.serial)
    return parsed


def json_rows(raw: str, path: Path) -> list[Any]:
    """The rows of a MemoryAgentBench-style JSON document: a list, or an object's ``data``.

    Raises:
        MalformedInput: invalid JSON, or neither shape.
    """
    try:
        doc: Any = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise MalformedInput(
            f"invalid JSON: {exc.msg} at line {exc.lineno}", file=str(path)
        ) from exc
    rows = doc.get("data") if isinstance(doc, dict) else doc
    if not isinstance(rows, list):
        raise MalformedInput("expected a list of rows or an object with 'data'", file=str(path))
    return rows


def load_numbered_file(path: Path) -> list[tuple[str, str]]:
    """Read a numbered fact file: MemoryAgentBench JSON (``data`` rows with ``context``) or text.

    Args:
        path: a ``.json`` file (a list of rows, or an object with ``data``; each row has
            ``context`` and optionally ``metadata.source``) or a plain text file.

    Returns:
        ``(conversation id, context text)`` pairs; the id is the row's ``metadata.source``, else
        ``<file stem>-<row index>``; for a text file, the file stem.

    Raises:
        MalformedInput: unreadable JSON, or a row without a string ``context``.
    """
    raw = path.read_text(encoding="utf-8-sig")
    if not raw.lstrip().startswith(("{", "[")):
        return [(path.stem, raw)]
    rows = json_rows(raw, path)
    out: list[tuple[str, str]] = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or not isinstance(row.get("context"), str):
            raise MalformedInput("row has no string 'context'", file=str(path), turn=f"row {i}")
        meta = row.get("metadata")
        name = meta.get("source") if isinstance(meta, dict) else None
        out.append((name if isinstance(name, str) else f"{path.stem}-{i}", row["context"]))
    return out


def entity_key(name: str) -> str:
    """Normalised lookup key of an entity name: NFKC, casefold, punctuation → space (apostrophes
    inside words kept), whitespace collapsed, a leading "the " dropped. ``"The Beatles"`` and
    ``"the beatles"`` share a key; so do ``"Washington, D.C."`` and ``"Washington D.C"``."""
    text = unicodedata.normalize("NFKC", name).casefold().replace("\u2019", "'")
    text = re.sub(r"(?<!\w)'|'(?!\w)", " ", text)
    text = re.sub(r"[^\w' ]+", " ", text)
    text = " ".join(text.split())
    return text[4:] if text.startswith("the ") and len(text) > 4 else text


def entity_id(conversation_id: str, name: str) -> str:
    """``<conversation_id>:entity:<entity_key(name)>`` — the `Entity.id` of a name."""
    return f"{conversation_id}:entity:{entity_key(name)}"


def fact_rows(
    conversation_id: str, parsed: ParsedFacts
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Entity and fact rows for the writers (pure; no store).

    An entity's kind is the majority of the kinds its relations give it (ties: first seen).

    Returns:
        ``(entities, facts)``: entity rows ``{id, conversation_id, name, type, kind, aliases,
        aliases_text}``;
        fact rows ``{id, conversation_id, subject, relation, object, text, serial, key,
        confidence, source}`` with ``subject``/``object`` entity ids.
    """
    names: dict[str, str] = {}
    kinds: dict[str, Counter[str]] = {}
    aliases: dict[str, set[str]] = {}
    facts: list[dict[str, Any]] = []
    for f in parsed.facts:
        rel = RELATION_BY_ID.get(f.relation)
        ends = (
            (f.subject, rel.subject_kind if rel else "other"),
            (f.object, rel.object_kind if rel else "other"),
        )
        for name, kind in ends:
            eid = entity_id(conversation_id, name)
            names.setdefault(eid, name)
            aliases.setdefault(eid, set()).add(name)
            kinds.setdefault(eid, Counter())[kind] += 1
        sid, oid = entity_id(conversation_id, f.subject), entity_id(conversation_id, f.object)
        facts.append(
            {
                "id": f"{conversation_id}:fact:{f.serial}",
                "conversation_id": conversation_id,
                "subject": sid,
                "relation": f.relation,
                "object": oid,
                "text": f.text,
                "serial": f.serial,
                "key": f"{sid}|{f.relation}",
                "confidence": f.confidence,
                "source": "manual",
            }
        )
    entities = []
    for eid, name in names.items():
        kind = kinds[eid].most_common(1)[0][0]
        entities.append(
            {
                "id": eid,
                "conversation_id": conversation_id,
                "name": name,
                "kind": kind,
                "type": COARSE_TYPE.get(kind, "other"),
                "aliases": sorted(aliases[eid] - {name}),
                "aliases_text": " ".join(sorted(aliases[eid] - {name})),
            }
        )
    return entities, facts


def ingest_numbered(
    store: Store, conversation_id: str, parsed: ParsedFacts, *, batch_size: int = 500
) -> dict[str, int]:
    """Write parsed facts into tenant ``conversation_id`` (idempotent MERGE writes).

    Writes `Entity` nodes, `Fact` nodes with ``ABOUT {role}`` edges, then links each key's
    versions by serial with ``SUPERSEDES`` (newer → older) over the whole tenant.

    Returns:
        counts in the store after writing: ``entities``, ``facts``, ``about``, ``supersedes``,
        ``current`` (facts not superseded), plus ``unparsed`` (lines of ``parsed`` skipped).
    """
    entities, facts = fact_rows(conversation_id, parsed)
    store.write_batches("write/numbered_merge_entities", entities, batch_size=batch_size)
    store.write_batches("write/numbered_merge_facts", facts, batch_size=batch_size)
    store.write("write/numbered_link_supersedes", conversation_id=conversation_id)
    counts = store.read("read/mab_count_tenant", conversation_id=conversation_id)[0]
    out = {k: int(v) for k, v in counts.items()}
    out["unparsed"] = len(parsed.unparsed)
    return out
