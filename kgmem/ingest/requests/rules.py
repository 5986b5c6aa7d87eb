"""Memory requests inside a conversation, detected at write time from grammar (no LLM).

A user talking to an assistant tells the memory what to do with what they said. Two kinds are
recognised (docs/roles-and-requests.md gives the full rules and the phrasings that are not):

- **forget** — an imperative forget / delete / remove / erase / wipe / purge addressed to the
  memory, with an object that names something the user said: "please delete my passport number
  from your memory", "forget what I said about X", "forget everything about X", "forget that my
  PIN is 4417". The object (the ``about`` phrase, the clause after "that", or the noun phrase)
  is the *topic*; the earlier turns of the user that state it are removed, and so is any turn
  of any speaker that repeats one of their values verbatim (`values`).
- **withhold** — a negated imperative save / store / remember / record / keep addressed to the
  memory ("don't save this: ...", "do not remember this"), or "off the record" opening a
  sentence: the turn that carries it is not stored.

Only a turn whose role is one of `RequestPolicy.roles` (``user`` by default) makes requests, and
only in a conversation that has an ``assistant`` turn: chats between named people (LoCoMo) never
do. Matching is conservative, because a wrong match is data loss: a request needs the grammar
above (no subject but "you", not negated for forget, not a past tense, no "from <something that
is not memory>" such as "remove my name from the list"), and a turn matches the topic only if it
shares an *anchor* lemma with it **and** its embedding is at least `RequestPolicy.similarity`
(cosine) from the topic's. A request that would remove more than `RequestPolicy.max_turns` turns
is reported as too broad and not applied.

Everything here is pure: `parse_request` reads one spaCy ``Doc``; `plan_requests` turns a
conversation's turns into a `RequestPlan` (what to withhold, remove, mask and audit) that the
write path (`kgmem.ingest.pipeline.Ingestor`) applies.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt

from kgmem.ingest.requests.decision import THRESHOLD, decide_requests

# the grammar lives in its own module; its names are re-exported here so that imports from
# this module keep working
from kgmem.ingest.requests.grammar import (
    FORGET_VERBS,  # noqa: F401 (re-exported)
    INFO_NOUNS,  # noqa: F401 (re-exported)
    KEEP_VERBS,  # noqa: F401 (re-exported)
    MEMORY_NOUNS,  # noqa: F401 (re-exported)
    QUANTIFIERS,  # noqa: F401 (re-exported)
    TELL_VERBS,  # noqa: F401 (re-exported)
    WEAK_LEMMAS,
    Kind,
    ParsedRequest,
    _contains,
    _content_lemmas,
    _names,
    detect,
    mask,
    values,
)
from kgmem.models import TurnRecord

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

__all__ = [
    "RequestOutcome",
    "RequestPlan",
    "RequestPolicy",
    "plan_requests",
]

Status = Literal["applied", "too_broad", "no_match", "withheld"]
Embed = Callable[[Sequence[str]], npt.NDArray[np.float32]]


@dataclass(frozen=True)
class RequestPolicy:
    """Who may make memory requests and how far one may reach (`kgmem.config.Settings`).

    Attributes:
        enabled: requests are detected at all (``KGMEM_REQUESTS``, default on).
        roles: the roles whose turns make requests (``KGMEM_REQUEST_ROLES``, default user).
        max_turns: a request that would remove more turns than this is too broad and not
            applied (``KGMEM_REQUEST_MAX_TURNS``, default 5: a secret and the assistant's copy
            of it, or a topic told over a few turns; "forget everything about work" in a long
            chat exceeds it and needs an explicit ``forget_turns``).
        similarity: the least cosine (all-MiniLM-L6-v2) between the topic and a turn that shares
            an anchor lemma with it (``KGMEM_REQUEST_SIMILARITY``; chosen on LoCoMo dev, see
            docs/roles-and-requests.md).
        decision: the least calibrated probability at which the trained request decision acts
            on a turn the grammar finds no request in (`kgmem.ingest.requests.decision`); None:
            the grammar alone (``KGMEM_REQUEST_DECISION``).
    """

    enabled: bool = True
    roles: frozenset[str] = frozenset({"user"})
    max_turns: int = 5
    similarity: float = 0.3
    decision: float | None = THRESHOLD


@dataclass(frozen=True)
class RequestOutcome:
    """What one request did (the audit record holds exactly this: ids and counts, no text).

    Attributes:
        turn_id: the request turn (or, for ``withhold``, the withheld turn; not stored).
        index: its position in the conversation.
        kind: ``forget`` or ``withhold``.
        status: ``applied``, ``withheld``, ``too_broad`` (would remove more than
            ``max_turns``: nothing removed) or ``no_match`` (nothing stored states it).
        removed: ids of the turns removed (empty unless applied).
        matched: how many turns matched (also when too broad).
        decided: the request decision's class and calibrated probability when it, not the
            grammar, found the request (`kgmem.ingest.requests.decision`); None otherwise.
    """

    turn_id: str
    index: int
    kind: Kind
    status: Status
    removed: tuple[str, ...] = ()
    matched: int = 0
    decided: tuple[str, float] | None = None


@dataclass
class RequestPlan:
    """What the write path does with a conversation's requests.

    Attributes:
        outcomes: one per request, in conversation order.
        removed: turn ids not to store (or to forget if stored): matched turns and copies.
        withheld: turn ids not stored because they asked not to be.
        requests: ids of request turns (stored with ``request = true``, no facts).
        masked: request turn id → its text with restated values replaced by `FORGOTTEN`.
    """

    outcomes: list[RequestOutcome] = field(default_factory=list)
    removed: set[str] = field(default_factory=set)
    withheld: set[str] = field(default_factory=set)
    requests: set[str] = field(default_factory=set)
    masked: dict[str, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.outcomes)


def plan_requests(
    turns: Sequence[TurnRecord],
    *,
    policy: RequestPolicy,
    nlp: Language,
    embed: Embed,
    prior: Iterable[str] = (),
    explicit: ParsedRequest | None = None,
    scan: Collection[str] | None = None,
) -> RequestPlan:
    """Find a conversation's memory requests and decide what each removes (pure).

    Args:
        turns: the conversation's turns in utterance order, with roles.
        policy: who may request and the limits.
        nlp: the spaCy pipeline.
        embed: the sentence embedder's ``encode`` (rows unit-norm).
        prior: turn ids removed or withheld by requests stored earlier (re-applied; they are
            not matched again and count as gone).
        explicit: a ``forget_about`` request made outside the conversation: matched against
            every turn of the user (any turn when no turn has a role); the conversation's own
            requests are then not looked for.
        scan: the ids of the turns whose requests are looked for (default all): the turns of
            an owner's other threads are matched by a request but were planned already.

    Returns:
        the plan; empty when nothing is requested.
    """
    plan = RequestPlan()
    gone = set(prior)
    if not policy.enabled or not turns:
        return plan
    requests = _find_requests(turns, policy, nlp, gone, explicit, scan, embed)
    if not requests:
        return plan
    run = _Planning(turns, policy, nlp, embed, plan, gone, requests)
    for request, parsed in requests:
        if parsed.kind == "withhold":
            plan.withheld.add(request.id)
            gone.add(request.id)
            plan.outcomes.append(
                RequestOutcome(
                    request.id, request.index, "withhold", "withheld", decided=parsed.decided
                )
            )
            continue
        if not parsed.keeps_turn:
            plan.requests.add(request.id)
        run.forget(request, parsed)
    plan.masked.pop(_ExplicitTurn.ID, None)
    plan.requests.discard(_ExplicitTurn.ID)
    return plan


def _find_requests(
    turns: Sequence[TurnRecord],
    policy: RequestPolicy,
    nlp: Language,
    gone: set[str],
    explicit: ParsedRequest | None,
    scan: Collection[str] | None = None,
    embed: Embed | None = None,
) -> list[tuple[TurnRecord, ParsedRequest]]:
    """The requests to apply, in order: the explicit one alone when given, else those of the
    turns of a requesting role, looked for only in a chat that has an assistant: the grammar's,
    then the request decision's in the turns the grammar found none in (`policy.decision`)."""
    requests: list[tuple[TurnRecord, ParsedRequest]] = []
    if explicit is not None:
        requests.append((_ExplicitTurn.make(turns), explicit))
    elif "assistant" in {t.role for t in turns}:
        misses: list[tuple[str, str, str | None]] = []
        for n, turn in enumerate(turns):
            if (
                turn.role in policy.roles
                and turn.id not in gone
                and (scan is None or turn.id in scan)
            ):
                parsed = detect(turn.text, nlp)
                if parsed is not None:
                    requests.append((turn, parsed))
                else:
                    misses.append((turn.id, turn.text, turns[n - 1].text if n else None))
        if misses and policy.decision is not None and embed is not None:
            decided = decide_requests(misses, nlp=nlp, embed=embed, threshold=policy.decision)
            requests += [(t, decided[t.id]) for t in turns if t.id in decided]
            requests.sort(key=lambda pair: pair[0].index)
    return requests


