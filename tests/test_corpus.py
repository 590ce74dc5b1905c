"""Loading papers: the real seeds and catalogue, malformed seed files, and operator corpora."""

from __future__ import annotations

import hashlib
import json
import logging
from collections import Counter
from pathlib import Path

import pytest

from bot.papers.corpus import (
    CATALOGUE_ACCEPTED_PAPERS,
    CATALOGUE_PATH,
    SEEDS_DIR,
    CorpusError,
    LoadedCorpus,
    load_corpus,
)
from bot.papers.paper import ACCEPTED_STATUSES
from bot.papers.plain import clean_text
from bot.papers.repair import mend
from bot.papers.text import match_key
from bot.render.markup import abstract_mrkdwn
from bot.render.mrkdwn import mrkdwn_literal


def _catalogue() -> list[dict]:
    with CATALOGUE_PATH.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


CATALOGUE = _catalogue()
CATALOGUE_BY_ABSTRACT = {match_key(r["abstract"]): r for r in CATALOGUE if r["abstract"]}
SEED_FILES = sorted(SEEDS_DIR.glob("*.txt"))


def _seed_paragraphs() -> list[tuple[str, int, str]]:
    """(file name, position in file, abstract) for every seed abstract, read independently."""
    found = []
    for path in SEED_FILES:
        paragraphs = [p.strip() for p in path.read_text("utf-8").split("\n\n")[1:] if p.strip()]
        found.extend((path.name, index, text) for index, text in enumerate(paragraphs, 1))
    return found


SEEDS = _seed_paragraphs()


# --- the default corpus -------------------------------------------------------------------


def test_all_76_seed_papers_load_without_problems(seed_corpus: LoadedCorpus) -> None:
    assert len(seed_corpus.papers) == 76
    assert seed_corpus.problems == ()
    assert seed_corpus.description == (
        "76 papers from 4 seed files in seeds/ (76 matched the ICLR 2025 catalogue)"
    )


@pytest.mark.parametrize(
    ("file_name", "position", "abstract"), SEEDS, ids=[s[2][:30] for s in SEEDS]
)
def test_each_seed_takes_its_catalogue_record(
    seed_corpus: LoadedCorpus, file_name: str, position: int, abstract: str
) -> None:
    record = CATALOGUE_BY_ABSTRACT[match_key(abstract)]
    [paper] = [p for p in seed_corpus.papers if p.source == f"seeds/{file_name}#{position}"]
    assert paper.id == record["id"]
    assert paper.title == clean_text(record["title"]).plain
    assert not paper.title_derived
    assert paper.authors == tuple(record["authors"])
    assert paper.status == record["status"] in {"Poster", "Spotlight"}
    assert paper.url == f"https://openreview.net/forum?id={record['id']}"
    written = " ".join(abstract.split())
    if "- " not in written:  # words split at a line break: tests/test_repair.py
        assert paper.abstract == mend(written)
        assert abstract_mrkdwn(paper.abstract) == abstract_mrkdwn(mend(abstract))
    assert paper.plain_abstract == clean_text(paper.abstract).plain
    assert 0 < len(paper.tldr) <= 300


def test_seed_records_show_what_a_reader_needs(seed_corpus: LoadedCorpus) -> None:
    by_id = {paper.id: paper for paper in seed_corpus.papers}
    assert len(by_id) == 76
    gamma = by_id["q44uq3tc2D"]
    assert gamma.title.startswith("γ-MoD: Exploring Mixture-of-Depth Adaptation")  # noqa: RUF001
    riem = next(p for p in seed_corpus.papers if "RiemGCP" in (p.abstract or ""))
    assert riem.code_urls == ("https://github.com/GitZH-Chen/RiemGCP",)
    assert riem.links == riem.code_urls
    mog = by_id["7ANDviElAo"]
    assert mog.code_urls == ("https://github.com/yanweiyue/MoG",)
    assert mog.tldr.startswith("We introduce Mixture-of-Graphs (MoG)")
    assert mog.openreview_id == "7ANDviElAo"


# --- ids ------------------------------------------------------------------------------------


