"""``kgmem bench beam``: evidence recall on BEAM's long user/assistant chats."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.table import Table

from kgmem.cli._bench_options import ks_list, report_options
from kgmem.cli._common import console, dump_json, memory_from, progress_bar

__all__ = ["bench_beam"]


def _row_line(row: dict[str, Any]) -> str:
    """One row's figures beside the recall table: updated first, contradictions, instructions,
    ordering, abstention and read times."""
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
                f"{a} {ins[a]['recall']}" for a in ("instruction_following", "preference_following")
            )
            + f", per search {ins['per_search']}"
        )
    od = row.get("ordering")
    if od and od["n"]:
        line += f"; ordering read {od['read_as_ordering']}, pairs in order "
        line += f"{od['pairwise_in_order']} (n {od['n']})"
    if row.get("abstention"):
        ab = row["abstention"]
        line += f"; abstention P {ab['precision']} R {ab['recall']} false {ab['false_abstention']}"
    if row.get("read_ms"):
        r = row["read_ms"]
        line += (
            f"; read p50 {r['p50']} ms p95 {r['p95']} ms mean {r['mean']} ms"
            f" (first after an ingest {r['first']} ms)"
        )
    return line


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
        console.print(_row_line(row), markup=False)
    ingest, floor = report.get("ingest"), report["embedding_only"]
    if ingest:
        console.print(
            f"ingest {ingest['turns_per_s']} turns/s, {ingest['bytes_per_s']:,.0f} bytes/s "
            f"({ingest['seconds']} s, {ingest['over_embedding']}x its "
            f"{ingest['embedding_seconds']} s in the embedder); whole turns embedded only "
            f"{floor['turns_per_s']} turns/s",
            markup=False,
        )


@click.command("beam")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--chat", "chats", multiple=True, help="Only these chat directories (names).")
@click.option(
    "--k",
    "ks",
    default="5,10,20",
    show_default=True,
    callback=lambda _c, _p, v: ks_list(v),
    help="Cut-offs.",
)
@click.option(
    "--reuse",
    is_flag=True,
    help="Keep chats already stored with the same turns (no ingest timing) instead of "
    "ingesting them afresh.",
)
@report_options
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
    instructions, ordering, abstention, ingest and read speed, beside plain cosine over whole
    turns."""
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