@dataclass
class _Planning:
    """The state of one `plan_requests` call: the plan so far, the turns gone (removed,
    withheld, or removed by an earlier stored request), and each turn parsed at most once."""

    turns: Sequence[TurnRecord]
    policy: RequestPolicy
    nlp: Language
    embed: Embed
    plan: RequestPlan
    gone: set[str]
    requests: list[tuple[TurnRecord, ParsedRequest]]
    docs: dict[str, Doc] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.speakers = {t.speaker.casefold() for t in self.turns}
        self.any_role = any(t.role is not None for t in self.turns)

    def doc(self, turn: TurnRecord) -> Doc:
        if turn.id not in self.docs:
            self.docs[turn.id] = self.nlp(turn.text)
        return self.docs[turn.id]

    def forget(self, request: TurnRecord, parsed: ParsedRequest) -> None:
        """Decide one forget request: the earlier turns it matches and the copies of their
        values, unless that is more than the policy allows or nothing at all."""
        plan, policy = self.plan, self.policy
        decided, kept = parsed.decided, parsed.keeps_turn
        earlier = [
            t
            for t in self.turns
            if t.index < request.index
            and t.id not in self.gone
            and t.id not in plan.requests
            and (t.role in policy.roles if self.any_role else True)
        ]
        matched = _match(parsed, earlier, self.doc, self.nlp, self.embed, policy.similarity)
        secrets, names = self._secrets(request, parsed, matched)
        copies = [
            t.id
            for t in self.turns
            if t.id not in self.gone
            and t.id not in matched
            and t.id not in plan.requests
            and t.id != request.id
            and any(_contains(t.text, s) for s in secrets | names)
        ]
        removing = [*matched, *copies]
        if len(removing) > policy.max_turns:
            plan.outcomes.append(
                RequestOutcome(
                    request.id, request.index, "forget", "too_broad", (), len(matched), decided
                )
            )
            return
        if not removing and not parsed.restated:
            plan.outcomes.append(
                RequestOutcome(request.id, request.index, "forget", "no_match", decided=decided)
            )
            return
        plan.removed.update(removing)
        self.gone.update(removing)
        # a request turn restating a forgotten value is masked, not removed (not one that keeps
        # its new value: the value it restates may be that new value)
        for other in self.requests:
            if other[0].id in plan.requests or (other[0].id == request.id and not kept):
                masked = mask(plan.masked.get(other[0].id, other[0].text), secrets)
                if masked != other[0].text:
                    plan.masked[other[0].id] = masked
        plan.outcomes.append(
            RequestOutcome(
                request.id,
                request.index,
                "forget",
                "applied",
                tuple(removing),
                len(matched),
                decided,
            )
        )

    def _secrets(
        self, request: TurnRecord, parsed: ParsedRequest, matched: Sequence[str]
    ) -> tuple[set[str], set[str]]:
        """(values, names) whose copies in other turns go too."""
        # values (codes, e-mail addresses) are masked where a request restates them; names only
        # mark copies in other turns: a name is a topic word when the request says it
        secrets = set(parsed.restated)
        names: set[str] = set()
        kept_user = [
            t
            for t in self.turns
            if t.role in self.policy.roles and t.id not in self.gone | set(matched)
        ]
        said_elsewhere = " ".join(t.text for t in kept_user if t.id != request.id)
        for turn_id in matched:
            turn = next(t for t in self.turns if t.id == turn_id)
            secrets.update(values(turn.text))
            names.update(
                n
                for n in _names(self.doc(turn))
                if n.casefold() not in self.speakers
                and not _contains(said_elsewhere, n)
                and not _contains(parsed.topic, n)
            )
        return secrets, names