def _write_seed_file(path: Path, abstracts: list[str], header: str = "ICLR 2025 论文列表") -> None:
    path.write_text("\n\n".join([header, *abstracts]) + "\n", encoding="utf-8")


INVENTED = (
    "Graphs are everywhere in science. Here we introduce Mixture-of-Graphs (MoG), a sparsifier "
    "that picks a pruning expert per node, and show it keeps accuracy at half the edges."
)


def _hash_id(text: str) -> str:
    return "h" + hashlib.sha256(match_key(text).encode()).hexdigest()[:12]


def test_ids_do_not_depend_on_file_names_or_order(tmp_path: Path) -> None:
    abstracts = [text for _, _, text in SEEDS[:6]] + [INVENTED]
    forward, backward = tmp_path / "forward", tmp_path / "backward"
    forward.mkdir()
    backward.mkdir()
    _write_seed_file(forward / "a.txt", abstracts[:4])
    _write_seed_file(forward / "b.txt", abstracts[4:])
    _write_seed_file(backward / "only.txt", abstracts[::-1])
    first, second = load_corpus(str(forward)), load_corpus(str(backward))
    assert {p.id for p in first.papers} == {p.id for p in second.papers}
    assert _hash_id(INVENTED) in {p.id for p in first.papers}
    assert first.description.endswith("(6 matched the ICLR 2025 catalogue)")


def test_an_unmatched_seed_gets_a_derived_title_and_a_hash_id(tmp_path: Path) -> None:
    _write_seed_file(tmp_path / "new.txt", [INVENTED])
    [paper] = load_corpus(str(tmp_path)).papers
    assert paper.id == _hash_id(INVENTED)
    assert paper.title == "MoG: Mixture-of-Graphs"
    assert paper.title_derived
    assert (paper.status, paper.url, paper.authors) == (None, None, ())
    assert paper.source == f"{tmp_path}/new.txt#1"


# --- malformed seed files -------------------------------------------------------------------

ONE, TWO = SEEDS[0][2], SEEDS[1][2]
HEADER = "ICLR 2025 论文列表"
CUT = ONE.index(" ", 300)

MALFORMED = [
    # (case, file bytes, papers loaded from it, phrases every problem line must contain)
    ("crlf", f"{HEADER}\r\n\r\n{ONE}\r\n\r\n{TWO}\r\n".encode(), 2, []),
    ("bom", f"\ufeff{HEADER}\n\n{ONE}\n\n{TWO}\n".encode(), 2, []),
    ("no header", f"{ONE}\n\n{TWO}".encode(), 2, []),
    ("header glued to text", f"{HEADER}\n{ONE}\n\n{TWO}".encode(), 2, []),
    (
        "trailing spaces and blank runs",
        f"{HEADER}   \n \n\n\t\n{ONE}   \n  \n\n\n{TWO}  \n\n\n".encode(),
        2,
        [],
    ),
    ("wrapped paragraph", f"{HEADER}\n\n{ONE[:CUT]}\n{ONE[CUT + 1 :]}\n\n{TWO}".encode(), 2, []),
    (
        "latin-1 bytes",
        f"{HEADER}\n\n{ONE}\n\n".encode()
        + "A café abstract".encode("latin-1")
        + f"\n\n{TWO}".encode(),
        2,
        ["bad.txt", "line 5", "not UTF-8", "line skipped"],
    ),
    ("empty", b"", 0, ["bad.txt", "empty", "skipped"]),
    ("only blank lines", b"\n\n  \n", 0, ["bad.txt", "empty", "skipped"]),
    ("duplicate paragraphs", f"{HEADER}\n\n{ONE}\n\n{TWO}\n\n{ONE}".encode(), 2, ["line 7"]),
]


