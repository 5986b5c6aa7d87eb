"""How ``kgmem bench locomo`` prints its report: the rows per category with intervals, the
answer-level floors, the leave-one-conversation-out table."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from kgmem.cli._common import console

__all__ = ["CATEGORIES", "print_cv", "print_floors", "print_locomo"]

CATEGORIES = {
    "1": "multi-hop",
    "2": "temporal",
    "3": "open-domain",
    "4": "single-hop",
    "all": "overall",
}


def print_locomo(report: dict[str, Any]) -> None:
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
    print_floors(report)


def _all_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The report's rows, then the shipped reference row if the run added one."""
    return [*report["rows"], *([report["shipped"]] if "shipped" in report else [])]


def _ci(interval: list[float] | None) -> str:
    return f"{100 * interval[0]:.1f}-{100 * interval[1]:.1f}" if interval else ""


_FLOOR_COLUMNS = (
    "category",
    "answer n",
    "answer F1",
    "answer EM",
    "extractive n",
    "extr. F1",
    "extr. F1 95% CI",
    "extr. EM",
)


def print_floors(report: dict[str, Any]) -> None:
    """The answer-level floors, the context cost, corrected gold and the reader, for the row
    the reader used, else the shipped configuration's, else the first."""
    rows = report["rows"]
    if not rows:
        return
    paired = next((r["vs_shipped"]["shipped"] for r in rows if "vs_shipped" in r), None)
    named = report.get("reader", {}).get("row") or paired
    row = next((r for r in _all_rows(report) if r["name"] == named), rows[0])
    table = Table(title=f"answer-level floor, LoCoMo F1 / EM ({row['name']})", title_justify="left")
    for col in _FLOOR_COLUMNS:
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
    model = report.get("answerability", {}).get("model")
    if model:
        chosen, loco = model["in_sample"], model["loco"]
        console.print(
            f"  with the trained decision (rescue {chosen['rescue']}, abstain "
            f"{chosen['abstain']} in sample): precision {100 * chosen['precision']:.1f}, recall "
            f"{100 * chosen['recall']:.1f}; LOCO-CV precision {100 * loco['precision']:.1f}, "
            f"recall {100 * loco['recall']:.1f}"
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


def print_cv(cv: dict[str, Any]) -> None:
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
