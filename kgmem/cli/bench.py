"""``kgmem bench locomo|mab``: benchmarks that print (and optionally write) JSON reports."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

import click
from rich.table import Table

from kgmem.bench.ablation import ablation_rows, default_row
from kgmem.bench.locomo import run_locomo_bench
from kgmem.cli._common import console, dump_json, memory_from, progress_bar, settings_from
from kgmem.cli.bench_scale import bench_scale
from kgmem.errors import KgmemError
from kgmem.retrieve.config import FactSourceChoice

F = TypeVar("F", bound=Callable[..., Any])
_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)
CATEGORIES = {
    "1": "multi-hop",
    "2": "temporal",
    "3": "open-domain",
    "4": "single-hop",
    "all": "overall",
}


def _ks(value: str) -> list[int]:
    try:
        ks = sorted({int(part) for part in value.split(",") if part.strip()})
    except ValueError as exc:
        raise click.BadParameter("k list must look like 5,10,20") from exc
    if not ks or ks[0] < 1:
        raise click.BadParameter("every k must be >= 1")
    return ks


def _report_options(command: F) -> F:
    """``--json PATH`` and ``-q/--quiet``, shared by every benchmark command."""
    command = click.option("-q", "--quiet", is_flag=True, help="No progress bar.")(command)
    return click.option(
        "--json",
        "json_path",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Write the JSON report here ('-' = stdout).",
    )(command)


@click.group()
def bench() -> None:
    """Benchmarks (LoCoMo and BEAM evidence recall, MemoryAgentBench FactConsolidation, scale)."""


bench.add_command(bench_scale)


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


def _print_locomo(report: dict[str, Any]) -> None:
    ks = report["ks"]
    k_main = 10 if 10 in ks else ks[len(ks) // 2]
    counts = report["counts"]
    console.print(
        f"LoCoMo {', '.join(report['conversations'])}: {counts['scored']} scored questions "
        f"(cat 5 adversarial: {counts['adversarial']}), {counts['turns']} turns, "
        f"unresolved evidence ids: {counts['unresolved_evidence']}"
    )
    others = report.get("other_conversations", 0)
    if others:
        console.print(
            f"[yellow]note: the server holds {others} other conversation(s); BM25 statistics are "
            "index-wide, so figures can differ from a run on an empty server[/yellow]"
        )
    cov = report.get("coverage")
    if cov:
        cited = cov["gold_turns_cited"]
        console.print(
            "fact coverage of gold turns (all / multi-hop / temporal / open / single): "
            + "; ".join(
                f"{src} "
                + " / ".join(f"{100 * cited[src][c]:.1f}" for c in ("all", "1", "2", "3", "4"))
                for src in ("annotation", "extracted", "any")
            )
            + f"; facts per turn: annotation {cov['facts_per_turn']['annotation']:.2f},"
            f" extracted {cov['facts_per_turn']['extracted']:.2f}; temporal questions whose gold"
            f" turns carry a dated fact: {100 * cov['temporal_dated']:.1f}%"
        )
    for row in _all_rows(report):
        table = Table(title=f"{row['name']}", title_justify="left")
        table.add_column("category")
        table.add_column("n", justify="right")
        for k in ks:
            table.add_column(f"ALL@{k}", justify="right")
        for k in ks:
            table.add_column(f"ANY@{k}", justify="right")
        table.add_column(f"R@{k_main}", justify="right")
        table.add_column("MRR", justify="right")
        table.add_column(f"NDCG@{k_main}", justify="right")
        table.add_column("pool", justify="right")
        table.add_column("pool ALL", justify="right")
        table.add_column(f"ALL@{k_main} 95% CI", justify="right")
        for key, label in CATEGORIES.items():
            m = row["metrics"].get(key)
            if m is None:
                continue
            table.add_row(
                label,
                str(m["n"]),
                *(f"{100 * m['all_at'][str(k)]:.1f}" for k in ks),
                *(f"{100 * m['any_at'][str(k)]:.1f}" for k in ks),
                f"{100 * m['recall_at'][str(k_main)]:.1f}",
                f"{100 * m['mrr']:.1f}",
                f"{100 * m['ndcg_at'][str(k_main)]:.1f}",
                f"{m['candidates']:.0f}",
                f"{100 * m.get('pool_all', 0.0):.1f}",
                _ci(m.get("ci", {}).get("all_at", {}).get(str(k_main))),
            )
        console.print(table)
        lat = row["latency_ms"]
        grades = row["grades"]
        console.print(
            f"  EXACT@{k_main} {100 * grades['exact_at'][str(k_main)]:.1f}  "
            f"SUPPORTED@{k_main} {100 * grades['supported_at'][str(k_main)]:.1f}  "
            f"read path p50 {lat['read_path']['p50']:.1f} ms p95 {lat['read_path']['p95']:.1f} ms "
            f"(neo4j p50 {lat['neo4j']['p50']:.1f} ms); query embedding p50 "
            f"{report['embedding_ms'].get('p50', 0):.1f} ms"
        )
        paired = row.get("vs_shipped")
        if paired:
            console.print(
                f"  vs {paired['shipped']}: ALL@{paired['k']} gained {paired['row_only']}, lost "
                f"{paired['reference_only']} questions; McNemar p = {paired['p']:.3g}"
                + (" (beyond noise)" if paired["beyond_noise"] else " (within noise)")
            )
    _print_floors(report)


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
    _print_locomo(report)
    if cv:
        _print_cv(report["cv"])


def _all_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The report's rows, then the shipped reference row if the run added one."""
    return [*report["rows"], *([report["shipped"]] if "shipped" in report else [])]


