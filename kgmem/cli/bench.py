"""``kgmem bench locomo|mab``: benchmarks that print (and optionally write) JSON reports."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, cast

import click
from rich.table import Table

from kgmem.bench.ablation import ablation_rows, default_row
from kgmem.bench.locomo import run_locomo_bench
from kgmem.cli._bench_options import ks_list as _ks
from kgmem.cli._bench_options import report_options as _report_options
from kgmem.cli._common import console, dump_json, memory_from, progress_bar, settings_from
from kgmem.cli.bench_beam import bench_beam
from kgmem.cli.bench_scale import bench_scale
from kgmem.cli.locomo_report import print_cv, print_locomo
from kgmem.config import DEFAULT_K
from kgmem.errors import KgmemError
from kgmem.retrieve.config import FactSourceChoice

_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)


@click.group()
def bench() -> None:
    """Benchmarks (LoCoMo and BEAM evidence recall, MemoryAgentBench FactConsolidation, scale)."""


bench.add_command(bench_scale)
bench.add_command(bench_beam)


@bench.command("filters")
@click.option(
    "--owners",
    "owner_counts",
    default="1,100",
    show_default=True,
    help="Store sizes to measure, in owners (comma-separated).",
)
@click.option(
    "--turns-per-owner",
    default=200,
    show_default=True,
    type=click.IntRange(min=40),
    help="Turns of each synthetic owner (two threads); 500 at 100 owners = 50,000 turns.",
)
@click.option(
    "--searches",
    default=20,
    show_default=True,
    type=click.IntRange(min=1),
    help="Timed searches per store size and filter.",
)
@click.option("-q", "--quiet", is_flag=True, help="No progress lines.")
@click.pass_context
def bench_filters(
    ctx: click.Context, owner_counts: str, turns_per_owner: int, searches: int, quiet: bool
) -> None:
    """What owners and search filters cost: read-path p50/p95 per filter at each store size,
    and whether each filter returned exactly its 3 turns, as JSON (kgmem.bench.filters).
    Synthetic owners are written and forgotten again; figures are indicative on a loaded
    machine."""
    from kgmem.bench.filters import run_filters
    from kgmem.cli.bench_scale import _counts

    def progress(stage: str, done: int, total: int) -> None:
        if not quiet and done == total:
            click.echo(f"{stage}: {done}/{total}", err=True)

    with memory_from(ctx) as memory:
        report = run_filters(
            memory,
            owner_counts=_counts(owner_counts),
            turns_per_owner=turns_per_owner,
            searches=searches,
            progress=progress,
        )
    click.echo(dump_json(report))


@bench.command("locomo")
@click.argument("file", type=_FILE)
@click.option("--conversation", "conversations", multiple=True, help="Only these sample ids.")
@click.option(
    "--k",
    "ks",
    default="5,10,20",
    show_default=True,
    callback=lambda _c, _p, v: _ks(v),
    help="Cut-offs.",
)
@click.option(
    "--engine", type=click.Choice(["cosine", "linked"]), default="linked", show_default=True
)
@click.option(
    "--facts",
    "fact_sources",
    type=click.Choice(["annotation", "extracted", "both"]),
    default="both",
    show_default=True,
    help="Fact sources the engine reads.",
)
@click.option(
    "--ablate", is_flag=True, help="One row per added term/generator (cosine → +facts → ...)."
)
@click.option(
    "--cv",
    is_flag=True,
    help="Leave-one-conversation-out: choose among the ablation rows on the other "
    "conversations, score the held-out one, rotate (implies --ablate).",
)
@click.option(
    "--owner-split",
    default=0,
    type=click.IntRange(min=0),
    help="Store each conversation's sessions as N threads of one owner and answer with one "
    "owner search (0: off).",
)
@click.option(
    "--gold",
    type=click.Choice(["raw", "corrected"]),
    default="raw",
    show_default=True,
    help="corrected: also score against an audit file's corrected evidence and plain answers, "
    "beside the raw figures (see --audit).",
)
@click.option(
    "--audit",
    type=_FILE,
    help="The audit file for --gold corrected (default: audit-errors-<X>.json beside a FILE "
    "named locomo-<X>.json).",
)
@click.option(
    "--reader",
    "reader_url",
    metavar="URL",
    help="Answer with the citation-locked reader at this OpenAI-compatible API root "
    "(e.g. http://127.0.0.1:8080/v1) and report token F1/EM (needs --model).",
)
@click.option("--model", "reader_model", metavar="NAME", help="The reader's model name.")
@_report_options
@click.pass_context
def bench_locomo(
    ctx: click.Context,
    file: Path,
    conversations: tuple[str, ...],
    ks: list[int],
    engine: str,
    fact_sources: str,
    ablate: bool,
    cv: bool,
    owner_split: int,
    gold: str,
    audit: Path | None,
    reader_url: str | None,
    reader_model: str | None,
    json_path: Path | None,
    quiet: bool,
) -> None:
    """Evidence recall on a LoCoMo-layout FILE (ALL/ANY/R@k, MRR, NDCG, grades, latency, with
    bootstrap 95 % intervals), the context each k costs, and answer-level F1/EM floors; with
    --reader, a reader's F1/EM."""
    settings = settings_from(ctx)
    if bool(reader_url) != bool(reader_model):
        raise click.UsageError("--reader and --model go together")
    audit_file = _audit_file(file, audit) if gold == "corrected" else None
    sources = cast(FactSourceChoice, fact_sources)
    rows = (
        ablation_rows(settings, sources)
        if ablate or cv
        else [default_row(settings, cast(Literal["cosine", "linked"], engine), sources)]
    )
    reader = None
    if reader_url and reader_model:
        from kgmem.reader import Reader

        key = settings.reader_api_key.get_secret_value() if settings.reader_api_key else None
        reader = Reader(
            reader_url,
            reader_model,
            api_key=key,
            max_tokens=settings.reader_max_tokens,
            timeout_s=settings.reader_timeout_s,
        )
    try:
        with memory_from(ctx) as memory, progress_bar(not quiet) as progress:
            report = run_locomo_bench(
                memory,
                file,
                conversations=conversations or None,
                ks=ks,
                rows=rows,
                progress=progress,
                cv=cv,
                owner_split=owner_split,
                audit=audit_file,
                reader=reader,
            )
    except KgmemError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        if reader is not None:
            reader.close()
    if json_path is not None and str(json_path) == "-":
        click.echo(dump_json(report))
        return
    if json_path is not None:
        json_path.write_text(dump_json(report) + "\n", encoding="utf-8")
    print_locomo(report)
    if cv:
        print_cv(report["cv"])


