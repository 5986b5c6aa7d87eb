"""Choose RequestPolicy.similarity on LoCoMo dev: for each QA question with evidence, its noun
phrases are a stand-in forget topic; the candidate turns are those sharing an anchor lemma with
it (the lexical gate of kgmem.ingest.requests.rules); evidence turns are the positives. Prints
precision / recall of "cosine >= t" among the gated candidates.

    python scripts/calibrate_request_similarity.py ../shared/data/locomo/locomo-dev.json
"""

import json
import sys
from pathlib import Path

import numpy as np

from kgmem.embed import Embedder
from kgmem.ingest.extraction.nlp import load_pipeline
from kgmem.ingest.requests.rules import WEAK_LEMMAS, _content_lemmas

nlp = load_pipeline()
emb = Embedder()
pos, neg = [], []
samples = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
for sample in samples[: int(sys.argv[2]) if len(sys.argv) > 2 else None]:
    conv = sample["conversation"]
    turns = [
        t for k, v in conv.items() if k.startswith("session_") and isinstance(v, list) for t in v
    ]
    docs = list(nlp.pipe([t["text"] for t in turns]))
    lemmas = [_content_lemmas(d) for d in docs]
    vectors = emb.encode([t["text"] for t in turns])
    for qa in sample["qa"]:
        if qa.get("category") == 5 or not qa.get("evidence"):
            continue
        q = nlp(qa["question"])
        topic = " ".join(c.text for c in q.noun_chunks if c.root.pos_ != "PRON")
        if not topic:
            continue
        tl = _content_lemmas(nlp(topic))
        anchors = tl - WEAK_LEMMAS or tl
        gated = [i for i, ls in enumerate(lemmas) if anchors & ls]
        if not gated:
            continue
        tv = emb.encode([topic])[0]
        evidence = set(qa["evidence"])
        for i in gated:
            (pos if turns[i]["dia_id"] in evidence else neg).append(float(vectors[i] @ tv))
pos, neg = np.array(pos), np.array(neg)
print(f"gated candidates: {len(pos)} evidence, {len(neg)} other")
for t in (0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5):
    tp, fp = (pos >= t).sum(), (neg >= t).sum()
    print(
        f"t={t:.2f} precision={tp / max(1, tp + fp):.3f} recall={tp / max(1, len(pos)):.3f} "
        f"kept_other={fp / max(1, len(neg)):.3f}"
    )