def _match(
    parsed: ParsedRequest,
    earlier: Sequence[TurnRecord],
    doc: Callable[[TurnRecord], Doc],
    nlp: Language,
    embed: Embed,
    threshold: float,
) -> list[str]:
    """Earlier turns that state the topic: an anchor lemma in common and cosine >= threshold,
    or a restated value verbatim."""
    topic_lemmas = _content_lemmas(nlp(parsed.topic))
    anchors = topic_lemmas - WEAK_LEMMAS or topic_lemmas
    lexical = [
        t
        for t in earlier
        if anchors & _content_lemmas(doc(t)) or any(_contains(t.text, v) for v in parsed.restated)
    ]
    if not lexical:
        return []
    vectors = embed([parsed.topic, *(t.text for t in lexical)])
    cosines = vectors[1:] @ vectors[0]
    return [
        t.id
        for t, cos in zip(lexical, cosines, strict=True)
        if float(cos) >= threshold or any(_contains(t.text, v) for v in parsed.restated)
    ]


class _ExplicitTurn:
    """A stand-in request turn after the whole conversation, for ``forget_about``."""

    ID = "\x00forget_about"

    @classmethod
    def make(cls, turns: Sequence[TurnRecord]) -> TurnRecord:
        last = turns[-1]
        return last.model_copy(
            update={"id": cls.ID, "index": last.index + 1, "text": "", "role": "user"}
        )