def _ci(interval: list[float] | None) -> str:
    return f"{100 * interval[0]:.1f}-{100 * interval[1]:.1f}" if interval else ""


def _print_floors(report: dict[str, Any]) -> None:
    """The answer-level floors, the context cost, corrected gold and the reader, for the row
    the reader used, else the shipped configuration's, else the first."""
    rows = report["rows"]
    if not rows:
        return
    paired = next((r["vs_shipped"]["shipped"] for r in rows if "vs_shipped" in r), None)
    named = report.get("reader", {}).get("row") or paired
    row = next((r for r in _all_rows(report) if r["name"] == named), rows[0])
    table = Table(title=f"answer-level floor, LoCoMo F1 / EM ({row['name']})", title_justify="left")
    for col in (
        "category",
        "answer n",
        "answer F1",
        "answer EM",
        "extractive n",
        "extr. F1",
        "extr. F1 95% CI",
        "extr. EM",
    ):
        table.add_column(col, justify="right")
    answers = row["answers"]
    for key, label in CATEGORIES.items():
        a, e = answers["answer"].get(key), answers["extractive"].get(key)
        if e is None:
            continue
        table.add_row(
            label,
            str(a["n"]) if a else "0",
            f"{100 * a['f1']:.1f}" if a else "",
            f"{100 * a['em']:.1f}" if a else "",
            str(e["n"]),
            f"{100 * e['f1']:.1f}",
            _ci(e["f1_ci"]),
            f"{100 * e['em']:.1f}",
        )
    console.print(table)
    console.print(
        "  context cost (overall): "
        + "; ".join(
            f"k={c['k']}: {c['tokens']:.0f} tokens ({c['words']:.0f} words), ALL "
            f"{100 * c['all_at']:.1f}, answer string in context {100 * c['contains_answer']:.1f}"
            for c in row["context_cost"]
        )
    )
    if "corrected" in row:
        k = str(report["k_main"])
        raw, fixed = row["metrics"]["all"], row["corrected"]["metrics"]["all"]
        gold = report.get("gold", {})
        console.print(
            f"  corrected gold ({gold.get('evidence_corrected', 0)} evidence, "
            f"{gold.get('answers_corrected', 0)} answers corrected, "
            f"{gold.get('answers_left_out', 0)} answers left out): ALL@{k} raw "
            f"{100 * raw['all_at'][k]:.1f} [{_ci(raw['ci']['all_at'][k])}], corrected "
            f"{100 * fixed['all_at'][k]:.1f} [{_ci(fixed['ci']['all_at'][k])}]"
        )
    shipped = report.get("answerability", {}).get("shipped")
    if shipped and "precision_ci" in shipped:
        console.print(
            f"  answerable=False vs category 5: precision {100 * shipped['precision']:.1f} "
            f"[{_ci(shipped['precision_ci'])}], recall {100 * shipped['recall']:.1f} "
            f"[{_ci(shipped['recall_ci'])}]"
        )
    reader = report.get("reader")
    if reader:
        overall = reader["scores"].get("all", {})
        console.print(
            f"  reader {reader['model']} over the top {reader['k']} of {reader['row']}: F1 "
            f"{100 * overall.get('f1', 0):.1f} [{_ci(overall.get('f1_ci'))}], EM "
            f"{100 * overall.get('em', 0):.1f}; answered {reader['answered']}, abstained "
            f"{reader['abstained']}; answers citing a gold turn {100 * reader['cited_gold']:.1f}%"
        )


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


