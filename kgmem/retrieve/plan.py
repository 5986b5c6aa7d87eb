"""The query plan: what the read path does for one question, built from its `Question`
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

The reading itself (cues, times, names, roles) is `kgmem.retrieve.question`; relative phrases
("last year", "two weeks ago") are resolved only against an explicit ``reference`` datetime (the
conversation's latest session date), never the wall clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from kgmem.errors import ConfigError
from kgmem.models import TimeInterval
from kgmem.retrieve.config import GENERATORS, shipped_pools
from kgmem.retrieve.cues import Operator, Order, Relation, Slot, State
from kgmem.retrieve.names import EntityLookup, ResolvedEntity
from kgmem.retrieve.question import Question, read_question

__all__ = [
    "Planner",
    "QueryPlan",
    "plan",
    "plan_question",
]


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
            `kgmem.retrieve.resolve`.
        asked: the answer slot.
        chain: for the ``chain`` operator, the compiled relation chain in hop order (the first
            relation applies to ``chain_base``); empty otherwise.
        chain_base: the surface the chain starts from (resolved against the graph by the walk).
        speakers: the conversation's speakers the question names, as stored (whole words,
            case-insensitive; "Ana's" names Ana): the ``speaker`` generator searches their
            turns and the scorer's ``speaker`` term favours them. The asking speaker is among
            them when the question speaks of itself ("my", "the user"; `Question`).
        cues: every rule that fired, ``"<operator or field>:<cue>"``, for ``--explain``.
        budgets: generator name (see `GENERATORS`) -> max candidates it may add.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    _reading: Question | None = PrivateAttr(default=None)

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

    def __eq__(self, other: object) -> bool:
        """Plans are equal when their fields are (the reading they were built from is not
        compared: it is what the fields were read from)."""
        if not isinstance(other, QueryPlan):
            return NotImplemented
        return self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return super().__hash__()

    @property
    def reading(self) -> Question:
        """The `Question` this plan was built from (read from ``question`` alone, without
        entities or speakers, for a plan constructed directly)."""
        if self._reading is None:
            self._reading = read_question(self.question)
        return self._reading

    @classmethod
    def from_question(cls, question: Question, budgets: dict[str, int]) -> QueryPlan:
        """The plan of a read question with the given generator budgets."""
        times = question.times
        chain = question.chain
        out = cls(
            question=question.raw,
            operators=question.operators,
            entities=question.entities,
            time_range=times.time_range,
            named_year=times.year,
            named_month=times.month,
            season=times.season,
            weekday=times.weekday,
            relation=question.relation,
            anchor=question.anchor,
            order=question.order,
            state=question.state,
            asked=question.asked,
            chain=tuple(chain.relations) if chain is not None else (),
            chain_base=chain.base if chain is not None else None,
            speakers=question.speakers,
            cues=question.cues,
            budgets=budgets,
        )
        out._reading = question
        return out


class Planner:
    """Builds `QueryPlan`s; holds the base generator budgets.

    Budgets start from the shipped pool sizes (`kgmem.retrieve.config.shipped_pools`, the
    ``pool_*`` / ``expand_*`` settings; docs/design.md §3.2-3.3: ≈40 dense turns, ≈20 facts, ≈8
    via events), overridden by the constructor's keywords, and are scaled per operator by
    `SCALE` (the largest factor of the applicable operators wins, so pools stay small).
    ``entity`` is 0 when no entity is resolved, ``speaker`` when no speaker is named, and
    ``hop`` unless ``multi_hop``. These factors are starting hints, not tuned values.

    Args:
        budgets: base budget per generator name (see `GENERATORS`); the rest are shipped.

    Raises:
        ConfigError: a budget for an unknown generator, or a negative one.
    """

    SCALE: Mapping[str, Mapping[str, float]] = {
        "temporal": {"events": 1.5},
        "current_value": {"dense_facts": 2.0},
        "multi_hop": {"entity": 2.0, "events": 1.5, "window": 1.5},
        "aggregate": {"dense_turns": 1.5, "dense_facts": 2.0, "entity": 2.0, "events": 1.5},
        "inference": {"dense_facts": 2.0},
    }

    def __init__(self, **budgets: int) -> None:
        unknown = sorted(set(budgets) - set(GENERATORS))
        if unknown:
            raise ConfigError(f"budgets for {unknown}; allowed: {', '.join(GENERATORS)}")
        if any(size < 0 for size in budgets.values()):
            raise ConfigError(f"budgets {budgets} must be integers >= 0")
        shipped = shipped_pools()
        self.base: dict[str, int] = {name: budgets.get(name, shipped[name]) for name in GENERATORS}

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
        asker: str | None = None,
    ) -> QueryPlan:
        """Plan one question (`kgmem.retrieve.question.read_question`, then `plan_question`).
        Never raises on any text (errors of ``entities`` propagate); see `read_question` for
        the arguments."""
        return self.plan_question(
            read_question(
                question, entities=entities, reference=reference, speakers=speakers, asker=asker
            )
        )

    def plan_question(self, question: Question) -> QueryPlan:
        """The plan of a read question: its reading with this planner's budgets."""
        budgets = self.budgets(
            question.operators,
            has_entities=bool(question.entities),
            has_speakers=bool(question.speakers),
        )
        return QueryPlan.from_question(question, budgets)


_DEFAULT_PLANNER = Planner()


def plan(
    question: str,
    *,
    entities: EntityLookup | None = None,
    reference: datetime | None = None,
) -> QueryPlan:
    """Plan ``question`` with the shipped budgets (see `Planner.plan`)."""
    return _DEFAULT_PLANNER.plan(question, entities=entities, reference=reference)


def plan_question(question: Question) -> QueryPlan:
    """Plan a read ``question`` with the shipped budgets (see `Planner.plan_question`)."""
    return _DEFAULT_PLANNER.plan_question(question)
