"""Question understanding: a `QueryPlan` read off the question's surface by rules
(docs/design.md §3.1).

No model is involved and nothing here touches the store, so planning costs microseconds and is
fully explainable (``kgmem search --explain`` prints the plan, including which rule fired:
``QueryPlan.cues``). The plan says

- which **operators** apply (several can): ``semantic`` (always), ``entity`` (a canonical entity
  was resolved), ``temporal`` (the question names or asks a time), ``current_value`` ("still",
  "now", "currently", "most recent", "latest", "last time"), ``multi_hop`` (two entities, "both",
  "in common", relative clauses, comparatives, possessive chains, "after <event>"),
  ``chain`` (a relation chain over the relation lexicon, "the country of citizenship of the
  spouse of X": `kgmem.retrieve.chain.chain_question`; the engine walks it over current values),
  ``aggregate`` ("how many", "how often", "what <plural noun> has X …") and ``inference``
  ("would", "might", "likely": LoCoMo's open-domain category);
- what is **resolved**: canonical entities (through an `EntityLookup`, e.g. the graph's entities),
  a time range, the named year / month / season / weekday (for the scorer's month/year term), a
  temporal relation with its anchor phrase, an ordering ("first" vs "most recent");
- what is **asked** (the answer slot: time, place, person, count, …);
- **budgets**: how many candidates each seed generator / expansion may contribute, scaled by
  operator (`Planner`).

The cue lists were written from the LoCoMo question taxonomy (Maharana et al., ACL 2024:
single-hop, multi-hop, temporal, open-domain) and are generic English; nothing is specific to a
conversation. Relative phrases ("last year", "two weeks ago") are resolved only against an
explicit ``reference`` datetime (the conversation's latest session date), never the wall clock.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Literal, Protocol, get_args

from pydantic import BaseModel, ConfigDict, Field

from kgmem.models import EntityRecord, Granularity, TimeInterval
from kgmem.retrieve.chain import chain_question
from kgmem.time import (
    MONTH_ABBREVIATIONS,
    MONTHS,
    NUMBERS,
    SEASONS,
    WEEKDAYS,
    calendar_interval,
    interpret_phrase,
)

if TYPE_CHECKING:
    from kgmem.config import Settings

__all__ = [
    "GENERATORS",
    "OPERATORS",
    "EntityIndex",
    "EntityLookup",
    "Operator",
    "Planner",
    "QueryPlan",
    "ResolvedEntity",
    "Slot",
    "named_speakers",
    "plan",
]

Operator = Literal[
    "semantic",
    "entity",
    "temporal",
    "current_value",
    "multi_hop",
    "chain",
    "aggregate",
    "inference",
]
OPERATORS: tuple[Operator, ...] = get_args(Operator)
Slot = Literal[
    "time", "duration", "place", "person", "count", "reason", "manner", "thing", "yes_no", "other"
]
Relation = Literal["after", "before", "during", "between"]
Order = Literal["earliest", "latest"]
State = Literal["current", "past"]

GENERATORS: tuple[str, ...] = (
    "dense_turns",
    "dense_facts",
    "fulltext",
    "speaker",
    "entity",
    "window",
    "events",
    "hop",
)
"""Seed generators and expansions a plan budgets (each value = max candidates it may add):
dense_turns / dense_facts (vector search over turns / facts), fulltext (BM25 over turns),
speaker (vector search over the turns spoken by a speaker the question names; 0 when it names
none), entity (turns linked to resolved entities), window (turns said in, or dated
into, the time range the question names), events (turns via event membership), hop (hop-2
structured query from hop-1 nodes; 0 = no second hop)."""


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


class QueryPlan(BaseModel):
    """What the read path should do for one question. Frozen, JSON-serialisable.

    Attributes:
        question: the question as given.
        operators: the operators that apply, in `OPERATORS` order; always holds ``semantic``.
        entities: resolved canonical entities, first mention first, one per id.
        time_range: ``[start, end)`` UTC span of the explicit or (with a reference) relative dates
            the question names; None if it names none or only a bare month / season / weekday.
        named_year / named_month: year and month (1-12) the question names or resolves to.
        season: ``spring`` | ``summer`` | ``autumn`` | ``winter`` if named.
        weekday: 0 = Monday … 6 = Sunday (``datetime.weekday()``) if named.
        relation: ``after`` / ``before`` / ``during`` / ``between`` if the question relates its
            answer to another time or event; ``anchor`` is the phrase that follows it.
        order: ``earliest`` ("first") or ``latest`` ("most recent", "last time").
        state: ``current`` when the question asks what holds now ("now", "still", "these
            days", or present tense: "where does X live"), ``past`` when it asks what held
            then ("did", "was", "used to", "before", "previously"); None otherwise. Read by
            `kgmem.retrieve.resolve` to pick the current or the past value.
        asked: the answer slot.
        chain: for the ``chain`` operator, the compiled relation chain in hop order (the first
            relation applies to ``chain_base``); empty otherwise.
        chain_base: the surface the chain starts from (resolved against the graph by the walk).
        speakers: the conversation's speakers the question names, as stored (whole words,
            case-insensitive; "Ana's" names Ana): the ``speaker`` generator searches their
            turns and the scorer's ``speaker`` term favours them.
        cues: every rule that fired, ``"<operator or field>:<cue>"``, for ``--explain``.
        budgets: generator name (see `GENERATORS`) -> max candidates it may add.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    question: str
    operators: tuple[Operator, ...] = ("semantic",)
    entities: tuple[ResolvedEntity, ...] = ()
    time_range: TimeInterval | None = None
    named_year: int | None = None
    named_month: int | None = Field(default=None, ge=1, le=12)
    season: str | None = None
    weekday: int | None = Field(default=None, ge=0, le=6)
    relation: Relation | None = None
    anchor: str | None = None
    order: Order | None = None
    state: State | None = None
    asked: Slot = "other"
    chain: tuple[str, ...] = ()
    chain_base: str | None = None
    speakers: tuple[str, ...] = ()
    cues: tuple[str, ...] = ()
    budgets: dict[str, int] = Field(default_factory=dict)

    def has(self, operator: Operator) -> bool:
        """Whether ``operator`` applies."""
        return operator in self.operators


