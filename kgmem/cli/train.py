"""``kgmem train truth``: rebuild the truth decisions' weights from the corpus."""

from __future__ import annotations

from pathlib import Path

import click

from kgmem.cli._common import dump_json
from kgmem.errors import MalformedInput

_DIR = click.Path(file_okay=False, path_type=Path)


@click.group()
def train() -> None:
    """Fit the shipped models (needs the ``[train]`` extra and a source checkout)."""


@train.command("truth")
@click.option(
    "--corpus",
    "corpus_dir",
    type=_DIR,
    default=None,
    help="Corpus directory (default: corpus/truth of the checkout).",
)
@click.option(
    "--out",
    "out_dir",
    type=_DIR,
    default=None,
    help="Where to write the weights (default: the package's kgmem/data/truth).",
)
@click.option(
    "--cache",
    "cache_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Vector cache file (default: the user cache directory).",
)
def train_truth(corpus_dir: Path | None, out_dir: Path | None, cache_path: Path | None) -> None:
    """Validate the truth corpus (naming the first bad row), fit the four decisions on the
    train split, calibrate on dev, and write weights and manifest (deterministic). Prints the
    manifest as JSON."""
    from kgmem.ingest.extraction.nlp import load_pipeline
    from kgmem.ingest.requests.decision import addressed
    from kgmem.truth.corpus import CorpusError
    from kgmem.truth.train import train as run
    from kgmem.truth.weights import CORPUS_DIR, WEIGHTS_DIR

    nlp = load_pipeline()
    try:
        manifest = run(
            corpus_dir or CORPUS_DIR,
            out_dir or WEIGHTS_DIR,
            cache_path,
            addressed=lambda text: addressed(nlp(text)),
        )
    except CorpusError as exc:
        raise MalformedInput(str(exc)) from None
    click.echo(dump_json(manifest))