@pytest.mark.parametrize(
    ("case", "content", "papers", "phrases"), MALFORMED, ids=[m[0] for m in MALFORMED]
)
def test_malformed_seed_files_give_the_documented_result(
    tmp_path: Path, case: str, content: bytes, papers: int, phrases: list[str]
) -> None:
    other = SEEDS[2][2]
    (tmp_path / "bad.txt").write_bytes(content)
    _write_seed_file(tmp_path / "good.txt", [other])
    corpus = load_corpus(str(tmp_path))
    assert len(corpus.papers) == papers + 1, corpus.problems
    loaded = {p.abstract for p in corpus.papers}
    assert mend(" ".join(other.split())) in loaded
    if papers:
        assert {mend(" ".join(ONE.split())), mend(" ".join(TWO.split()))} <= loaded
        assert all(not p.title_derived for p in corpus.papers)
    if phrases:
        assert len(corpus.problems) == 1
        for phrase in phrases:
            assert phrase in corpus.problems[0]
    else:
        assert corpus.problems == ()


def test_duplicates_across_files_are_one_paper(tmp_path: Path) -> None:
    _write_seed_file(tmp_path / "a.txt", [ONE])
    _write_seed_file(tmp_path / "b.txt", [ONE.replace(" ", "  ")])
    corpus = load_corpus(str(tmp_path))
    assert len(corpus.papers) == 1
    assert corpus.problems == (
        f"{tmp_path}/b.txt: line 3: same abstract as {tmp_path}/a.txt#1, kept once",
    )


def test_the_bot_refuses_to_start_only_when_nothing_loads(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "latin.txt").write_bytes("Résumé of results".encode("latin-1"))
    with pytest.raises(CorpusError) as error:
        load_corpus(str(tmp_path))
    assert "empty.txt" in str(error.value)
    assert "latin.txt" in str(error.value)


def test_a_folder_without_seed_files_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match=r"no \.txt seed files"):
        load_corpus(str(tmp_path))


# --- the catalogue corpus -------------------------------------------------------------------


@pytest.fixture(scope="module")
def catalogue_corpus() -> LoadedCorpus:
    return load_corpus("catalogue")


def test_catalogue_corpus_is_every_accepted_paper_once(catalogue_corpus: LoadedCorpus) -> None:
    papers = catalogue_corpus.papers
    assert len(papers) == 3706
    assert len({p.id for p in papers}) == 3706
    assert Counter(p.status for p in papers) == {"Poster": 3113, "Spotlight": 380, "Oral": 213}
    assert catalogue_corpus.problems == ()
    assert catalogue_corpus.description == (
        "3,706 accepted papers from the ICLR 2025 catalogue seeds/iclr2025.jsonl "
        "(213 Oral, 380 Spotlight, 3,113 Poster; 3,087 with an abstract; 76 with seed abstracts)"
    )


def test_catalogue_corpus_keeps_the_seed_abstracts(
    catalogue_corpus: LoadedCorpus, seed_corpus: LoadedCorpus
) -> None:
    by_id = {p.id: p for p in catalogue_corpus.papers}
    for seed in seed_corpus.papers:
        assert by_id[seed.id].abstract == seed.abstract
        assert by_id[seed.id].source == seed.source


def test_papers_without_an_abstract_are_still_titled(catalogue_corpus: LoadedCorpus) -> None:
    bare = [p for p in catalogue_corpus.papers if p.abstract is None]
    assert len(bare) == 3706 - sum(
        1 for r in CATALOGUE if r["status"] in {"Oral", "Spotlight", "Poster"} and r["abstract"]
    )
    for paper in bare:
        assert paper.title and paper.plain_abstract == "" and paper.tldr == ""
        assert paper.source == "catalogue"


def test_accepted_papers_missing_an_openreview_id_get_hash_ids(
    catalogue_corpus: LoadedCorpus,
) -> None:
    without_id = [r for r in CATALOGUE if r["status"] in {"Oral", "Spotlight", "Poster"}]
    without_id = [r for r in without_id if not r["id"]]
    assert len(without_id) == 2
    ids = {p.id for p in catalogue_corpus.papers}
    for record in without_id:
        assert _hash_id(record["abstract"] or record["title"]) in ids


def test_catalogue_titles_are_clean_and_escaped(catalogue_corpus: LoadedCorpus) -> None:
    for paper in catalogue_corpus.papers:
        assert "$" not in paper.title and "\\" not in paper.title
    mm = next(p for p in catalogue_corpus.papers if p.title.startswith("MM1.5: Methods"))
    assert "Analysis &amp; Insights" in mrkdwn_literal(mm.title)


