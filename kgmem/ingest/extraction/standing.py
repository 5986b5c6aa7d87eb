"""Standing instructions, preferences and contradictions, derived from a conversation's user turns.

What a user asks the assistant to do from now on ("Always format code with syntax
highlighting", "I prefer minimal dependencies", "never suggest paid services") is not a fact
about the world: it is a rule for every later answer. `derive_standing` reads every stored turn
of the conversation whose role is ``user`` (named speakers without a role, as in LoCoMo, are
never read: their conversations get neither instructions nor conflicts) and writes, in one
transaction that first removes what an earlier derivation wrote:

- ``(:Instruction {id, conversation_id, kind, scope, text, valid_from, revoked_at, score,
  embedding})-[:STATED_IN]->(:Turn)``: one per user turn that states a standing instruction or
  preference (`standing_of`); ``kind`` is ``instruction`` or ``preference``; ``scope`` the typed
  scopes its text names (`typed_scopes`); ``valid_from`` the turn's time; ``revoked_at`` the
  time of a later turn that revises it (`revisions`), else null;
- ``(:Turn)-[:CONFLICTS {why, score}]->(:Turn)``: two asserted user statements that the
  relation decision reads as conflicting (`conflicts`), from the negated one to the other.

The whole conversation is derived again after every ingest, append and forget (a few hundred
user turns cost a few milliseconds of numpy and one write), so a revoked, forgotten or
rewritten turn never leaves a stale instruction or conflict behind.

Decisions and thresholds (`STANDING_CUED` chosen by leave-one-chat-out on the BEAM dev chats;
the others set by hand from their instruction, preference and contradiction turns, see
``docs/instructions-and-conflicts.md``):

- a turn is *standing* when the request decision (`kgmem.truth.decisions.memory_request`)
  gives ``instruction`` + ``preference`` at least `STANDING_CUED` and its first sentences carry
  a standing cue (imperative mood, "always", "never", "prefer", "from now on": `CUE`). Both
  must agree: "I always forget the syntax" has the cue and not the decision; the decision
  alone (tried from 0.8 to 0.99 without a cue) found no standing turn of the dev chats the cue
  missed, and at 0.97 added 21 that were none;
- a later standing statement of the same kind whose vector lies within `REVISE_COS` of an
  earlier one revises it (the earlier one is revoked from the later one's time); one that
  revokes ("no longer", "stop", "don't ... any more": `REVOKE`) is stored revoked at once;
- a user turn that denies having done something (`negated_clause`: "I've never used X") is
  compared, by the denial clause's own vector, with its `CONFLICT_K` nearest user turns that
  deny nothing (the relation decision's candidate budget); its nearest `CONFLICT_PARTNERS`
  with a cosine of at least `CONFLICT_COS` and within `CONFLICT_MARGIN` of the nearest conflict
  with it unless the relation decision (`kgmem.truth.decisions.relation`) reads the pair as a
  ``restatement``. A denial of a change ("no longer", "any more", "used to", "instead") is an
  update, never a conflict: a dated update stays supersession. (The relation decision's own
  ``conflict`` class, trained on short statements, gave the true pairs of the BEAM dev chats
  a probability of 0.00-0.15 against whole long turns, so it does not choose the pairs.)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from kgmem.truth.decisions import memory_request, relation
from kgmem.turns import only_asks

__all__ = [
    "CONFLICT_COS",
    "CONFLICT_K",
    "CONFLICT_MARGIN",
    "CONFLICT_PARTNERS",
    "REVISE_COS",
    "STANDING_CUED",
    "Standing",
    "StandingTurn",
    "conflicts",
    "derive_standing",
    "negated_clause",
    "revisions",
    "standing_of",
    "typed_scopes",
]

Vector = npt.NDArray[np.float32]

#: instruction + preference probability a cued turn needs to be standing; chosen by
#: leave-one-chat-out on the BEAM dev chats with a threshold for the decision alone, without a
#: cue (F1 of the standing user turns against the instruction- and preference-following
#: evidence turns, grids {0.05, 0.1, 0.2, 0.3, 0.4, 0.5} x {0.8, 0.9, 0.95, 0.97, 0.99,
#: never}: 8 folds of 10 chose (0.05, never), so the decision never acts alone; held-out
#: recall 0.67, precision 0.43; the hand-set (0.3, 0.97) in-sample 0.70 / 0.35)
STANDING_CUED = 0.05
#: cosine between two standing statements of one kind above which the later revises the earlier
REVISE_COS = 0.75
#: nearest user turns a negated statement is compared with (the relation decision's budget)
CONFLICT_K = 20
#: cosine between a denial and the asserted turn it conflicts with, at least
CONFLICT_COS = 0.35
#: a denial's conflicting statements: at most this many of its nearest asserted turns ...
CONFLICT_PARTNERS = 2
#: ... each within this much cosine of the nearest
CONFLICT_MARGIN = 0.1
#: characters of a turn read for cues and stored as an instruction's text
HEAD_CHARS = 400

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_CLAUSE = re.compile(r"(?<=[.!?,;])\s+|\n+|\s+(?:but|so|and so)\s+")
CUE = re.compile(
    r"^\s*(?:please\s+)?(?:always|never|don't|do not|avoid|make sure|remember to|from now on|"
    r"use|include|format|keep|stop|prefer|give|show|write|answer|respond|reply|explain)\b"
    r"|\b(?:always|prefer|preference|rather|from now on|whenever i|every time i)\b",
    re.IGNORECASE,
)
"""Standing cues of a sentence: imperative mood (a bare verb, "always" or "never" first) and the
words of a durable preference ("never" elsewhere is a denial: "I have never used X")."""
REVOKE = re.compile(
    r"\b(?:no longer|not any ?more|don't need to|do not need to|stop (?:\w+ing)|"
    r"forget (?:that|my|the) (?:instruction|preference|rule))\b|\b(?:any ?more)\s*[.!]?$",
    re.IGNORECASE,
)
"""A statement that withdraws an earlier instruction rather than adding one."""
NEGATION = re.compile(
    r"\b(?:never|haven't|hasn't|hadn't|didn't|have not|has not|did not)\b", re.IGNORECASE
)
"""A denial of having done something, which an asserted statement can contradict ("I have never
used X" against "I integrated X"); "not sure" and "don't know" deny nothing done."""
_NON_ASSERTED = re.compile(r"^\s*(?:if|what if|suppose|would|could|should|maybe)\b", re.IGNORECASE)
"""A statement that asserts nothing done (a hypothetical, a question), never a conflict's end."""
_UPDATE = re.compile(r"\b(?:no longer|any ?more|used to|instead|switched|now)\b", re.IGNORECASE)

#: typed scopes and the words that name them: a formatting instruction about code applies to
#: every request for code whatever its words (`kgmem.retrieve.standing`)
SCOPES: dict[str, re.Pattern[str]] = {
    "code": re.compile(
        r"\b(?:code|snippets?|implement\w*|function|class|script|example|syntax|programm\w*|"
        r"query|queries|endpoint|api|bug|debug\w*|error)\b",
        re.IGNORECASE,
    ),
    "formatting": re.compile(
        r"\b(?:format\w*|bullet\w*|tables?|markdown|highlight\w*|headings?|concise|brief|"
        r"short|detailed|step[- ]by[- ]step|comments?|style)\b",
        re.IGNORECASE,
    ),
    "dependencies": re.compile(
        r"\b(?:librar\w+|dependenc\w+|packages?|versions?|frameworks?|tools?|install\w*)\b",
        re.IGNORECASE,
    ),
    "security": re.compile(
        r"\b(?:secur\w+|auth\w*|passwords?|encrypt\w*|login|permissions?|tokens?)\b",
        re.IGNORECASE,
    ),
    "testing": re.compile(r"\b(?:tests?|testing|coverage|unit tests?)\b", re.IGNORECASE),
    "performance": re.compile(
        r"\b(?:performance|fast\w*|speed|latency|optimi[sz]\w*|slow\w*)\b", re.IGNORECASE
    ),
}


@dataclass(frozen=True)
class StandingTurn:
    """A stored user turn as the derivation reads it.

    Attributes:
        id: turn id. text: its text. observed_at: its time (UTC).
        vector: its embedding ``(d,)`` float32, unit norm (the first passage's for a long turn).
        speaker: who said it (conflicts pair one speaker's statements only).
    """

    id: str
    text: str
    observed_at: datetime
    vector: Vector
    speaker: str


@dataclass
class Standing:
    """One standing instruction or preference (what an ``(:Instruction)`` node holds)."""

    turn_id: str
    kind: str
    text: str
    scope: tuple[str, ...]
    valid_from: datetime
    score: float
    vector: Vector
    revoked_at: datetime | None = None
    revises: str | None = None

    @property
    def id(self) -> str:
        return f"{self.turn_id}#instruction"


def head(text: str) -> str:
    """The first sentences of ``text`` up to `HEAD_CHARS` (where a standing rule is stated)."""
    out = ""
    for sentence in _SENTENCE.split(text.strip()):
        if out and len(out) + len(sentence) > HEAD_CHARS:
            break
        out = f"{out} {sentence}".strip()
        if "```" in sentence:
            break
    return out[:HEAD_CHARS]


def typed_scopes(text: str) -> tuple[str, ...]:
    """The typed scopes (`SCOPES` keys, in their order) that ``text`` names."""
    return tuple(name for name, pattern in SCOPES.items() if pattern.search(text))


def cued(text: str) -> bool:
    """Whether a sentence of ``text``'s head carries a standing cue (`CUE`)."""
    return any(CUE.search(s) for s in _SENTENCE.split(head(text)))


def standing_of(turn: StandingTurn, previous: Vector | None) -> Standing | None:
    """The standing instruction or preference ``turn`` states, or None (module docstring)."""
    decision = memory_request(turn.vector, turn.text[:2000], previous)
    score = decision.scores.get("instruction", 0.0) + decision.scores.get("preference", 0.0)
    if score < STANDING_CUED or not cued(turn.text):
        return None
    text = head(turn.text)
    kind = (
        "preference"
        if re.search(r"\b(?:prefer|preference|rather|like)\b", text, re.IGNORECASE)
        or decision.scores.get("preference", 0.0) > decision.scores.get("instruction", 0.0)
        else "instruction"
    )
    standing = Standing(
        turn.id, kind, text, typed_scopes(text), turn.observed_at, round(score, 4), turn.vector
    )
    if REVOKE.search(text):
        standing.revoked_at = turn.observed_at
    return standing


def revisions(found: list[Standing]) -> list[Standing]:
    """``found`` (time order) with each earlier statement revoked by the first later one of the
    same kind within `REVISE_COS` (``revises`` names the one it revises). A revoking statement
    also revokes an earlier one of either kind that it matches."""
    for j, later in enumerate(found):
        for earlier in found[:j]:
            if earlier.revoked_at is not None and earlier.revoked_at <= later.valid_from:
                continue
            same = earlier.kind == later.kind or later.revoked_at is not None
            if same and float(earlier.vector @ later.vector) >= REVISE_COS:
                earlier.revoked_at = later.valid_from
                later.revises = later.revises or earlier.id
    return found


def negated_clause(text: str) -> str | None:
    """The first clause of ``text``'s head that denies having done something ("I've never used
    Zotero"), or None (`NEGATION`; a denial of a change, "no longer", is an update)."""
    for clause in _CLAUSE.split(head(text)):
        if NEGATION.search(clause) and not _UPDATE.search(clause):
            return clause.strip()
    return None


def conflicts(
    turns: Sequence[StandingTurn], clauses: dict[str, tuple[str, Vector]]
) -> list[dict[str, Any]]:
    """Conflicting pairs among one conversation's asserted user statements (module docstring):
    ``[{"from", "to", "why", "score"}]``, ``from`` the negated statement.

    Args:
        turns: the user turns, in utterance order.
        clauses: turn id -> (its negated clause, the clause's vector) for the turns that deny
            something (`negated_clause`).
    """
    kept = [
        t for t in turns if not _NON_ASSERTED.search(head(t.text)[:200]) and not only_asks(t.text)
    ]
    if len(kept) < 2 or not clauses:
        return []
    matrix = np.stack([t.vector for t in kept]).astype(np.float32)
    out: dict[frozenset[str], dict[str, Any]] = {}
    for i, turn in enumerate(kept):
        if turn.id not in clauses:
            continue
        clause, vector = clauses[turn.id]
        sims = matrix @ vector
        sims[i] = -2.0
        near = [
            int(j)
            for j in np.argsort(-sims)[:CONFLICT_K]
            if kept[int(j)].speaker == turn.speaker and kept[int(j)].id not in clauses
        ]
        if not near:
            continue
        best = float(sims[near[0]])
        chosen = [j for j in near[:CONFLICT_PARTNERS] if float(sims[j]) >= CONFLICT_COS]
        chosen = [j for j in chosen if best - float(sims[j]) <= CONFLICT_MARGIN]
        decisions = (
            relation(matrix[chosen], vector, clause, [kept[j].text for j in chosen])
            if chosen
            else []
        )
        for j, d in zip(chosen, decisions, strict=True):
            if d.label == "restatement":  # says the same thing again: no conflict
                continue
            other = kept[j]
            pair = frozenset((turn.id, other.id))
            if pair not in out:
                why = f"{clause[:200]!r} against {head(other.text)[:200]!r}"
                out[pair] = {
                    "from": turn.id,
                    "to": other.id,
                    "why": why,
                    "score": round(float(sims[j]), 4),
                }
    return list(out.values())


def derive_standing(store: Any, encode: Any, conversation_id: str) -> dict[str, int]:
    """Derive the conversation's instructions and conflicts again and write them in one
    transaction (module docstring); ``encode`` is the embedder's (texts -> ``(n, d)`` unit rows),
    for the negated clauses. Returns ``{"instructions", "revoked", "conflicts"}``."""
    rows = store.read("read/user_turn_vectors", conversation_id=conversation_id)
    turns: list[StandingTurn] = []
    previous: dict[str, Vector | None] = {}
    for row in rows:
        vector = np.asarray(row["embedding"], dtype=np.float32)
        if row["role"] != "user" or row["request"]:
            continue
        turns.append(
            StandingTurn(row["id"], row["text"], row["observed_at"], vector, row["speaker"])
        )
        prev = row.get("previous")
        previous[row["id"]] = None if prev is None else np.asarray(prev, dtype=np.float32)
    found = [s for t in turns if (s := standing_of(t, previous.get(t.id))) is not None]
    found = revisions(found)
    denials = {t.id: c for t in turns if (c := negated_clause(t.text)) is not None}
    vectors = encode(list(denials.values())) if denials else []
    pairs = conflicts(
        turns,
        {tid: (c, v) for (tid, c), v in zip(denials.items(), vectors, strict=True)},
    )
    instruction_rows = [
        {
            "id": s.id,
            "turn_id": s.turn_id,
            "kind": s.kind,
            "text": s.text,
            "scope": list(s.scope),
            "valid_from": s.valid_from,
            "revoked_at": s.revoked_at,
            "revises": s.revises,
            "score": s.score,
            "embedding": [float(x) for x in s.vector],
        }
        for s in found
    ]

    def work(tx: Any) -> None:
        tx.run("write/clear_standing", conversation_id=conversation_id)
        tx.run("write/merge_instructions", conversation_id=conversation_id, rows=instruction_rows)
        tx.run("write/merge_conflicts", conversation_id=conversation_id, rows=pairs)

    if found or pairs or rows:
        store.transaction(work)
    return {
        "instructions": len(found),
        "revoked": sum(1 for s in found if s.revoked_at is not None),
        "conflicts": len(pairs),
    }