def _audit_file(file: Path, audit: Path | None) -> Path:
    """The audit file of --gold corrected: --audit, else audit-errors-<X>.json beside FILE."""
    if audit is not None:
        return audit
    stem = file.stem
    if stem.startswith("locomo-"):
        guess = file.with_name(f"audit-errors-{stem.removeprefix('locomo-')}.json")
        if guess.is_file():
            return guess
    raise click.UsageError("--gold corrected needs --audit PATH (no audit-errors file beside FILE)")


@bench.command("mab")
@click.argument("file", type=_FILE)
@_report_options
@click.pass_context
def bench_mab(ctx: click.Context, file: Path, json_path: Path | None, quiet: bool) -> None:
    """MemoryAgentBench FactConsolidation through Memory with no reader: each fact list is
    ingested as a conversation, each question answered by the chain operator."""
    from kgmem.bench.mab import run_mab_bench

    with memory_from(ctx) as memory, progress_bar(not quiet) as progress:
        memory.apply_schema()
        tick = (lambda n: progress("questions", n, 0)) if progress else None
        report = run_mab_bench(memory, file, progress=tick)
    if json_path is not None and str(json_path) == "-":
        click.echo(dump_json(report))
        return
    if json_path is not None:
        json_path.write_text(dump_json(report) + "\n", encoding="utf-8")
    table = Table("lane", "n", "accuracy (substring EM)")
    for lane, data in report["lanes"].items():
        table.add_row(lane, str(data["n"]), f"{data['accuracy']:.1f}")
    overall = report["overall"]
    table.add_row(
        "overall",
        str(overall.get("n", report.get("n_questions", ""))),
        f"{overall['accuracy']:.1f}",
    )
    console.print(table)
    console.print(
        f"latency per question p50 {report['latency_ms']['p50']:.1f} ms, p95 "
        f"{report['latency_ms']['p95']:.1f} ms; unanswered: {report['unanswered']}"
    )