def _print_cv(cv: dict[str, Any]) -> None:
    if "skipped" in cv:
        console.print(f"LOCO-CV skipped: {cv['skipped']}")
        return
    crit = cv["criterion"]
    k = crit.split("@")[1]
    table = Table(title=f"leave-one-conversation-out ({crit})", title_justify="left")
    for col in ("held out", "chosen on the other conversations", "train", "held-out"):
        table.add_column(col)
    for fold in cv["folds"]:
        table.add_row(
            fold["held_out"],
            fold["chosen"],
            f"{100 * fold['train']:.1f}",
            f"{100 * fold['test']:.1f}",
        )
    console.print(table)
    cross, ins = cv["cv"]["all"], cv["in_sample"]["metrics"]["all"]
    console.print(
        f"LOCO-CV R@{k} {100 * cross['recall_at'][k]:.1f} ALL@{k} {100 * cross['all_at'][k]:.1f}"
        f" | in-sample R@{k} {100 * ins['recall_at'][k]:.1f} ALL@{k} {100 * ins['all_at'][k]:.1f}"
        f" ({cv['in_sample']['chosen']})"
    )


def _print_beam(report: dict[str, Any]) -> None:
    ks = report["ks"]
    counts = report["counts"]
    console.print(
        f"BEAM {report['dir']}: {counts['chats']} chats, {counts['turns']} turns, "
        f"{counts['bytes']:,} bytes; {counts['questions']} questions, "
        f"{counts['with_evidence']} with evidence ids; evidence ids missing from the chats: "
        f"{counts['missing_evidence_ids']}",
        markup=False,
    )
    if report.get("other_conversations"):
        console.print(
            f"note: the server holds {report['other_conversations']} other conversation(s); "
            "BM25 statistics are index-wide",
            markup=False,
        )
    abilities = sorted({a for row in report["rows"] for a in row["metrics"]} - {"all"})
    table = Table(title="evidence recall", title_justify="left")
    table.add_column("row")
    table.add_column("ability")
    table.add_column("n", justify="right")
    for k in ks:
        table.add_column(f"ANY@{k}", justify="right")
    for k in ks:
        table.add_column(f"ALL@{k}", justify="right")
    table.add_column("MRR", justify="right")
    for row in report["rows"]:
        for ability in ["all", *abilities]:
            m = row["metrics"].get(ability)
            if m is None:
                continue
            table.add_row(
                row["name"],
                "overall" if ability == "all" else ability,
                str(m["n"]),
                *(f"{100 * (m['any_at'][str(k)] or 0):.1f}" for k in ks),
                *(f"{100 * (m['all_at'][str(k)] or 0):.1f}" for k in ks),
                f"{100 * (m['mrr'] or 0):.1f}",
            )
    console.print(table)
    for row in report["rows"]:
        ku, cr = row["knowledge_update"], row["contradiction"]
        line = (
            f"{row['name']}: updated first {ku['updated_first']} (n {ku['n']}); "
            f"contradiction both {cr['both']}, flagged {cr['both_flagged']} (n {cr['n']})"
        )
        if row.get("instructions"):
            ins = row["instructions"]
            line += (
                "; instructions recall "
                + ", ".join(
                    f"{a} {ins[a]['recall']}"
                    for a in ("instruction_following", "preference_following")
                )
                + f", per search {ins['per_search']}"
            )
        if row.get("abstention"):
            ab = row["abstention"]
            line += (
                f"; abstention P {ab['precision']} R {ab['recall']} false {ab['false_abstention']}"
            )
        if row.get("read_ms"):
            r = row["read_ms"]
            line += f"; read p50 {r['p50']} ms p95 {r['p95']} ms (first {r['first']} ms)"
        console.print(line, markup=False)
    ingest, floor = report.get("ingest"), report["embedding_only"]
    if ingest:
        console.print(
            f"ingest {ingest['turns_per_s']} turns/s, {ingest['bytes_per_s']:,.0f} bytes/s "
            f"({ingest['seconds']} s); embedding only {floor['turns_per_s']} turns/s",
            markup=False,
        )