# --------------------------------------------------------------------------------------------
# surface cues (generic English; LoCoMo question taxonomy)
# --------------------------------------------------------------------------------------------

_MONTHS = MONTHS | {"sept": MONTH_ABBREVIATIONS["sept"]}  # full names ("Jan" is often a name)
_AMBIGUOUS_MONTHS = {"may", "march"}  # also verbs: need a date context or a mid-sentence capital
_WEEKDAYS = WEEKDAYS
_SEASONS = SEASONS

_NUMBER_ALT = "|".join(
    sorted((w for w, n in NUMBERS.items() if 0 < n <= 30), key=len, reverse=True)
)
_SEASON_ALT = "|".join(SEASONS)
_MONTH_ALT = "|".join(sorted(_MONTHS, key=len, reverse=True))
_PREP = r"in|during|since|until|by|before|after|of|on|early|late|mid|around|last|this|next"
_DATE = re.compile(
    rf"(?:\b(?P<prep>{_PREP})\s+(?:the\s+)?)?"
    rf"(?:(?P<dbefore>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?)?"
    rf"\b(?P<month>{_MONTH_ALT})\b\.?"
    rf"(?:\s+(?P<dafter>\d{{1,2}})(?:st|nd|rd|th)?\b)?"
    rf"(?:,?\s+(?P<year>(?:19|20)\d\d)\b)?",
    re.IGNORECASE,
)
_YEAR = re.compile(r"(?<![\d/:-])\b(?:19|20)\d\d\b(?![\d/:])")
_WEEKDAY = re.compile(rf"\b({'|'.join(_WEEKDAYS)})s?\b", re.IGNORECASE)
_SEASON = re.compile(
    r"\b(?:(?P<prep>in|during|the|this|last|next|over)\s+)?"
    rf"(?P<season>{_SEASON_ALT})\b",
    re.IGNORECASE,
)
_SEASON_YEAR = re.compile(
    rf"(?:{_SEASON_ALT})\s+(?:of\s+)?(?P<year>(?:19|20)\d\d)\b", re.IGNORECASE
)
_RELATIVE = re.compile(  # cues only: `kgmem.time` resolves them
    r"\b(?P<which>last|this|past|previous)\s+(?P<unit>year|month|week|weekend)\b"
    r"|\b(?P<n>\d{1,3}|"
    + _NUMBER_ALT
    + r"|(?:a\s+)?couple\s+of|(?:a\s+)?few)\s+(?P<unit2>year|month|week|day)s?\s+"
    r"(?:ago|before|earlier)\b"
    r"|\bthe\s+(?P<unit3>year|month|week|weekend|day)\s+before\b"
    r"|\b(?P<day>yesterday|today)\b",
    re.IGNORECASE,
)
_RELATION = re.compile(
    r"\b(?P<word>after|before|prior\s+to|since|until|during|while|around|between|when)\b"
    r"(?=\s+(?P<anchor>[^?.!;,]*))",
    re.IGNORECASE,
)
_RELATION_MAP: dict[str, Relation] = {
    **dict.fromkeys(("after", "since"), "after"),
    **dict.fromkeys(("before", "prior to", "until"), "before"),
    **dict.fromkeys(("during", "while", "around", "when"), "during"),
    "between": "between",
}