@bench.command("cases")
@click.argument("file", type=_FILE)
@_report_options
@click.pass_context
def bench_cases(ctx: click.Context, file: Path, json_path: Path | None, quiet: bool) -> None:
    """Run a cases FILE (schema cases/1) exactly as its `about` says: pass/fail per query and
    per constraint, with totals; `procedure` cases are skipped. Conversations with the cases'
    ids are replaced. Exit status 1 when a check fails."""
    from kgmem.bench.cases import load_cases, run_cases

    try:
        data = load_cases(file)
    except KgmemError as exc:
        raise click.ClickException(str(exc)) from exc
    with memory_from(ctx) as memory:
        report = run_cases(memory, data)
    if json_path is not None and str(json_path) == "-":
        click.echo(dump_json(report))
    else:
        if json_path is not None:
            json_path.write_text(dump_json(report) + "\n", encoding="utf-8")
        if True:
            for case in report["cases"]:
                console.print(f"{case['id']}  {case['status']}  {case['kind']}", markup=False)
                for check in case["checks"]:
                    mark = "PASS" if check["passed"] else "FAIL"
                    what = {
                        "query": lambda c: (
                            f"query {c['query']!r}"
                            + (f" as_of {c['as_of']}" if c.get("as_of") else "")
                        ),
                        "current": lambda c: f"current {c['entity']} {c['relation']}",
                        "facts": lambda c: (
                            f"facts of {c['turn']}"
                            + (f" about {c['about']!r}" if c.get("about") else "")
                        ),
                        "forgotten": lambda c: f"forgotten {c['turn']} {c['text']!r}",
                    }[check["kind"]](check)
                    console.print(f"  {mark}  {what}", markup=False)
                    for failure in check["failures"]:
                        console.print(f"        {failure}", markup=False)
        t = report["totals"]
        console.print(
            f"checks: {t['passed']} passed, {t['failed']} failed of {t['checks']}; cases: "
            f"{t['cases_passed']} passed, {t['cases_failed']} failed, {t['skipped_cases']} skipped"
        )
    if report["totals"]["failed"]:
        ctx.exit(1)


@bench.command("agent-session")
@click.argument("file", type=_FILE)
@click.option("--conversation", "conversations", multiple=True, help="Only these sample ids.")
@click.option(
    "--via",
    type=click.Choice(["mcp", "direct"]),
    default="mcp",
    show_default=True,
    help="mcp: search_memory tool calls through the MCP SDK client; direct: kgmem.steer "
    "in-process.",
)
@click.pass_context
def bench_agent_session(
    ctx: click.Context, file: Path, conversations: tuple[str, ...], via: str
) -> None:
    """A scripted three-call agent session (question; next page; exact name or speaker) against
    one call with k=30: union recall of gold turns per LoCoMo category; prints JSON
    (kgmem.bench.interface). Ingests the conversations if they are not stored."""
    from kgmem.bench.interface import agent_session

    with memory_from(ctx) as memory:
        report = agent_session(memory, file, list(conversations) or None, via=via)
    click.echo(dump_json(report))


@bench.command("http")
@click.argument("file", type=_FILE)
@click.option(
    "--conversation", default="conv-41", show_default=True, help="The sample id to measure."
)
@click.option("--k", default=DEFAULT_K, show_default=True, type=click.IntRange(min=1), help="Hits.")
@click.option("--warmup", default=20, show_default=True, type=click.IntRange(min=0))
@click.option("--limit", type=click.IntRange(min=1), help="Time only the first N questions.")
@click.pass_context
def bench_http(
    ctx: click.Context, file: Path, conversation: str, k: int, warmup: int, limit: int | None
) -> None:
    """POST /search of the HTTP API (served in this process, over loopback TCP) against
    Memory.search in-process, interleaved on one conversation's questions; prints JSON with
    p50/p95 in ms (kgmem.bench.interface)."""
    from kgmem.bench.interface import http_latency

    with memory_from(ctx) as memory:
        report = http_latency(memory, file, conversation, k=k, warmup=warmup, limit=limit)
    click.echo(dump_json(report))


