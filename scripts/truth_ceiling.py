"""How far the truth decisions can get with the models this project can ship: two measurements
beside the shipped logistic regression, on writer-disjoint folds of the train and dev splits
(the test split is never read).

Usage::

    python scripts/truth_ceiling.py curve relation             # learning curve over writers
    python scripts/truth_ceiling.py cross relation --fold 0    # fine-tuned MiniLM cross-encoder

``curve``: five folds by writer (writers in name order, fold = position mod 5); each fold is
predicted by the shipped model class (`kgmem.truth.train`: features, ``C``, class weights) fitted
on 25, 50, 75 and 100 % of the other folds' writers (two random draws below 100 %); macro-F1
over all rows. How much more writing would buy.

``cross``: the same folds; MiniLM (all-MiniLM-L6-v2, the product's encoder) fine-tuned end to
end as a cross-encoder on the pair (relation: stored, new; answerability: question, speaker and
fact), mean pooling and a linear head, AdamW 4e-5 with linear warm-up and decay, batch 16,
inverse class frequency weights, seed 0; scored on one held-out fold beside the logistic
regression fitted on the same rows. It is the strongest model of this size, and it is outside
the decisions' budgets (one transformer pass per candidate, ~90 MB): it measures whether a
model of MiniLM's size could reach the goal at all.

Needs the ``train`` extra (scikit-learn); ``cross`` also needs ``transformers`` and ``torch``
(installed with sentence-transformers) and takes about 5 minutes per epoch on two cores.
Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import warnings
from typing import Any

import numpy as np

from kgmem.config import DEFAULT_EMBEDDER
from kgmem.embed import Embedder, model_location
from kgmem.truth.corpus import LABELS, Row, read_corpus
from kgmem.truth.dataset import VectorCache, features, texts_needed
from kgmem.truth.train import SETTINGS, default_cache
from kgmem.truth.weights import CORPUS_DIR

FOLDS = 5


def _rows(decision: str) -> tuple[list[Row], np.ndarray]:
    corpus = read_corpus(CORPUS_DIR)
    rows = [r for r in corpus["train"] + corpus["dev"] if r.decision == decision]
    writers = sorted({r.writer for r in rows})
    fold_of = {w: i % FOLDS for i, w in enumerate(writers)}
    return rows, np.array([fold_of[r.writer] for r in rows])


def _logistic(decision: str) -> Any:
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(
        C=SETTINGS[decision]["C"], max_iter=5000, class_weight="balanced", tol=1e-6
    )


def _macro_f1(gold: np.ndarray, pred: np.ndarray) -> float:
    from sklearn.metrics import f1_score

    return round(float(f1_score(gold, pred, average="macro")), 4)


def _matrix(decision: str, rows: list[Row]) -> tuple[np.ndarray, np.ndarray]:
    vectors = VectorCache(Embedder(), default_cache()).vectors(texts_needed(rows))
    x, labels = features(decision, rows, vectors)
    return x, np.array([LABELS[decision].index(label) for label in labels])


def curve(decision: str) -> dict[str, Any]:
    rows, fold = _rows(decision)
    x, y = _matrix(decision, rows)
    writer = np.array([r.writer for r in rows])
    out: dict[str, Any] = {"decision": decision, "rows": len(rows), "points": []}
    for share in (0.25, 0.5, 0.75, 1.0):
        scores, used = [], []
        for draw in range(2 if share < 1 else 1):
            rng, pred = random.Random(draw), np.empty_like(y)
            for k in range(FOLDS):
                others = sorted({w for w, f in zip(writer, fold, strict=True) if f != k})
                rng.shuffle(others)
                keep = np.isin(writer, others[: max(1, round(share * len(others)))])
                model = _logistic(decision)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model.fit(x[keep], y[keep])
                pred[fold == k] = model.predict(x[fold == k])
                used.append(int(keep.sum()))
            scores.append(_macro_f1(y, pred))
        out["points"].append(
            {"share": share, "train_rows_mean": round(float(np.mean(used))),
             "macro_f1": round(float(np.mean(scores)), 4)}
        )  # fmt: skip
    return out


def _pair(row: Row) -> tuple[str, str]:
    d = row.data
    if row.decision == "relation":
        return str(d["stored"]["text"]), str(d["new"]["text"])
    return str(d["question"]["text"]), f"{d['fact']['speaker']}: {d['fact']['text']}"


def cross(decision: str, held: int, epochs: float) -> dict[str, Any]:
    import torch
    from transformers import AutoModel, AutoTokenizer

    torch.manual_seed(0)
    rows, fold = _rows(decision)
    labels = LABELS[decision]
    train = [r for r, f in zip(rows, fold, strict=True) if f != held]
    test = [r for r, f in zip(rows, fold, strict=True) if f == held]
    x, y = _matrix(decision, rows)
    baseline = _logistic(decision)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        baseline.fit(x[fold != held], y[fold != held])
    location = model_location(DEFAULT_EMBEDDER)
    tokenizer = AutoTokenizer.from_pretrained(location)
    encoder = AutoModel.from_pretrained(location)
    head = torch.nn.Linear(encoder.config.hidden_size, len(labels))
    params = list(encoder.parameters()) + list(head.parameters())
    optimiser = torch.optim.AdamW(params, lr=4e-5, weight_decay=0.01)
    batch, steps = 16, int(epochs * len(train) / 16)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min(1.0, (s + 1) / (0.1 * steps)) * max(0.0, 1 - s / steps)
    )
    counts = np.bincount([labels.index(r.label) for r in train], minlength=len(labels))
    weight = torch.tensor(counts.sum() / (len(labels) * counts), dtype=torch.float32)
    loss_of = torch.nn.CrossEntropyLoss(weight=weight)

    def logits(part: list[Row]) -> Any:
        first, second = zip(*[_pair(r) for r in part], strict=True)
        tokens = tokenizer(
            list(first), list(second), padding=True, truncation=True, max_length=128,
            return_tensors="pt",
        )  # fmt: skip
        hidden = encoder(**tokens).last_hidden_state
        mask = tokens["attention_mask"].unsqueeze(-1).float()
        return head((hidden * mask).sum(1) / mask.sum(1))

    rng, step, start = random.Random(0), 0, time.time()
    while step < steps:
        rng.shuffle(train)
        for i in range(0, len(train) - batch + 1, batch):
            if step >= steps:
                break
            part = train[i : i + batch]
            loss = loss_of(logits(part), torch.tensor([labels.index(r.label) for r in part]))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            step += 1
    encoder.eval()
    pred: list[int] = []
    with torch.no_grad():
        for i in range(0, len(test), 64):
            pred += logits(test[i : i + 64]).argmax(1).tolist()
    gold = np.array([labels.index(r.label) for r in test])
    return {
        "decision": decision,
        "fold": held,
        "held_out_writers": sorted({r.writer for r in test}),
        "train_rows": len(train),
        "test_rows": len(test),
        "epochs": epochs,
        "cross_encoder_macro_f1": _macro_f1(gold, np.array(pred)),
        "logistic_regression_macro_f1": _macro_f1(gold, baseline.predict(x[fold == held])),
        "fit_seconds": round(time.time() - start),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("curve", "cross"))
    parser.add_argument("decision", choices=tuple(LABELS))
    parser.add_argument("--fold", type=int, default=0, choices=range(FOLDS))
    parser.add_argument("--epochs", type=float, default=2.0)
    args = parser.parse_args(argv)
    if args.what == "cross" and args.decision not in ("relation", "answerability"):
        parser.error("cross reads pairs: relation or answerability")
    out = (
        curve(args.decision)
        if args.what == "curve"
        else cross(args.decision, args.fold, args.epochs)
    )
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