_C = re.IGNORECASE
_CURRENT = re.compile(
    r"\b(still|now|nowadays|currently|current|anymore|these\s+days|"
    r"at\s+the\s+moment|at\s+present|presently)\b",
    _C,
)
_LATEST = re.compile(
    r"\b(most\s+recent(ly)?|recently|recent|latest|newest|last\s+time|"
    r"the\s+last(?!\s+(year|month|week|weekend|day|night|summer|winter|"
    r"spring|fall|autumn|few|couple)))\b",
    _C,
)
_PAST = re.compile(
    r"\b(did|was|were|had|used\s+to|previously|formerly|before|earlier|back\s+then|"
    r"in\s+the\s+past|originally|at\s+first)\b",
    _C,
)
_PRESENT = re.compile(r"\b(does|do|is|are|am|has|have)\b", _C)
_LAST_WEEKDAY = re.compile(rf"\blast\s+({'|'.join(_WEEKDAYS)})\b", _C)
_FIRST = re.compile(r"\b(first|earliest|initially|originally)\b", _C)
_COUNT = re.compile(
    r"\b(how\s+many|how\s+much|how\s+often|how\s+frequently|number\s+of|"
    r"(?:many|multiple|several|\d+|two|three|four|five)\s+times|every|"
    r"all\s+the|list)\b",
    _C,
)
# "what <plural noun> has X done", "what kinds of X does Y", "what are X's Ys", "where has X
# been": answers gathered over several turns (most LoCoMo multi-hop questions are of this kind).
_LIST = re.compile(
    r"\b(?:what|which)\s+(?:(?:kinds|types|sorts)\s+of\s+(?:[\w+-]+\s+){1,2}"
    r"|(?:[\w+-]+\s+)?[a-z][\w+-]*[^s'\W]s(?:/\w+)?\s+)"
    r"(?:has|have|had|does|do|did|is|are|were)\b|^\W*what\s+are\b"
    r"|^\W*(?:what|where|which|who)\s+(?:(?!(?:do|does|did|is|are|was|were|when|while|if|that"
    r"|he|she|they|it|i|we|you)\s)[\w+.'/-]+\s+){0,4}?(?:has|have)\s",
    _C,
)
_INFERENCE = re.compile(
    r"\b(would|might|likely|unlikely|probably|possibly|could|considered|"
    r"personality|traits?|attributes?|if)\b",
    _C,
)
_BOTH = re.compile(
    r"\b(both|in\s+common|same|similar|differ(?:ent|ence)?|each\s+other|"
    r"compared?\s+(?:to|with))\b",
    _C,
)
_COMPARATIVE = re.compile(
    r"\b(?:more|less|fewer|better|worse|\w{3,}er)\s[^?]{0,80}?\bthan\b"
    r"|\b(?:more|less)\s[^?]{0,80}?\bor\b",
    _C,
)
_RELATIVE_CLAUSE = re.compile(
    r"\b(?:the|a|an|that|this|her|his|their)\s+(?:[\w-]+\s+){1,3}?"
    r"(?:that|who|which|whom|whose)\s+\w+",
    _C,
)
_POSSESSIVE_CHAIN = re.compile(
    r"(?:\w(?:'s|s')|\b(?:her|his|their))\s+(?:[\w-]+\s+){0,2}?"
    r"[\w-]+(?:'s|s')(?!\w)",
    _C,
)
_NAME_PAIR = re.compile(r"\b[A-Z][\w'-]+\s+and\s+[A-Z][\w'-]+")
_AUX_START = re.compile(
    r"^\W*(do|does|did|is|are|was|were|would|will|can|could|has|have|"
    r"had|should|might|may|shall)\b",
    _C,
)
_SLOT_PATTERNS: tuple[tuple[str, Slot], ...] = (
    (r"\bhow\s+(many|much|often|frequently)\b", "count"),
    (r"\bhow\s+long\s+ago\b", "time"),
    (r"\bhow\s+long\b", "duration"),
    (r"\bwhen\b|\b(what|which)\s+(time|date|day|year|month|season|holiday|week|age)\b", "time"),
    (
        (
            r"\bwhere\b|\b(what|which)\s+(city|cities|country|countries|state|states|place"
            r"|places|town|area|areas|location|park|restaurant)\b"
        ),
        "place",
    ),
    (r"\b(who|whom|whose)\b", "person"),
    (r"\bwhy\b", "reason"),
    (r"\bhow\b", "manner"),
    (r"\b(what|which)\b", "thing"),
)
#: answer slots a relation chain can fill (an entity: who, where, what, which)
_CHAIN_SLOTS: frozenset[Slot] = frozenset({"person", "place", "thing", "other"})
_SLOTS = tuple((re.compile(pattern, _C), slot) for pattern, slot in _SLOT_PATTERNS)


