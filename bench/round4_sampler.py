"""Shows ONE paper for a blind query writer: python3 next.py WRITER N  (WRITER in A..D, N in 1..36)."""
import json, random, sys
WRITERS = "ABCD"
writer, n = sys.argv[1].upper(), int(sys.argv[2])
assert writer in WRITERS and 1 <= n <= 36, "usage: next.py A..D 1..36"
rows = [json.loads(l) for l in open("/work/shared/data/iclr2025.jsonl")]
filled = {l.split("\t")[0] for l in open("/work/shared/data/abstracts_filled.tsv").read().splitlines()[1:]}
used = set()
for name in ("queries_catalogue.jsonl", "queries_holdout.jsonl"):
    for l in open(f"/work/main/bench/{name}"):
        if l.strip():
            used.update(json.loads(l)["relevant"])
acc = [r for r in rows if r["status"] in ("Oral", "Spotlight", "Poster") and r["id"] and r["id"] not in used]
strata = {
    "E": sorted((r for r in acc if r["abstract"] and r["id"] in filled), key=lambda r: r["id"]),
    "B": sorted((r for r in acc if r["abstract"] and r["id"] not in filled), key=lambda r: r["id"]),
    "T": sorted((r for r in acc if not r["abstract"]), key=lambda r: r["id"]),
}
rng = random.Random(20261201)
picked = {k: rng.sample(v, {"E": 48, "B": 60, "T": 36}[k]) for k, v in strata.items()}
w = WRITERS.index(writer)
mine = picked["E"][w*12:(w+1)*12] + picked["B"][w*15:(w+1)*15] + picked["T"][w*9:(w+1)*9]
rng2 = random.Random(1000 + w)
rng2.shuffle(mine)
paper = mine[n - 1]
if paper["abstract"]:
    kind = ("question", "paraphrase", "memory", "title")[(n + w) % 4]
else:
    kind = ("title", "memory")[(n + w) % 2]
print(f"Paper {n} of 36 for writer {writer}. Write ONE query of kind: {kind}")
print(f"id: {paper['id']}")
print(f"title: {paper['title']}")
print(f"authors: {', '.join(paper['authors'])}")
print(f"status: {paper['status']}")
print("abstract:", paper["abstract"] or "(none: this paper has only its title)")
