"""``kgmem search``, ``kgmem explain``, ``kgmem current``, ``kgmem history``: the read path."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, cast

import click

from kgmem.cli._common import console, dump_json, json_option, memory_from, settings_from
from kgmem.cli.standing import print_standing
from kgmem.config import DEFAULT_K
from kgmem.models import SOURCE_KINDS, Hit
from kgmem.retrieve.config import EngineConfig, EngineName, FactSourceChoice
from kgmem.retrieve.retriever import SearchResult

if TYPE_CHECKING:
    from kgmem.api import Memory

ENGINES = click.Choice(["linked", "cosine"])
SOURCES = click.Choice(["annotation", "extracted", "both"])


def rank_note(hit: Hit) -> str:
    """How a hit got its rank, for the plain output: ``score 1.314``, or, for a hit that
    current-value resolution moved above higher-scored ones (the list is then not in score
    order), ``score 1.314, moved up: current value``. ``--explain`` and ``--json`` keep every
    term and the trace."""
    moved = hit.trace.get("reordered")
    if isinstance(moved, dict):
        return f"score {hit.score:.3f}, moved up: {moved.get('reason', 'current value')}"
    return f"score {hit.score:.3f}"


def _print_hit(rank: int, hit: Hit, result: SearchResult) -> None:
    """One hit: its line, text, source, thread, matched passage and event time."""
    console.print(
        f"{rank:>2}. {hit.turn_id}  session {hit.session}"
        f" · {hit.observed_at:%Y-%m-%d %H:%M} UTC · {hit.speaker} · {rank_note(hit)}"
    )
    if hit.source is not None:
        console.print(f"    source: {hit.source}", markup=False)
    console.print(f"    {hit.text}")
    if result.owner is not None:
        where = hit.conversation_id + (f" · {hit.source}" if hit.source else "")
        console.print(f"    in {where}", markup=False)
    if hit.passage is not None:
        p = hit.passage
        console.print(
            f"    passage {p['n']} (characters {p['start']}..{p['end']} of {len(hit.text)}, "
            f"cosine {p['cosine']:.3f}): {hit.text[p['start'] : p['end']][:160]!r}",
            markup=False,
        )
    when = hit.trace.get("event_time")
    if when:
        console.print(
            f"    event time: {when['start'][:10]} .. {str(when['end'])[:10]}"
            f' ({when["granularity"]}, "{when["phrase"]}")'
        )


def _print_explanation(result: SearchResult) -> None:
    """``--explain``: the plan, the question as read, every hit's terms and trace, hops, the
    chain, current values, the answer and answerability."""
    plan = result.plan
    console.print(
        f"plan: operators={list(plan.get('operators', []))} "
        f"entities={[e.get('surface') for e in plan.get('entities', [])]} "
        f"year={plan.get('named_year')} month={plan.get('named_month')}"
        f" state={plan.get('state')} cues={list(plan.get('cues', []))}"
    )
    question = result.question
    if question:
        times = question.get("times", {})
        console.print(
            f"question: tokens={question.get('tokens')} speakers={question.get('speakers')}"
            f" asker={question.get('asker')} times={times.get('phrases')}"
            f" interval={times.get('interval')} state={question.get('state')}"
            f" asked={question.get('asked')} operators={question.get('operators')}"
            f" attribute={question.get('attribute')} value_type={question.get('value_type')}",
            markup=False,
        )
    for rank, hit in enumerate(result.hits, start=1):
        terms = " + ".join(f"{name} {value:.3f}" for name, value in hit.terms.items() if value)
        console.print(
            f"  {rank:>2}. {hit.turn_id}: {terms}  trace={dump_json(hit.trace, compact=True)}"
        )
    for hop in result.hops:
        console.print(f"  hop: {dump_json(hop, compact=True)}")
    if result.chain is not None:
        path = " ".join(
            f"-{h['relation']}-> {h['object_name']} [{', '.join(h['cites'])}]"
            for h in result.chain["hops"]
        )
        console.print(
            f"  chain: {result.chain['base']} {path} = {result.chain['answer']}"
            f" (cost {result.chain['cost']:.2f})",
            markup=False,
        )
    for decision in result.current:
        console.print(
            f"  {decision['mode']} value of {decision['key']}: {decision['winner']} "
            f"({decision['reason']}); others {decision['superseded']}",
            markup=False,
        )
    if result.answer is not None:
        a = result.answer
        console.print(
            f"  answer: {a['attribute']} of {a['subject']} = {a['value']!r} "
            f"({a['value_type']}; valid {a['valid_from']} .. {a['valid_to'] or 'now'}; "
            f"turn {a['turn_id']}; {a['why']})",
            markup=False,
        )
    detail = result.answerability
    console.print(
        f"answerable: {result.answerable} ({detail.get('reason', '')}; unsupported "
        f"{result.unsupported})",
        markup=False,
    )


def _print_hits(result: SearchResult, explain: bool) -> None:
    for rank, hit in enumerate(result.hits, start=1):
        _print_hit(rank, hit, result)
    print_standing(result)
    if explain:
        _print_explanation(result)
    console.print(
        f"{result.candidates} candidates; embed {result.timings_ms.get('embed', 0):.1f} ms, "
        f"read path {result.timings_ms.get('read_path', 0):.1f} ms "
        f"(neo4j {result.timings_ms.get('neo4j', 0):.1f} ms)"
    )


DATES = click.DateTime(formats=["%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d"])
KINDS = click.Choice(list(SOURCE_KINDS))


@click.command()
@click.argument("query")
@click.option(
    "--conversation",
    "conversation_id",
    default=None,
    help="Conversation to search (or --owner for all of an owner's).",
)
@click.option(
    "--owner", default=None, help="Search all conversations of this owner, ranked together."
)
@click.option(
    "--speaker", "speakers", multiple=True, help="Only turns said by this speaker (repeatable)."
)
@click.option(
    "--session",
    "sessions",
    multiple=True,
    type=click.IntRange(min=1),
    help="Only turns of this session number (repeatable).",
)
@click.option(
    "--since", type=DATES, default=None, help="Only turns observed at or after (ISO 8601)."
)
@click.option(
    "--until",
    type=DATES,
    default=None,
    help="Only turns observed at or before (ISO 8601; a date means the end of that day).",
)
@click.option(
    "--source",
    "kinds",
    multiple=True,
    type=KINDS,
    help="Only turns of this source kind (repeatable).",
)
@click.option(
    "--k", default=DEFAULT_K, show_default=True, type=click.IntRange(min=1), help="Hits to return."
)
@click.option("--engine", type=ENGINES, default="linked", show_default=True)
@click.option(
    "--facts",
    "fact_sources",
    type=SOURCES,
    default="both",
    show_default=True,
    help="Fact sources the engine reads.",
)
@click.option(
    "--as-of",
    "as_of",
    type=click.DateTime(formats=["%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d"]),
    default=None,
    help="Ask as of this moment (ISO 8601; naive = UTC): later turns are invisible and "
    "relative dates resolve against it.",
)
@click.option(
    "--order",
    type=click.Choice(["relevance", "time"]),
    default=None,
    help="relevance (best first) or time (the top k oldest first); default: time for an "
    "ordering question ('in what order did I ...'), else relevance.",
)
@click.option("--explain", is_flag=True, help="Show the plan and each hit's score terms and trace.")
@json_option("Print JSON (hits with terms and trace).")
@click.pass_context
def search(
    ctx: click.Context,
    query: str,
    conversation_id: str | None,
    owner: str | None,
    speakers: tuple[str, ...],
    sessions: tuple[int, ...],
    since: datetime | None,
    until: datetime | None,
    kinds: tuple[str, ...],
    k: int,
    engine: str,
    fact_sources: str,
    as_of: datetime | None,
    order: str | None,
    explain: bool,
    as_json: bool,
) -> None:
    """The turns of a conversation (or of all an owner's) that bear on QUERY, with evidence.
    Filters (--speaker, --session, --since/--until, --source) apply inside the index."""
    if conversation_id is None and owner is None:
        raise click.UsageError("give --conversation ID or --owner ID")
    config = EngineConfig.from_settings(
        settings_from(ctx),
        engine=cast(EngineName, engine),
        fact_sources=cast(FactSourceChoice, fact_sources),
    )
    if until is not None and (until.hour, until.minute, until.second) == (0, 0, 0):
        until = until.replace(hour=23, minute=59, second=59, microsecond=999_999)
    with memory_from(ctx) as memory:
        result = memory.search(
            query,
            conversation_id,
            k,
            config=config,
            as_of=as_of,
            owner=owner,
            speakers=list(speakers) or None,
            sessions=list(sessions) or None,
            between=(since, until) if since is not None or until is not None else None,
            sources=list(kinds) or None,
            order=order,
        )
        if as_json:
            click.echo(dump_json(result.model_dump(mode="json")))
        else:
            _print_hits(result, explain)
            if explain:
                _print_decisions(memory, query, result)


@click.command()
@click.argument("question")
@click.option("--conversation", "conversation_id", required=True, help="Conversation to search.")
@click.option("--k", default=DEFAULT_K, show_default=True, type=click.IntRange(min=1))
@click.option(
    "--cypher",
    "as_cypher",
    is_flag=True,
    help="Print a ready-to-paste Neo4j Browser statement drawing the evidence subgraph.",
)
@click.option(
    "--html",
    "html_path",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    default=None,
    help="Write the layered evidence picture as an interactive, self-contained HTML page "
    "(neo4j-viz; needs the notebooks extra).",
)
@click.option(
    "--png",
    "png_path",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    default=None,
    help="Write the layered evidence picture as a static PNG (matplotlib).",
)
@click.option(
    "--gold",
    multiple=True,
    help="A turn you expected (full or local id, e.g. D1:3; repeatable): drawn with why it "
    "is missing.",
)
@click.option(
    "--expand",
    is_flag=True,
    help="Draw the hits' whole evidence subgraph, not only what brought each hit.",
)
@json_option()
@click.pass_context
def explain(
    ctx: click.Context,
    question: str,
    conversation_id: str,
    k: int,
    as_cypher: bool,
    html_path: Path | None,
    png_path: Path | None,
    gold: tuple[str, ...],
    expand: bool,
    as_json: bool,
) -> None:
    """Why these turns: plan, score terms, trace; or (--cypher) the evidence subgraph query;
    --html / --png write the layered evidence picture (docs/audit.md)."""
    if (gold or expand) and html_path is None and png_path is None:
        raise click.UsageError("--gold and --expand shape the picture: give --html or --png")
    with memory_from(ctx) as memory:
        if html_path is None and png_path is None:
            result = memory.search(question, conversation_id, k)
        else:
            from kgmem.audit.picture import evidence_picture

            picture, result = evidence_picture(
                memory, question, conversation_id, k=k, gold=gold, expand=expand
            )
            if html_path is not None:
                from kgmem.audit.interactive import write_html

                write_html(picture, html_path)
                console.print(f"wrote {html_path} ({len(picture.nodes)} nodes)")
            if png_path is not None:
                import matplotlib

                matplotlib.use("Agg")  # a file, never a window
                from kgmem.audit.draw import save_picture

                save_picture(picture, png_path)
                console.print(f"wrote {png_path}")
            for miss in picture.missed:
                console.print(f"gold {miss.turn_id}: {miss.reason}")
            return
        if as_cypher:
            click.echo(memory.evidence_cypher(result))
            return
        if as_json:
            click.echo(dump_json(result.model_dump(mode="json")))
        else:
            _print_hits(result, explain=True)
            _print_decisions(memory, question, result)


def _print_decisions(memory: Memory, question: str, result: SearchResult) -> None:
    """The trained truth decisions, each with its calibrated score: the answerability decision
    on the facts the question read (which `answerable` above used, past its thresholds,
    `kgmem.retrieve.answerable_model`), the supersession the current values rest on, and the
    answerability and attribution of each hit."""
    from kgmem.retrieve.answerable_model import ABSTAIN, RESCUE
    from kgmem.truth.explain import explain_hits

    detail = result.answerability
    trained = detail.get("trained")
    if trained is None:
        console.print("trained answerability: not scored (the question names no person)")
    else:
        console.print(
            f"trained answerability: best 'answers' {trained:.2f} ({detail.get('trained_fact')})"
            f"; rescue at {RESCUE}, abstain below {ABSTAIN} -> answerable={result.answerable}",
            markup=False,
        )
    for decision in result.current:
        console.print(
            f"current value on {decision.get('key')}: {decision.get('winner')} "
            f"({decision.get('reason')})",
            markup=False,
        )
    hits = [(h.turn_id, h.speaker, h.text) for h in result.hits]
    decisions, (ok, best) = explain_hits(memory.embedder, question, hits)
    console.print(f"trained decisions per hit: some hit answers={ok} (best {best:.2f})")
    for item in decisions:
        console.print(
            f"  {item.turn_id}: answerability {item.answer.label} {item.answer.score:.2f}"
            f" · attribution {item.attribution.label} {item.attribution.score:.2f}",
            markup=False,
        )


def _print_facts(rows: list[dict[str, object]], as_json: bool) -> None:
    if as_json:
        click.echo(dump_json(rows))
        return
    for row in rows:
        start = str(row.get("valid_from") or "?")[:10]
        end = str(row.get("valid_to") or "")[:10] or "now"
        superseded = f", superseded by {row['superseded_by']}" if row.get("superseded_by") else ""
        console.print(f"{row['id']}  serial {row['serial']}  valid {start} -> {end}{superseded}")
        cites = ", ".join(str(c) for c in row.get("cites") or [])  # type: ignore[attr-defined]
        console.print(f"    {row['text']}" + (f"   (cites {cites})" if cites else ""))


@click.command()
@click.argument("name")
@click.option(
    "--conversation",
    "conversation_id",
    default=None,
    help="Conversation to read (or --owner for all of an owner's).",
)
@click.option(
    "--owner", default=None, help="Gather NAME's values from all conversations of this owner."
)
@click.option("--history", "with_history", is_flag=True, help="Add superseded values.")
@json_option()
@click.pass_context
def profile(
    ctx: click.Context,
    name: str,
    conversation_id: str | None,
    owner: str | None,
    with_history: bool,
    as_json: bool,
) -> None:
    """Every current attribute value of NAME, grouped by attribute, with cited turns and
    validity (docs/attributes.md)."""
    if conversation_id is None and owner is None:
        raise click.UsageError("give --conversation ID or --owner ID")
    with memory_from(ctx) as memory:
        found = memory.profile(conversation_id, name, history=with_history, owner=owner)
    if as_json:
        click.echo(dump_json(found))
        return
    if not found:
        console.print("no attribute values in memory")
    for attribute, values in found.items():
        console.print(f"{attribute}:", markup=False)
        for v in values:
            state = "current" if v["current"] else f"until {v['valid_to']}"
            thing = f" ({v['thing']})" if v["thing"] else ""
            where = f" in {v['conversation_id']}" if conversation_id is None else ""
            console.print(
                f"  {v['value']!r}{thing} [{v['value_type']}; {v['modality']}] from "
                f"{v['valid_from']} {state}; turns {', '.join(v['cites'])}{where}",
                markup=False,
            )


@click.command()
@click.argument("entity")
@click.argument("relation")
@click.option("--conversation", "conversation_id", required=True)
@json_option()
@click.pass_context
def current(
    ctx: click.Context, entity: str, relation: str, conversation_id: str, as_json: bool
) -> None:
    """The current value of ENTITY's RELATION (latest serial on the supersession key)."""
    with memory_from(ctx) as memory:
        fact = memory.current(conversation_id, entity, relation)
    _print_facts([fact] if fact else [], as_json)
    if fact is None and not as_json:
        console.print("no value in memory")


@click.command()
@click.argument("entity")
@click.argument("relation")
@click.option("--conversation", "conversation_id", required=True)
@json_option()
@click.pass_context
def history(
    ctx: click.Context, entity: str, relation: str, conversation_id: str, as_json: bool
) -> None:
    """Every value ENTITY's RELATION has had, oldest first, with its SUPERSEDES chain."""
    with memory_from(ctx) as memory:
        rows = memory.history(conversation_id, entity, relation)
    _print_facts(rows, as_json)


@click.command()
@click.argument("question")
@click.option("--conversation", "conversation_id", required=True)
@json_option("Print JSON (answer, hops, cited turns).")
@click.pass_context
def chain(ctx: click.Context, question: str, conversation_id: str, as_json: bool) -> None:
    """Answer a chain QUESTION ("the capital of the country of citizenship of the spouse of X")
    by following lexicon relations over current values; every hop shows its fact and turn."""
    with memory_from(ctx) as memory:
        result = memory.chain(question, conversation_id)
    if as_json:
        click.echo(dump_json(result.as_dict()))
        return
    if result.answer is None:
        console.print("no chain found" + (f" from {result.base}" if result.base else ""))
        return
    console.print(f"{result.answer}  (from {result.base}, score {result.score:.2f})")
    for hop in result.hops:
        state = "current" if hop.latest else "older value"
        cites = ", ".join(hop.cites)
        console.print(f"  {hop.relation} -> {hop.object_name}  [{state}; {cites}]  {hop.text}")
    if result.relaxations:
        console.print("  relaxed: " + "; ".join(result.relaxations))