def _interval(
    start: datetime, end: datetime, granularity: Granularity, phrase: str
) -> TimeInterval:
    return TimeInterval(start=start, end=end, granularity=granularity, phrase=phrase.strip())


_COARSE: dict[str, int] = {"day": 0, "week": 1, "weekend": 1, "month": 2, "season": 3, "year": 4}


def _relative_interval(m: re.Match[str], ref: datetime) -> TimeInterval | None:
    """Resolve one `_RELATIVE` match against ``ref`` with `kgmem.time` ("the week before
    <date>" is read as "a week ago" said on that date; "N weeks before|earlier" as "N weeks
    ago"; "the past <unit>" as the grammar reads it, "past <unit>" alone as "last <unit>").
    A naive ``ref`` is taken as UTC."""
    if ref.tzinfo is None or ref.utcoffset() is None:
        ref = ref.replace(tzinfo=UTC)
    phrase = m.group(0)
    if m.group("unit3"):
        unit = m.group("unit3").lower()
        words = "last weekend" if unit == "weekend" else f"a {unit} ago"
    elif m.group("which") and m.group("which").lower() == "past":
        unit = m.group("unit").lower()
        the = m.string[: m.start()].lower().endswith("the ")  # "the past week": until now
        words = f"the past {unit}" if the else f"last {unit}"
    elif m.group("unit2"):  # "two weeks before|earlier|ago" = "two weeks ago"
        words = f"{' '.join(m.group('n').split())} {m.group('unit2').lower()}s ago"
    else:
        words = phrase
    found = interpret_phrase(words, ref)
    return found.model_copy(update={"phrase": phrase}) if found else None


def _starts_with_time(text: str) -> bool:
    text = re.sub(r"^\s*(?:the\s+)?", "", text, flags=re.IGNORECASE)
    return any(p.match(text) for p in (_DATE, _YEAR, _WEEKDAY, _SEASON, _RELATIVE))


@dataclass
class _Times:
    """What `_read_times` finds: the span, named parts, and the phrases that fired."""

    time_range: TimeInterval | None = None
    year: int | None = None
    month: int | None = None
    weekday: int | None = None
    season: str | None = None
    phrases: list[str] = field(default_factory=list)