@bench.command("latency")
@click.argument("file", type=_FILE)
@click.option(
    "--conversation", default="conv-41", show_default=True, help="The sample id to measure."
)
@click.option(
    "--peer-python",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Python of an environment with neo4j-agent-memory installed (omit: kgmem alone).",
)
@click.option(
    "--peer-extraction",
    type=click.Choice(["spacy", "none"]),
    default="spacy",
    show_default=True,
    help="The peer's entity extractor at ingest (never an LLM).",
)
@click.option("--k", default=DEFAULT_K, show_default=True, type=click.IntRange(min=1), help="Hits.")
@click.option(
    "--warmup",
    default=20,
    show_default=True,
    type=click.IntRange(min=0),
    help="Untimed questions run by both first.",
)
@click.option(
    "--limit", type=click.IntRange(min=1), help="Time only the first N questions (default all)."
)
@click.option(
    "--clients",
    default=0,
    show_default=True,
    type=click.IntRange(min=0),
    help="Concurrent clients of a throughput phase after the interleaved one (0: none).",
)
@click.option(
    "--seconds",
    default=60.0,
    show_default=True,
    type=click.FloatRange(min=0, min_open=True),
    help="How long each side of the throughput phase runs.",
)
@click.option("-q", "--quiet", is_flag=True, help="No progress lines.")
@click.pass_context
def bench_latency(
    ctx: click.Context,
    file: Path,
    conversation: str,
    peer_python: Path | None,
    peer_extraction: str,
    k: int,
    warmup: int,
    limit: int | None,
    clients: int,
    seconds: float,
    quiet: bool,
) -> None:
    """Side-by-side end-to-end search latency of kgmem and the peer neo4j-agent-memory on the
    same server and the same questions of FILE, interleaved one by one, then (--clients N)
    the throughput of N concurrent clients of each; prints JSON (kgmem.bench.latency). Use an
    empty private server: both systems write there."""
    from kgmem.bench.latency import run_latency

    def progress(stage: str, done: int, total: int) -> None:
        if not quiet and (done % 50 == 0 or done == total):
            click.echo(f"{stage}: {done}/{total}", err=True)

    with memory_from(ctx) as memory:
        try:
            report = run_latency(
                memory,
                file,
                conversation=conversation,
                peer_python=peer_python,
                peer_extraction=peer_extraction,
                k=k,
                warmup=warmup,
                limit=limit,
                clients=clients,
                seconds=seconds,
                progress=progress,
            )
        except KgmemError as exc:
            raise click.ClickException(str(exc)) from exc
    click.echo(dump_json(report))


@bench.command("truth")
@click.option(
    "--cases",
    "case_files",
    type=_FILE,
    multiple=True,
    help="Cases files (schema cases/1) to run through Memory after the split figures.",
)
@_report_options
@click.pass_context
def bench_truth(
    ctx: click.Context, case_files: tuple[Path, ...], json_path: Path | None, quiet: bool
) -> None:
    """The truth decisions on the corpus's frozen test split (dev beside): per-class precision
    and recall, macro-F1 with a 95 % bootstrap interval, ECE; then each --cases FILE through
    the public API, as `kgmem bench cases` runs it."""
    from kgmem.bench.truth import run_truth_bench
    from kgmem.errors import MalformedInput
    from kgmem.truth.corpus import CorpusError

    try:
        report = run_truth_bench()
    except CorpusError as exc:
        raise MalformedInput(str(exc)) from None
    if case_files:
        from kgmem.bench.cases import load_cases, run_cases

        report["cases"] = {}
        with memory_from(ctx) as memory:
            memory.apply_schema()
            for file in case_files:
                result = run_cases(memory, load_cases(file))
                report["cases"][file.name] = result.get("totals", result)
    if json_path is not None and str(json_path) == "-":
        click.echo(dump_json(report))
        return
    if json_path is not None:
        json_path.write_text(dump_json(report) + "\n", encoding="utf-8")
    table = Table("decision", "test macro-F1 [95% CI]", "dev macro-F1 [95% CI]", "gap", "test ECE")
    for name, data in report["decisions"].items():
        t, d = data["test"], data["dev"]
        table.add_row(
            name,
            f"{t['macro_f1']:.3f} [{t['macro_f1_ci95'][0]:.3f}, {t['macro_f1_ci95'][1]:.3f}]",
            f"{d['macro_f1']:.3f} [{d['macro_f1_ci95'][0]:.3f}, {d['macro_f1_ci95'][1]:.3f}]",
            f"{data['gap_points']:+.1f}",
            f"{t['ece']:.3f}",
        )
    console.print(table)
    if report.get("agreement"):
        agreed = Table("decision", "second annotator vs writers: macro-F1 [95% CI]", "kappa", "n")
        for name, data in report["agreement"].items():
            ci = data["macro_f1_ci95"]
            agreed.add_row(
                name, f"{data['macro_f1']:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]",
                f"{data['kappa']:.3f}", str(data["n"]),
            )  # fmt: skip
        console.print(agreed)
    lat = report["latency"]
    console.print(
        f"per statement ({lat['candidates']} candidates) p50 "
        f"{lat['relation_per_statement']['p50_ms']:.2f} ms; per question ({lat['facts_read']} "
        f"facts) p50 {lat['answerability_per_question']['p50_ms']:.2f} ms cold, "
        f"{lat['answerability_per_question_warm']['p50_ms']:.2f} ms warm"
    )
    for file, totals in report.get("cases", {}).items():
        console.print(f"{file}: {dump_json(totals, compact=True)}")
