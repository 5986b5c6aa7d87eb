"""``kgmem bench scale``: the scale benchmark (many tenants, one long conversation)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from kgmem.cli._common import console, dump_json, memory_from, progress_bar

__all__ = ["bench_scale"]


def _counts(value: str) -> tuple[int, ...]:
    """``1,100,1000`` → (1, 100, 1000); ``0`` or ``none`` → ()."""
    if value.strip().lower() in ("", "0", "none"):
        return ()
    try:
        counts = tuple(sorted({int(part) for part in value.split(",") if part.strip()}))
    except ValueError as exc:
        raise click.BadParameter("expected a list like 1,100,1000") from exc
    if counts and counts[0] < 1:
        raise click.BadParameter("every value must be >= 1")
    return counts


@contextmanager
def _progress(quiet: bool) -> Iterator[Callable[[str, int, int], None] | None]:
    """A progress bar on a terminal; one line per stage on a pipe (the run takes minutes)."""
    if quiet:
        yield None
        return
    if sys.stderr.isatty():
        with progress_bar(True) as bar:
            yield bar
        return
    seen: set[str] = set()

    def line(stage: str, _done: int, total: int) -> None:
        if stage not in seen:
            seen.add(stage)
            click.echo(f"{stage} ({total})", err=True)

    yield line


def _ms(p: dict[str, Any]) -> str:
    return f"{p['p50']:.1f} / {p['p95']:.1f}"


def _print(report: dict[str, Any]) -> None:
    table = Table(title="kgmem bench scale", title_justify="left")
    for column in (
        "level",
        "turns/conv",
        "nodes",
        "rels",
        "store MB",
        "write nodes/s",
        "read path p50/p95 ms",
        "exact scan p50/p95 ms",
        "recall@k mean (min)",
        "BM25 sets changed (tenant; dev)",
    ):
        table.add_column(column, justify="left" if column == "level" else "right")
    for entry in report["levels"] + report["long"]:
        bm25 = entry["bm25"]
        tenant = bm25.get("tenant")
        dev = bm25.get("dev")
        drift = (
            (f"{tenant['turn_sets_changed']}+{tenant['fact_sets_changed']}/{tenant['questions']}"
             if tenant else "-")
            + "; "
            + (f"{dev['turn_sets_changed']}+{dev['fact_sets_changed']}/{dev['questions']}"
               if dev else "-")
        )  # fmt: skip
        recall = entry["recall"]
        size = entry["store_bytes"]
        table.add_row(
            entry["name"],
            str(entry["conversation_turns"]),
            f"{entry['totals']['nodes']:,}",
            f"{entry['totals']['relationships']:,}",
            f"{size / 1e6:.0f}" if size is not None else "-",
            f"{entry['write']['nodes_per_s']:,.0f}",
            _ms(entry["read_path_ms"]),
            _ms(entry["exact_scan_ms"]),
            f"{recall['mean']:.4f} ({recall['min']:.3f})" if recall["queries"] else "-",
            drift,
        )
    console.print(table)
    locomo = report["locomo"]
    if locomo.get("single"):
        names = {
            "1": "multi-hop",
            "2": "temporal",
            "3": "open-domain",
            "4": "single-hop",
            "all": "all",
        }
        parts = []
        for key, label in names.items():
            one = locomo["single"]["by_category"].get(key)
            if one is None:
                continue
            text = f"{label} {100 * one['all_at_10']:.1f}"
            if locomo.get("loaded"):
                text += f" -> {100 * locomo['loaded']['by_category'][key]['all_at_10']:.1f}"
            parts.append(text)
        console.print("LoCoMo dev ALL@10, single-tenant -> everything loaded: " + "; ".join(parts))
        if locomo.get("lost_questions") is not None:
            console.print(f"questions lost per category: {locomo['lost_questions']}")
    console.print(f"total {report['seconds']:.0f} s")


@click.command("scale")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--tenants",
    "tenant_levels",
    default="1,100,1000",
    show_default=True,
    callback=lambda _c, _p, v: _counts(v),
    help="Cumulative numbers of synthetic tenants to measure at (0 = none).",
)
@click.option(
    "--long",
    "long_lengths",
    default="1000,10000,50000",
    show_default=True,
    callback=lambda _c, _p, v: _counts(v),
    help="Lengths (turns) of the one long conversation to measure at (0 = none).",
)
@click.option("--tenant-turns", default=100, show_default=True, help="Turns per tenant.")
@click.option("--questions", default=200, show_default=True, help="Sampled questions per level.")
@click.option(
    "--long-recall-questions",
    default=50,
    show_default=True,
    help="Exact scans per long-conversation length (recall baseline).",
)
@click.option(
    "--bm25-questions",
    default=100,
    show_default=True,
    help="Questions whose BM25 top-10 sets are compared across levels.",
)
@click.option("--noise", default=0.02, show_default=True, help="Embedding noise per component.")
@click.option("--seed", default=7, show_default=True, help="Seeds slices, noise and samples.")
@click.option(
    "--locomo",
    type=click.Choice(["ends", "every", "off"]),
    default="ends",
    show_default=True,
    help="LoCoMo dev run: single-tenant and fully loaded, at every tenant level too, or not.",
)
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the JSON report here ('-' = stdout).",
)
@click.option("-q", "--quiet", is_flag=True, help="No progress output.")
@click.pass_context
def bench_scale(
    ctx: click.Context,
    file: Path,
    tenant_levels: tuple[int, ...],
    long_lengths: tuple[int, ...],
    tenant_turns: int,
    questions: int,
    long_recall_questions: int,
    bm25_questions: int,
    noise: float,
    seed: int,
    locomo: str,
    json_path: Path | None,
    quiet: bool,
) -> None:
    """Read path, recall and write throughput with many tenants and one long conversation.

    FILE is the LoCoMo dev file: its conversations are ingested as themselves, then copied
    into synthetic tenants (slices with perturbed embeddings, written through the batched
    write statements) and into one long conversation. Run it on an empty server of its own
    (the synthetic data stays); see docs/benchmarks.md, "The scale benchmark", for memory
    settings.
    """
    from kgmem.bench.scale import ScaleConfig, run_scale_bench

    config = ScaleConfig(
        tenant_levels=tenant_levels,
        long_lengths=long_lengths,
        tenant_turns=tenant_turns,
        questions=questions,
        long_recall_questions=long_recall_questions,
        bm25_questions=bm25_questions,
        noise=noise,
        seed=seed,
        locomo=locomo,
    )
    with memory_from(ctx) as memory, _progress(quiet) as progress:
        report = run_scale_bench(memory, file, config, progress=progress)
    if json_path is not None and str(json_path) == "-":
        click.echo(dump_json(report))
        return
    if json_path is not None:
        json_path.write_text(dump_json(report) + "\n", encoding="utf-8")
    _print(report)