def _read_times(text: str, reference: datetime | None) -> _Times:
    """Explicit dates, years, weekdays, seasons and relative phrases in ``text``.

    Explicit dates need no reference; relative phrases are resolved against the first full date
    the text names ("two weeks before August 11, 2023"), else ``reference``, else not at all.
    """
    out = _Times()
    intervals: list[TimeInterval] = []
    taken: list[tuple[int, int]] = []
    for m in _DATE.finditer(text):
        word = m.group("month")
        day_s, year_s = m.group("dbefore") or m.group("dafter"), m.group("year")
        if word.lower() in _AMBIGUOUS_MONTHS and not (
            m.group("prep") or day_s or year_s or (word[0].isupper() and m.start("month") > 0)
        ):
            continue
        month = _MONTHS[word.lower()]
        out.month = out.month or month
        out.phrases.append(m.group(0))
        if year_s:
            taken.append(m.span())
            year = int(year_s)
            out.year = out.year or year
            try:
                day = date(year, month, int(day_s or 0))
                intervals.append(calendar_interval(day, "day", m.group(0)))
            except ValueError:  # no day, or 31 February
                intervals.append(calendar_interval(date(year, month, 1), "month", m.group(0)))
    for m in _YEAR.finditer(text):
        if not any(a <= m.start() < b for a, b in taken):
            out.year = out.year or int(m.group(0))
            intervals.append(calendar_interval(date(int(m.group(0)), 1, 1), "year", m.group(0)))
            out.phrases.append(m.group(0))
    if wm := _WEEKDAY.search(text):
        out.weekday = _WEEKDAYS[wm.group(1).lower()]
        out.phrases.append(wm.group(0))
    for sm in _SEASON.finditer(text):
        prep = (sm.group("prep") or "").lower()
        if sm.group("season").lower() == "fall" and not prep:
            continue  # the verb
        out.season = _SEASONS[sm.group("season").lower()]
        out.phrases.append(sm.group(0))
        dated = _SEASON_YEAR.match(text, sm.start("season"))
        if dated:  # "the summer of 2019": the season, not the whole year
            season = interpret_phrase(dated.group(0), datetime(2000, 1, 1, tzinfo=UTC))
            if season is not None:
                intervals = [i for i in intervals if i.phrase != dated.group("year")]
                intervals.append(season)
        elif (
            reference is not None
            and prep in ("last", "this", "next")
            and (interval := interpret_phrase(sm.group(0), reference))
        ):
            intervals.append(interval)
        break
    days = [i.start for i in intervals if i.granularity == "day"]
    relative_to = days[0] if days else reference
    if (
        relative_to is not None
        and (lw := _LAST_WEEKDAY.search(text))
        and (day_of := interpret_phrase(lw.group(0), relative_to)) is not None
    ):  # "last Thursday": the latest such weekday strictly before the reference day (kgmem.time)
        intervals.append(day_of)
        out.phrases.append(lw.group(0))
    for rm in _RELATIVE.finditer(text):
        out.phrases.append(rm.group(0))
        if relative_to is not None and (interval := _relative_interval(rm, relative_to)):
            intervals.append(interval)
    if intervals:
        if len(intervals) == 1:
            out.time_range = intervals[0]
        else:
            coarse = max(intervals, key=lambda i: _COARSE[i.granularity]).granularity
            out.time_range = _interval(
                min(i.start for i in intervals),
                max(i.end for i in intervals),
                coarse,
                "; ".join(i.phrase for i in intervals),
            )
        out.year = out.year or out.time_range.start.year
        if out.time_range.granularity in ("day", "week", "weekend", "month"):
            out.month = out.month or out.time_range.start.month
    return out