# --- operator corpora -----------------------------------------------------------------------


def _jsonl(path: Path, records: list[dict | str]) -> None:
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_a_jsonl_corpus_keeps_every_record_whatever_its_status(tmp_path: Path) -> None:
    reject = next(r for r in CATALOGUE if r["status"] == "Reject")
    poster = next(r for r in CATALOGUE if r["status"] == "Poster" and r["abstract"])
    odd = {"title": "Odd", "authors": "Ada Lovelace"}
    _jsonl(tmp_path / "mine.jsonl", [reject, "{not json", poster, poster, odd])
    corpus = load_corpus(str(tmp_path / "mine.jsonl"))
    assert [p.status for p in corpus.papers] == ["Reject", "Poster"]
    assert corpus.papers[1].id == poster["id"]
    assert corpus.papers[0].id == _hash_id(reject["title"])
    assert len(corpus.problems) == 3
    # Lines that cannot be read are reported as the file is read, duplicates after.
    assert "line 2: not JSON" in corpus.problems[0]
    assert "line 5: 'authors' must be a list of names, skipped" in corpus.problems[1]
    assert "line 4: same paper as line 3" in corpus.problems[2]
    assert corpus.papers[1].source.endswith("mine.jsonl#3")
    assert corpus.description.endswith("mine.jsonl (1 with an abstract)")


def test_one_undecodable_byte_skips_its_line_and_is_logged_in_any_mode(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    posters = [r for r in CATALOGUE if r["status"] == "Poster"][:3]
    lines = [json.dumps(record).encode() for record in posters]
    lines[1] = lines[1].replace(b'"title": "', b'"title": "\xff', 1)
    (tmp_path / "mine.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    with caplog.at_level(logging.WARNING, logger="bot.papers.corpus"):
        corpus = load_corpus(str(tmp_path / "mine.jsonl"))
    assert [p.id for p in corpus.papers] == [posters[0]["id"], posters[2]["id"]]
    assert corpus.problems == ("mine.jsonl: line 2: not UTF-8 (byte 0xff), line skipped",) or (
        len(corpus.problems) == 1
        and "line 2: not UTF-8 (byte 0xff), line skipped" in corpus.problems[0]
    )
    messages = [record.getMessage() for record in caplog.records]
    assert any("line 2: not UTF-8" in message for message in messages)
    assert messages[-1] == "corpus: 1 line(s) and 0 file(s) skipped or odd, each listed above"


def test_relative_paths_resolve_against_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    poster = next(r for r in CATALOGUE if r["status"] == "Poster")
    _jsonl(tmp_path / "mine.jsonl", [poster])
    monkeypatch.chdir(tmp_path)
    assert [p.id for p in load_corpus("mine.jsonl").papers] == [poster["id"]]


@pytest.mark.parametrize("spec", ["nowhere/at/all", "papers.csv", "seeds.txt"])
def test_an_unusable_spec_is_an_error_naming_it(spec: str, tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="expected 'seeds', 'catalogue'"):
        load_corpus(str(tmp_path / spec))


def test_catalogue_corpus_adds_a_seed_the_catalogue_lacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write_seed_file(tmp_path / "seeds.txt", [ONE, INVENTED])
    monkeypatch.setattr("bot.papers.corpus.SEEDS_DIR", tmp_path)
    corpus = load_corpus("catalogue")
    assert len(corpus.papers) == 3707
    assert corpus.description.endswith("1 with seed abstracts)")
    [derived] = [p for p in corpus.papers if p.title_derived]
    assert derived.id == _hash_id(INVENTED)
    assert derived.source == f"{tmp_path}/seeds.txt#2"


def test_the_stated_number_of_accepted_papers_is_the_catalogue_s() -> None:
    records = CATALOGUE_PATH.read_text(encoding="utf-8").splitlines()
    statuses = [json.loads(line)["status"] for line in records if line.strip()]
    accepted = sum(status in ACCEPTED_STATUSES for status in statuses)
    assert accepted == CATALOGUE_ACCEPTED_PAPERS
