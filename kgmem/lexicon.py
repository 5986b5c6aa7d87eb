"""The relation lexicon: `kgmem/data/relations.json` read into typed, compiled tables.

The write path (`kgmem.ingest.extraction.relations`) matches statement forms ("{s} is married to
{o}") to turn sentences and writes one fact per match; the read path (`kgmem.retrieve.chain`)
matches cue phrasings ("spouse", "wife", "married to") in questions and follows the same relations
through the graph. Both read the one file, so what can be stored and what can be asked stay in step.
The file's ``about`` field documents its format and sources.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from kgmem.errors import MalformedInput

__all__ = ["COARSE_TYPE", "AnswerType", "Cue", "Lexicon", "Relation", "lexicon"]

#: fine kind (lexicon) -> coarse `kgmem.models.EntityType` (stored in ``Entity.type``)
COARSE_TYPE: dict[str, str] = {
    "person": "person",
    "country": "place",
    "city": "place",
    "continent": "place",
    "place": "place",
    "organization": "organization",
    "work": "work",
}


@dataclass(frozen=True)
class Relation:
    """One relation: id (stored in ``Fact.relation``), Wikidata property, the fine kinds of its
    two ends, whether it has one current value per subject, and its statement forms."""

    id: str
    wikidata: str
    subject_kind: str
    object_kind: str
    single_valued: bool
    statements: tuple[str, ...]


@dataclass(frozen=True)
class Cue:
    """A phrasing that asks for one or more relations: compiled pattern, ``{relation: synonym
    cost}`` (0 = the relation itself), and ``weak`` (often present without asking for it)."""

    pattern: re.Pattern[str]
    relations: dict[str, float]
    weak: bool


@dataclass(frozen=True)
class AnswerType:
    """A type word of a wh-phrase ("which city") and the answer kinds it allows."""

    pattern: re.Pattern[str]
    kinds: frozenset[str]


@dataclass(frozen=True)
class Lexicon:
    """The whole lexicon; `relation` looks a relation up by id."""

    relations: tuple[Relation, ...]
    cues: tuple[Cue, ...]
    answer_types: tuple[AnswerType, ...]

    def relation(self, relation_id: str) -> Relation | None:
        return next((r for r in self.relations if r.id == relation_id), None)

    @property
    def relation_ids(self) -> list[str]:
        return [r.id for r in self.relations]


def _cue(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w/])(?:{pattern})(?![\w/])", re.IGNORECASE)


def parse_lexicon(doc: Any, *, source: str = "<lexicon>") -> Lexicon:
    """Build a `Lexicon` from the JSON document (see the file's ``about``).

    Raises:
        MalformedInput: a missing field, a statement without both ``{s}`` and ``{o}``, a cue
            naming an unknown relation, or an invalid regular expression.
    """
    try:
        relations = tuple(
            Relation(
                id=str(r["id"]),
                wikidata=str(r.get("wikidata", "")),
                subject_kind=str(r["subject"]),
                object_kind=str(r["object"]),
                single_valued=bool(r["single_valued"]),
                statements=tuple(str(s) for s in r["statements"]),
            )
            for r in doc["relations"]
        )
        known = {r.id for r in relations}
        for r in relations:
            bad = [s for s in r.statements if "{s}" not in s or "{o}" not in s]
            if bad:
                raise MalformedInput(f"relation {r.id}: statement {bad[0]!r} lacks {{s}} or {{o}}")
        cues = tuple(
            Cue(
                _cue(str(c["pattern"])),
                {str(k): float(v) for k, v in c["relations"].items()},
                bool(c.get("weak", False)),
            )
            for c in doc["cues"]
        )
        for c in cues:
            unknown = set(c.relations) - known
            if unknown:
                raise MalformedInput(f"cue {c.pattern.pattern!r} names unknown {sorted(unknown)}")
        types = tuple(
            AnswerType(
                re.compile(rf"\b(?:{t['pattern']})\b", re.IGNORECASE),
                frozenset(str(k) for k in t["kinds"]),
            )
            for t in doc["answer_types"]
        )
    except (KeyError, TypeError, AttributeError, re.error) as exc:
        raise MalformedInput(f"malformed relation lexicon: {exc!r}", file=source) from exc
    return Lexicon(relations, cues, types)


@cache
def lexicon() -> Lexicon:
    """The shipped lexicon (``kgmem/data/relations.json``), read once per process."""
    path = resources.files("kgmem") / "data" / "relations.json"
    return parse_lexicon(json.loads(path.read_text(encoding="utf-8")), source=str(path))