class Planner:
    """Builds `QueryPlan`s; holds the base generator budgets.

    Budgets start from the constructor values (defaults = `kgmem.config.Settings` pool sizes;
    docs/design.md §3.2-3.3: ≈40 dense turns, ≈20 facts, ≈8 via events; the expansion along the
    timeline was removed: it never moved a LoCoMo dev figure)
    and are scaled per operator by `SCALE` (the largest factor of the applicable operators
    wins, so pools stay small). ``entity`` is 0 when no entity is resolved and ``hop`` is 0
    unless ``multi_hop``. These factors are starting hints, not tuned values.

    Args:
        dense_turns, dense_facts, fulltext, speaker, entity, window, events, hop: base budgets
            (max candidates each generator may add; see `GENERATORS`).
    """

    SCALE: Mapping[str, Mapping[str, float]] = {
        "temporal": {"events": 1.5},
        "current_value": {"dense_facts": 2.0},
        "multi_hop": {"entity": 2.0, "events": 1.5, "window": 1.5},
        "aggregate": {"dense_turns": 1.5, "dense_facts": 2.0, "entity": 2.0, "events": 1.5},
        "inference": {"dense_facts": 2.0},
    }

    def __init__(
        self,
        *,
        dense_turns: int = 40,
        dense_facts: int = 20,
        fulltext: int = 10,
        speaker: int = 20,
        entity: int = 10,
        window: int = 6,
        events: int = 8,
        hop: int = 8,
    ) -> None:
        self.base: dict[str, int] = {
            "dense_turns": dense_turns,
            "dense_facts": dense_facts,
            "fulltext": fulltext,
            "speaker": speaker,
            "entity": entity,
            "window": window,
            "events": events,
            "hop": hop,
        }

    @classmethod
    def from_settings(cls, settings: Settings) -> Planner:
        """Base budgets from the ``pool_*`` / ``expand_*`` settings."""
        return cls(
            dense_turns=settings.pool_turns,
            dense_facts=settings.pool_facts,
            fulltext=settings.pool_fulltext,
            speaker=settings.pool_speaker,
            entity=settings.pool_entity,
            events=settings.expand_events,
        )

    def budgets(
        self, operators: Iterable[str], *, has_entities: bool, has_speakers: bool = False
    ) -> dict[str, int]:
        """Budgets for a set of operators (see class docstring)."""
        ops = set(operators)
        out = {}
        for name, base in self.base.items():
            factor = max([self.SCALE.get(op, {}).get(name, 1.0) for op in ops] or [1.0])
            out[name] = round(base * factor)
        if not has_entities:
            out["entity"] = 0
        if not has_speakers:
            out["speaker"] = 0
        if "multi_hop" not in ops:
            out["hop"] = 0
        return out

    def plan(
        self,
        question: str,
        *,
        entities: EntityLookup | None = None,
        reference: datetime | None = None,
        speakers: Iterable[str] = (),
    ) -> QueryPlan:
        """Plan one question. Never raises on any text (errors of ``entities`` propagate).

        Args:
            question: the question (only its first 2,000 characters are read).
            entities: resolves names and aliases to canonical entities; None = no resolution.
            reference: "now" for relative phrases ("last year"), e.g. the conversation's latest
                session date; naive datetimes are taken as UTC. None = relative phrases are
                noted as temporal cues but not resolved to a range.
            speakers: the conversation's speakers; those the question names become
                ``QueryPlan.speakers``.
        """
        text = question[:2000].replace("\u2019", "'").replace("\u2018", "'")
        if reference is not None and reference.tzinfo is None:
            reference = reference.replace(tzinfo=UTC)
        ops: set[str] = {"semantic"}
        cues: list[str] = []

        def cue(operator: str, what: str) -> None:
            ops.add(operator)
            cues.append(f"{operator}:{' '.join(what.lower().split())}")

        # --- what is asked -----------------------------------------------------------------
        asked: Slot = "other"
        if _AUX_START.match(text):
            asked = "yes_no"
        else:
            first = min(
                (
                    (m.start(), -len(m.group(0)), slot)
                    for p, slot in _SLOTS
                    if (m := p.search(text))
                ),
                default=None,
            )
            asked = first[2] if first else "other"
        if asked in ("time", "duration"):
            cue("temporal", f"asks {asked}")
        elif asked == "count":
            cue("aggregate", "asks count")

        # --- entities ----------------------------------------------------------------------
        resolved: dict[str, ResolvedEntity] = {}
        if entities is not None:
            for surface, entity_id, entity_type in entities.match(text):
                resolved.setdefault(
                    entity_id, ResolvedEntity(surface=surface, id=entity_id, type=entity_type)
                )
        if resolved:
            cue("entity", ", ".join(e.surface for e in resolved.values()))
        if len({e.id for e in resolved.values() if e.type != "date"}) >= 2:
            cue("multi_hop", "two entities")
        named = named_speakers(text, speakers)
        if named:
            cues.append(f"speaker:{', '.join(named)}")

        # --- times -------------------------------------------------------------------------
        times = _read_times(text, reference)
        for phrase in times.phrases:
            cue("temporal", phrase)

        # --- relation to another time or event ---------------------------------------------
        relation: Relation | None = None
        anchor = None
        for rel in _RELATION.finditer(text):
            word = " ".join(rel.group("word").lower().split())
            if word == "when" and not text[: rel.start()].strip(" \t\n\"'(").strip():
                continue  # the leading "When" asks for a time; it relates nothing
            relation, anchor = _RELATION_MAP[word], rel.group("anchor").strip()[:120] or None
            if word in ("when", "while"):
                cue("multi_hop", f"{word}-clause")
            else:
                cue("temporal", word)
                if word not in ("around", "during") and anchor and not _starts_with_time(anchor):
                    cue("multi_hop", f"{word} event")
            break

        # --- current value / ordering ------------------------------------------------------
        order: Order | None = None
        if cm := _CURRENT.search(text):
            cue("current_value", cm.group(0))
        if lm := _LATEST.search(text):
            order = "latest"
            cue("current_value", lm.group(0))
        elif fm := _FIRST.search(text):
            order = "earliest"
            cue("temporal", fm.group(0))

        # --- current or past state: which value `resolve` keeps ------------------------------
        state: State | None = None
        if cm:
            state = "current"
        elif pm_ := _PAST.search(text):
            state = "past"
            cues.append(f"state:past:{pm_.group(0).lower()}")
        elif _PRESENT.search(text) and times.time_range is None:
            state = "current"
            cues.append("state:current:present tense")

        # --- aggregate, multi-hop, inference -----------------------------------------------
        if (am := _COUNT.search(text)) and asked != "count":
            cue("aggregate", am.group(0))
        if lm2 := _LIST.search(text):
            cue("aggregate", "list: " + lm2.group(0))
        for pattern, name in (
            (_BOTH, None),
            (_COMPARATIVE, "comparative"),
            (_RELATIVE_CLAUSE, "relative clause"),
            (_POSSESSIVE_CHAIN, "possessive chain"),
            (_NAME_PAIR, "x and y"),
        ):
            if pm := pattern.search(text):
                cue("multi_hop", name or pm.group(0))
        if im := _INFERENCE.search(text):
            cue("inference", im.group(0))

        # --- relation chain (the wh-phrase asks for an entity, the rest is relations + base) --
        chain = chain_question(text) if asked in _CHAIN_SLOTS else None
        if chain is not None:
            cue("chain", f"{' > '.join(chain.relations)} from {chain.base}")

        operators = tuple(op for op in OPERATORS if op in ops)
        return QueryPlan(
            question=question,
            operators=operators,
            entities=tuple(resolved.values()),
            time_range=times.time_range,
            named_year=times.year,
            named_month=times.month,
            season=times.season,
            weekday=times.weekday,
            relation=relation,
            anchor=anchor,
            order=order,
            state=state,
            asked=asked,
            chain=tuple(chain.relations) if chain is not None else (),
            chain_base=chain.base if chain is not None else None,
            speakers=named,
            cues=tuple(dict.fromkeys(cues)),
            budgets=self.budgets(operators, has_entities=bool(resolved), has_speakers=bool(named)),
        )


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


_DEFAULT_PLANNER = Planner()


def plan(
    question: str,
    *,
    entities: EntityLookup | None = None,
    reference: datetime | None = None,
) -> QueryPlan:
    """Plan ``question`` with the default budgets (see `Planner.plan`)."""
    return _DEFAULT_PLANNER.plan(question, entities=entities, reference=reference)
