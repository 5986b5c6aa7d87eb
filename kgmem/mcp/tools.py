"""The MCP tools of one server, bound to its scope (one conversation or an owner's), and the
awaitable face over `Memory` / `AsyncMemory` they call (`kgmem.mcp.build_server` registers
them)."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import uuid
from datetime import UTC, date, datetime, time
from typing import Any

import anyio
import anyio.to_thread
from mcp.server.mcpserver.exceptions import ToolError

from kgmem.aio import AsyncMemory
from kgmem.api import Memory
from kgmem.bounds import parse_when
from kgmem.cursors import CursorCodec
from kgmem.errors import ConversationNotFound, KgmemError
from kgmem.mcp.models import (
    CITE,
    CurrentValue,
    ForgetAboutOutput,
    ForgetOutput,
    InstructionsOutput,
    ProfileOutput,
    ProfileValue,
    RememberOutput,
    SearchOutput,
    TimelineEntry,
    TimelineOutput,
    TurnOut,
    TurnsOutput,
)
from kgmem.steer import MAX_K, Options, Page, PageHit, steered_search
from kgmem.turns import conversation_of

__all__ = ["MAX_WINDOW", "AwaitableMemory", "Tools", "default_thread"]

#: most neighbours either side that ``read_turns`` returns (the Cypher caps at 10)
MAX_WINDOW = 10


def _iso(value: Any) -> str | None:
    return value.isoformat() if isinstance(value, datetime) else (str(value) if value else None)


def _turn(row: dict[str, Any], *, score: float | None = None, offset: int | None = None) -> TurnOut:
    when: datetime = row["observed_at"]
    return TurnOut(
        turn_id=row["turn_id"],
        date=when.date().isoformat(),
        observed_at=when.isoformat(),
        speaker=row["speaker"],
        session=int(row["session"]),
        text=row["text"],
        score=score,
        offset=offset,
        conversation_id=row.get("conversation_id") or conversation_of(row["turn_id"]),
        source=row.get("source"),
    )


class AwaitableMemory:
    """One awaitable face over `Memory` (calls run in a worker thread) or `AsyncMemory` (its
    own async methods), so the tools below are written once."""

    def __init__(self, memory: Memory | AsyncMemory, codec: CursorCodec | None = None) -> None:
        self.memory = memory
        self.codec = codec or CursorCodec()
        self.can_forget = callable(
            getattr(
                memory.sync if isinstance(memory, AsyncMemory) else memory, "forget_turns", None
            )
        )

    async def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if isinstance(self.memory, AsyncMemory):
            return await getattr(self.memory, name)(*args, **kwargs)
        fn = functools.partial(getattr(self.memory, name), *args, **kwargs)
        return await anyio.to_thread.run_sync(fn)

    async def steer(self, query: str, **kwargs: Any) -> Page:
        """`kgmem.steer.steered_search` over this memory, in a worker thread (the async
        memory's one copy of the logic sends its Neo4j round trips back to the loop)."""
        sync = self.memory.sync if isinstance(self.memory, AsyncMemory) else self.memory
        fn = functools.partial(steered_search, sync, query, codec=self.codec, **kwargs)
        page: Page = await anyio.to_thread.run_sync(fn)
        return page

    async def close(self) -> None:
        if isinstance(self.memory, AsyncMemory):
            await self.memory.close()
        else:
            self.memory.close()


def _when(value: str | None, name: str, *, end: bool) -> datetime | None:
    """An ISO 8601 date or datetime from a tool argument (naive = UTC; a date as ``until``
    means the end of that day).

    Raises:
        ToolError: not a date.
    """
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
            moment = datetime.combine(day, time.max if end else time.min, tzinfo=UTC)
        else:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ToolError(f"{name} must be an ISO 8601 date (2024-05-08) or datetime") from exc
    return moment if moment.utcoffset() is not None else moment.replace(tzinfo=UTC)


def default_thread(owner: str) -> str:
    """The conversation ``remember`` writes to when a server serves an owner without naming a
    conversation: ``<owner>-mcp-<8 hex>`` (``:`` replaced, a hash of the owner keeping two
    owners apart)."""
    digest = hashlib.sha256(owner.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{owner.replace(':', '_')}-mcp-{digest}"


class Tools:
    """The tools of one server, bound to its scope: one conversation, or an owner's (then
    ``conversation_id`` is where ``remember`` writes)."""

    def __init__(
        self,
        mem: AwaitableMemory,
        conversation_id: str | None,
        owner: str | None,
        *,
        k: int,
        default_speaker: str,
    ) -> None:
        self.mem = mem
        self.owner = owner
        self.by_owner = owner is not None and conversation_id is None
        self.write_to = conversation_id or default_thread(str(owner))
        self.k = k
        self.default_speaker = default_speaker

    @property
    def label(self) -> str:
        """``conversation_id`` of the outputs ('' when the server serves an owner)."""
        return "" if self.by_owner else self.write_to

    async def _threads(self) -> list[str]:
        if not self.by_owner:
            return [self.write_to]
        threads: list[str] = await self.mem.call("owner_conversations", self.owner)
        return threads

    async def _own(self, turn_id: str) -> str:
        """The conversation of ``turn_id`` if this server may read it (a local id counts as
        the served conversation's).

        Raises:
            ToolError: a turn of a conversation outside the scope.
        """
        if ":" not in turn_id:
            if self.by_owner:
                raise ToolError("use a full turn_id from search_memory (<conversation>:<id>)")
            return self.write_to
        cid = conversation_of(turn_id)
        if cid not in await self._threads():
            raise ToolError(f"no turn {turn_id!r} in this memory; use a turn_id from search_memory")
        return cid

    async def search_memory(
        self,
        query: str,
        k: int | None = None,
        cursor: str | None = None,
        exact: str | None = None,
        speaker: str | None = None,
        since: str | None = None,
        until: str | None = None,
        session: int | None = None,
        max_tokens: int | None = None,
        where: dict[str, Any] | None = None,
    ) -> SearchOutput:
        """Search memory: the turns that bear on `query`, best first, each with its turn_id,
        date, speaker, text and why it matched, and whether memory supports the question at
        all (`answerable`; when false, answer "not in memory"). All else is optional:
        `k` hits (1-50, default 10); `cursor`: the `next_cursor` of the previous call, for
        the next page of the same search; `exact`: a phrase or identifier the turn must hold
        (order numbers, error messages, names in code); `speaker`: only that speaker's turns
        (any case or accents); `since` / `until`: only turns said in that range (YYYY-MM-DD,
        inclusive); `session`: only that session number; `max_tokens`: trim the page to that
        many tokens of text; `where`: only turns whose metadata passes, e.g.
        {"project": "billing", "importance": {"gte": 3}} (equality, a list for any of,
        gt/gte/lt/lte on numbers and YYYY-MM-DD dates)."""
        try:
            options = Options(
                k=min(self.k, MAX_K) if k is None else k,
                cursor=cursor or None,
                exact=exact if exact and exact.strip() else None,
                speaker=speaker.strip() if speaker and speaker.strip() else None,
                since=parse_when(since or None, "since", end=False),
                until=parse_when(until or None, "until", end=True),
                session=session,
                max_tokens=max_tokens,
                where=where or None,
            )
            cid = None if self.by_owner else self.write_to
            page = await self.mem.steer(
                query, conversation_id=cid, owner=self.owner, options=options
            )
        except ConversationNotFound:  # nothing remembered yet: an empty answer, not an error
            return SearchOutput(
                conversation_id=self.label, owner=self.owner, query=query, hits=[], answerable=False
            )
        except KgmemError as exc:
            raise ToolError(str(exc)) from exc
        hits = [self._turn_out(h) for h in page.hits]
        return SearchOutput(
            conversation_id=self.label,
            owner=self.owner,
            query=query,
            hits=hits,
            answerable=page.answerable,
            unsupported=page.unsupported,
            answer=page.answer,
            next_cursor=page.next_cursor,
            unknown_names=page.unknown_names,
            speakers=page.speakers,
            omitted=page.omitted,
            notes=page.notes,
            instructions=[_plain(i) for i in page.instructions],
            conflicts=[_plain(c) for c in page.conflicts],
            order=page.order,
            note=CITE
            if page.answerable
            else "Memory does not support this question for the person it names; say it is "
            "not in memory. " + CITE,
        )

    def _turn_out(self, h: PageHit) -> TurnOut:
        """One hit of a steered page as the tool returns it."""
        return TurnOut(
            turn_id=h.turn_id,
            date=h.date,
            observed_at=h.observed_at,
            speaker=h.speaker,
            session=h.session,
            text=h.text,
            score=h.score,
            conversation_id=h.conversation_id or self.write_to,
            source=h.source,
            why=h.why,
            event_date=h.event_date,
            passage=h.passage,
            metadata=h.metadata or None,
        )

    async def instructions(self, request: str | None = None) -> InstructionsOutput:
        """The user's standing instructions and preferences ("always format code with syntax
        highlighting", "I prefer minimal dependencies"): with `request` (what the user asks
        now), the ones that apply to it, at most 5; without, every one in force. Follow them
        in your answer; search_memory returns the same ones beside its hits."""
        if self.by_owner:
            raise ToolError("instructions are kept per conversation; serve one conversation")
        try:
            found = await self.mem.call("instructions", self.write_to, request or None)
        except ConversationNotFound:
            found = []
        except KgmemError as exc:
            raise ToolError(str(exc)) from exc
        return InstructionsOutput(
            conversation_id=self.label,
            request=request or None,
            instructions=[_plain(i) for i in found],
        )

    async def timeline(self) -> TimelineOutput:
        """What memory holds, oldest first: each conversation's sessions and each document,
        with first and last dates and the number of turns. Use it to choose `since` / `until`
        and to see which threads exist before searching."""
        try:
            rows = await self.mem.call(
                "timeline",
                None if self.by_owner else self.write_to,
                owner=self.owner if self.by_owner else None,
            )
        except KgmemError as exc:
            raise ToolError(str(exc)) from exc
        entries = [
            TimelineEntry(
                conversation_id=row["conversation_id"],
                kind=row["kind"],
                session=row["session"],
                source=row["source"],
                first=_day(row["first"]),
                last=_day(row["last"]),
                turns=int(row["turns"]),
            )
            for row in rows
        ]
        return TimelineOutput(conversation_id=self.label, owner=self.owner, entries=entries)

    async def read_turns(self, turn_id: str, window: int = 2) -> TurnsOutput:
        """Read a turn (by its turn_id from search_memory) with `window` neighbouring turns
        before and after it (0-10), in the order they were said."""
        if not 0 <= window <= MAX_WINDOW:
            raise ToolError(f"window must be between 0 and {MAX_WINDOW}")
        cid = await self._own(turn_id)
        try:
            rows = await self.mem.call("turns_around", cid, turn_id, window=window)
        except KgmemError as exc:
            raise ToolError(str(exc)) from exc
        if not rows:
            raise ToolError(f"no turn {turn_id!r} in this memory; use a turn_id from search_memory")
        turns = [_turn(row, offset=int(row["offset"])) for row in rows]
        return TurnsOutput(conversation_id=cid, turns=turns)

    async def current_value(self, entity: str, relation: str) -> CurrentValue:
        """The current value of a single-valued relation of an entity, e.g. ("Ana", "live_in")
        or ("Ana", "employer"): the latest fact wins; older values are listed as previous."""
        try:
            if self.by_owner:
                rows = await self.mem.call("history", None, entity, relation, owner=self.owner)
            else:
                rows = await self.mem.call("history", self.write_to, entity, relation)
        except KgmemError as exc:
            raise ToolError(str(exc)) from exc
        out = CurrentValue(
            conversation_id=self.label, entity=entity, relation=relation, found=False
        )
        return _current(out, rows) if rows else out

    async def profile(self, entity: str) -> ProfileOutput:
        """What memory holds about a person or thing now, e.g. "user" or "Ana": each
        attribute's current value (where they live, work, their email, pets, ...) with the
        turns that say so."""
        try:
            if self.by_owner:
                groups = await self.mem.call("profile", None, entity, owner=self.owner)
            else:
                groups = await self.mem.call("profile", self.write_to, entity)
        except KgmemError as exc:
            raise ToolError(str(exc)) from exc
        values = [
            ProfileValue(
                attribute=attribute,
                value=row.get("value"),
                value_type=row.get("value_type"),
                thing=row.get("thing"),
                valid_from=row.get("valid_from"),
                cites=list(row.get("cites") or []),
                conversation_id=str(row.get("conversation_id") or self.write_to),
            )
            for attribute, rows in groups.items()
            for row in rows
        ]
        return ProfileOutput(
            conversation_id=self.label, entity=entity, found=bool(values), values=values
        )

    async def remember(
        self, text: str, speaker: str | None = None, metadata: dict[str, Any] | None = None
    ) -> RememberOutput:
        """Remember something: store `text` as a new turn said by `speaker` (default: the user).
        Write one self-contained sentence (who, what, when). `metadata`: optional flat
        key/value pairs to keep with it and filter on later (strings, numbers, booleans,
        YYYY-MM-DD dates). Returns the new turn_id."""
        who = (speaker or "").strip() or self.default_speaker
        local = f"m{uuid.uuid4().hex[:12]}"
        when = datetime.now(UTC)
        cid = self.write_to
        try:
            report = await self.mem.call(
                "add_turns",
                cid,
                [{"id": local, "speaker": who, "text": text}],
                observed_at=when,
                requests=False,  # remembering never deletes: forget_about does, explicitly
                owner=self.owner,
                metadata=metadata or None,
            )
        except KgmemError as exc:
            raise ToolError(str(exc)) from exc
        rows = await self.mem.call("turns_around", cid, f"{cid}:{local}")
        fallback = {"turn_id": f"{cid}:{local}", "observed_at": when, "speaker": who}
        turn = _turn(rows[0]) if rows else _turn(fallback | {"session": 1, "text": text})
        return RememberOutput(
            conversation_id=cid, turn=turn, facts=report.facts_written, entities=report.entities
        )

    async def forget_turns(self, turn_ids: list[str]) -> ForgetOutput:
        """Forget turns for good, by their turn_id: the turns, the facts taken only from
        them and everything derived from them are removed."""
        by_thread: dict[str, list[str]] = {}
        for turn_id in turn_ids:
            by_thread.setdefault(await self._own(turn_id), []).append(turn_id)
        counts: dict[str, int] = {}
        try:
            for cid, ids in by_thread.items():
                removed = await self.mem.call("forget_turns", cid, ids)
                for key, value in (removed if isinstance(removed, dict) else {}).items():
                    counts[str(key)] = counts.get(str(key), 0) + int(value)
        except KgmemError as exc:
            raise ToolError(str(exc)) from exc
        return ForgetOutput(conversation_id=self.label, turn_ids=turn_ids, removed=counts)

    async def forget_about(self, description: str) -> ForgetAboutOutput:
        """Forget what the user said about something, described in words ("my passport
        number", "the deposit fight with my landlord"): the user's turns that state it, and
        any turn repeating its values, are removed with everything derived from them.
        Conservative: nothing is removed when nothing matches or when too much would go.
        Returns the removed turn ids and counts."""
        outs: list[dict[str, Any]] = []
        try:
            for cid in await self._threads():
                with contextlib.suppress(ConversationNotFound):
                    outs.append(await self.mem.call("forget_about", cid, description))
        except KgmemError as exc:
            raise ToolError(str(exc)) from exc
        return _forgot(self.label, outs)


def _plain(value: Any) -> Any:
    """``value`` with datetimes as ISO 8601 strings, through dicts and lists."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return _iso(value) if isinstance(value, datetime) else value


def _day(value: Any) -> str:
    return value.date().isoformat() if isinstance(value, datetime) else str(value)


def _current(out: CurrentValue, rows: list[dict[str, Any]]) -> CurrentValue:
    latest = rows[-1]
    return out.model_copy(
        update={
            "found": True,
            "value": None if latest.get("object") is None else str(latest["object"]),
            "text": latest.get("text"),
            "fact_id": latest.get("id"),
            "serial": latest.get("serial"),
            "valid_from": _iso(latest.get("valid_from")),
            "cites": list(latest.get("cites") or []),
            "previous": [
                {"text": row.get("text"), "valid_to": _iso(row.get("valid_to"))}
                for row in rows[:-1]
            ],
        }
    )


def _forgot(label: str, outs: list[dict[str, Any]]) -> ForgetAboutOutput:
    """One ``forget_about`` answer from one per conversation: ``applied`` if any applied, else
    ``too_broad`` if any was, else ``no_match``; ids and counts summed."""
    statuses = {o["status"] for o in outs}
    status = next((s for s in ("applied", "too_broad") if s in statuses), "no_match")
    return ForgetAboutOutput(
        conversation_id=label,
        status=status,
        turn_ids=sorted(t for o in outs for t in o.get("turn_ids", [])),
        matched=sum(int(o.get("matched", 0)) for o in outs),
        turns=sum(int(o.get("turns", 0)) for o in outs),
        facts=sum(int(o.get("facts", 0)) for o in outs),
    )
