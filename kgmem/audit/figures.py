"""Regenerate the pictures in docs/img/ from the current code (``make figures``).

    python -m kgmem.audit.figures [--locomo FILE] [--conversation ID] [--out docs/img]

Ingests the conversation (idempotent) into the Neo4j of the usual ``KGMEM_*`` settings, picks
the audit's three questions (`kgmem.audit.examples.pick_examples`) and writes:

- ``notebook_evidence_subgraph.png``, ``audit_current_value.png``, ``audit_temporal.png``: the
  layered evidence picture of the multi-hop, current-value and temporal question;
- ``notebook_score_terms.png``: the score terms of the multi-hop question's hits;
- ``audit_html_<kind>.png``: what a person sees when opening ``kgmem explain … --html`` (run
  as a command, then screenshotted by headless Chromium; skipped, and said so, without a
  ``chromium`` on the PATH or in ``$CHROMIUM``).

The Neo4j Browser screenshots (`NOT_REGENERATED`) are not made here: they show Browser's own
UI after a login and a typed query, which needs a browser driven step by step, not one page
load. They come from ``cypher/browser/*.cypher``, which tests/integration/test_audit.py runs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from kgmem.config import DEFAULT_K

ROOT = Path(__file__).resolve().parents[2]  # the repository

__all__ = ["NOT_REGENERATED", "chromium_screenshot", "main"]

#: docs/img files this tool does not write, with why
NOT_REGENERATED: dict[str, str] = {
    name: "Neo4j Browser's own UI (login, a typed query): needs a browser driven step by step"
    for name in (
        "browser_2026_timeline.png",
        "browser_2026_vector_search.png",
        "browser_entity_history.png",
        "browser_evidence_subgraph.png",
        "browser_timeline.png",
        "browser_turn_facts.png",
    )
}
#: file name stem per example kind
STEMS: dict[str, str] = {
    "multi-hop": "multihop",
    "current value": "current_value",
    "temporal": "temporal",
}
#: Chromium flags for a quiet, offline, one-shot screenshot
CHROMIUM_FLAGS: tuple[str, ...] = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)


def chromium_screenshot(
    html: Path, png: Path, *, size: tuple[int, int] = (1600, 1000), chromium: str | None = None
) -> bool:
    """Open ``html`` in headless Chromium and save what it shows as ``png``.

    Returns:
        False (and nothing written) when no Chromium is found; True when ``png`` was written.

    Raises:
        subprocess.CalledProcessError / TimeoutExpired: Chromium failed or hung (two minutes).
    """
    binary = chromium or os.environ.get("CHROMIUM") or shutil.which("chromium")
    if binary is None:
        return False
    with tempfile.TemporaryDirectory(prefix="kgmem-chromium-") as profile:
        subprocess.run(
            [
                binary,
                *CHROMIUM_FLAGS,
                f"--user-data-dir={profile}",
                f"--screenshot={png}",
                f"--window-size={size[0]},{size[1]}",
                html.resolve().as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
    return png.is_file()


def _explain_html(question: str, conversation: str, gold: list[str], target: Path) -> None:
    """``kgmem explain QUESTION --conversation ID --gold … --html target`` as a user runs it."""
    args = ["explain", question, "--conversation", conversation, "--html", str(target)]
    for turn in gold:
        args += ["--gold", turn]
    code = "import sys; from kgmem.cli import main; sys.exit(main())"
    subprocess.run([sys.executable, "-c", code, *args], check=True, timeout=600)


def main(argv: list[str] | None = None) -> int:
    """Write the figures; returns the process exit code (0, or 2 without a LoCoMo file)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = os.environ.get(
        "KGMEM_LOCOMO_FILE", str(ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json")
    )
    parser.add_argument("--locomo", default=default, help="LoCoMo-layout file")
    parser.add_argument("--conversation", default=None, help="sample id (default: the first)")
    parser.add_argument("--out", default=str(ROOT / "docs" / "img"), help="output folder")
    parser.add_argument("--k", type=int, default=DEFAULT_K)
    args = parser.parse_args(argv)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from kgmem.api import Memory
    from kgmem.audit import evidence_picture, plot_terms, save_picture
    from kgmem.audit.examples import pick_examples
    from kgmem.config import Settings
    from kgmem.ingest.loaders.locomo import load_locomo

    locomo = Path(args.locomo)
    if not locomo.is_file():
        print(f"no LoCoMo file at {locomo} (set KGMEM_LOCOMO_FILE or --locomo)", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    record = load_locomo(locomo, [args.conversation] if args.conversation else None)[0]
    cid = record.conversation_id
    questions = [q for q in record.questions if q.evidence and q.category in (1, 2, 3, 4)]
    written: list[Path] = []
    with Memory.from_settings(Settings()) as memory:
        memory.add_conversation(record)
        picked = pick_examples(memory, questions, cid, args.k)
        for kind, question in picked.items():
            picture, result = evidence_picture(
                memory, question.question, cid, k=args.k, gold=question.evidence
            )
            name = "notebook_evidence_subgraph.png" if kind == "multi-hop" else None
            path = out / (name or f"audit_{STEMS[kind]}.png")
            written.append(save_picture(picture, path))
            print(f"{kind}: {question.id} {question.question!r} -> {path.name}")
            if kind == "multi-hop":
                fig, ax = plt.subplots(figsize=(11, 5.5))
                plot_terms(result, ax=ax)
                fig.tight_layout()
                terms = out / "notebook_score_terms.png"
                fig.savefig(terms, dpi=110, facecolor="white")
                plt.close(fig)
                written.append(terms)
    with tempfile.TemporaryDirectory(prefix="kgmem-figures-") as tmp:
        for kind, question in picked.items():
            html = Path(tmp) / f"{STEMS[kind]}.html"
            _explain_html(question.question, cid, list(question.evidence), html)
            shot = out / f"audit_html_{STEMS[kind]}.png"
            if chromium_screenshot(html, shot):
                written.append(shot)
            else:
                print(f"no chromium: {shot.name} not regenerated", file=sys.stderr)
    for path in written:
        print(f"wrote {path}")
    for name, why in NOT_REGENERATED.items():
        print(f"not regenerated: {name} ({why})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
