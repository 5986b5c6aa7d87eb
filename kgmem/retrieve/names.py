"""Names in a question: canonical entities (`EntityIndex`, whole-word, longest first) and the
conversation's speakers it names (`named_speakers`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from kgmem.models import EntityRecord

__all__ = ["EntityIndex", "EntityLookup", "ResolvedEntity", "named_speakers", "strip_names"]


class EntityLookup(Protocol):
    """Anything that finds canonical entities named in a text (exact name or alias match)."""

    def match(self, text: str) -> list[tuple[str, str, str]]:
        """Return ``(surface, entity_id, type)`` for each entity named in ``text``."""
        ...


class EntityIndex:
    """An in-memory `EntityLookup`: case-insensitive whole-word match on names and aliases.

    Longest names win and matches do not overlap ("New York City" beats "York").

    Args:
        entries: ``(name_or_alias, entity_id, type)`` triples.
    """

    def __init__(self, entries: Iterable[tuple[str, str, str]]) -> None:
        self._by_name: dict[str, tuple[str, str]] = {}
        for name, entity_id, entity_type in entries:
            key = " ".join(name.split()).casefold()
            if key:
                self._by_name.setdefault(key, (entity_id, entity_type))
        names = sorted(self._by_name, key=len, reverse=True)
        alternation = "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in names)
        self._pattern = (
            re.compile(rf"(?<!\w)(?:{alternation})(?!\w)", re.IGNORECASE) if names else None
        )

    @classmethod
    def from_records(cls, records: Iterable[EntityRecord]) -> EntityIndex:
        """Index `EntityRecord` names and aliases."""
        return cls((name, r.id, r.type) for r in records for name in (r.name, *r.aliases))

    def match(self, text: str) -> list[tuple[str, str, str]]:
        """``(surface as written, entity_id, type)`` per match, in text order."""
        if self._pattern is None:
            return []
        found = []
        for m in self._pattern.finditer(text):
            entity_id, entity_type = self._by_name[" ".join(m.group(0).split()).casefold()]
            found.append((m.group(0), entity_id, entity_type))
        return found


class ResolvedEntity(BaseModel):
    """A canonical entity the question names: the surface as written, its id and type."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    surface: str
    id: str
    type: str


def named_speakers(question: str, speakers: Iterable[str]) -> tuple[str, ...]:
    """The ``speakers`` that ``question`` names, in ``speakers`` order, as given: every word of
    the speaker's name occurs in the question as a whole word, case-insensitively (a possessive
    "Ana's" names Ana; "Anastasia" does not)."""
    words = {w.casefold() for w in re.findall(r"[^\W_]+", question)}
    out = []
    for speaker in speakers:
        parts = [p.casefold() for p in re.findall(r"[^\W_]+", speaker)]
        if parts and all(p in words for p in parts) and speaker not in out:
            out.append(speaker)
    return tuple(out)


def strip_names(question: str, names: Sequence[str]) -> str:
    """``question`` without the words of ``names`` (and a possessive "'s" after them); the
    question itself when nothing else would be left."""
    out = question
    for name in names:
        for word in re.findall(r"[^\W_]+", name):
            out = re.sub(rf"\b{re.escape(word)}(?:['\u2019]s)?\b", " ", out, flags=re.IGNORECASE)
    out = " ".join(out.split())
    return out if re.search(r"[^\W_]", out) else question