@bench.command("beam")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--chat", "chats", multiple=True, help="Only these chat directories (names).")
@click.option(
    "--k",
    "ks",
    default="5,10,20",
    show_default=True,
    callback=lambda _c, _p, v: _ks(v),
    help="Cut-offs.",
)
@click.option(
    "--reuse",
    is_flag=True,
    help="Keep chats already stored with the same turns (no ingest timing) instead of "
    "ingesting them afresh.",
)
@_report_options
@click.pass_context
def bench_beam(
    ctx: click.Context,
    directory: Path,
    chats: tuple[str, ...],
    ks: list[int],
    reuse: bool,
    json_path: Path | None,
    quiet: bool,
) -> None:
    """Evidence recall on BEAM chats in BEAM's own layout (DIRECTORY: one chat, or a directory
    of them such as 100K/): ANY/ALL@k and MRR per ability, knowledge update, contradictions,
    instructions, abstention, ingest and read speed, beside plain cosine over whole turns."""
    from kgmem.bench.beam import run_beam_bench

    with memory_from(ctx) as memory, progress_bar(not quiet) as progress:
        memory.apply_schema()
        report = run_beam_bench(
            memory, directory, chats=chats or None, ks=ks, reuse=reuse, progress=progress
        )
    if json_path is not None and str(json_path) == "-":
        click.echo(dump_json(report))
        return
    if json_path is not None:
        json_path.write_text(dump_json(report) + "\n", encoding="utf-8")
    _print_beam(report)


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
@click.pass_context
def bench_agent_session(ctx: click.Context, file: Path, conversations: tuple[str, ...]) -> None:
    """A scripted three-call agent session (question; next page; exact name or speaker) against
    one call with k=30: union recall of gold turns per LoCoMo category; prints JSON
    (kgmem.bench.interface). Ingests the conversations if they are not stored."""
    from kgmem.bench.interface import agent_session

    with memory_from(ctx) as memory:
        report = agent_session(memory, file, list(conversations) or None)
    click.echo(dump_json(report))


@bench.command("http")
@click.argument("file", type=_FILE)
@click.option(
    "--conversation", default="conv-41", show_default=True, help="The sample id to measure."
)
@click.option("--k", default=10, show_default=True, type=click.IntRange(min=1), help="Hits.")
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
@click.option("--k", default=10, show_default=True, type=click.IntRange(min=1), help="Hits.")
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
    lat = report["latency"]
    console.print(
        f"per statement ({lat['candidates']} candidates) p50 "
        f"{lat['relation_per_statement']['p50_ms']:.2f} ms; per question ({lat['facts_read']} "
        f"facts) p50 {lat['answerability_per_question']['p50_ms']:.2f} ms cold, "
        f"{lat['answerability_per_question_warm']['p50_ms']:.2f} ms warm"
    )
    for file, totals in report.get("cases", {}).items():
        console.print(f"{file}: {dump_json(totals, compact=True)}")
