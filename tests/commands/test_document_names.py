"""The CLI's listings name the documents they mean: search over the library, the
history and the stats, as text and as JSON."""

from __future__ import annotations

import json
from pathlib import Path

from reader.library import Library
from tests.test_cli import run

HARBOUR = "# Harbour Fees of Utrecht\n\n" + "\n\n".join(
    f"Berth {n} pays a harbour fee of {n * 4} guilders each tide." for n in range(20)
)
MARKET = "# Market Tolls of Leiden\n\n" + "\n\n".join(
    f"Stall {n} pays a market toll of {n * 2} guilders each week." for n in range(20)
)


def ingest_two(folder: Path) -> dict[str, str]:
    """Ingest two Markdown documents named by their headings; their ids by title."""
    ids = {}
    for name, text in (("a.md", HARBOUR), ("b.md", MARKET)):
        path = folder / name
        path.write_text(text, encoding="utf-8")
        completed = run("ingest", str(path), "--json")
        assert completed.returncode == 0, completed.stderr
        outcome = json.loads(completed.stdout)
        ids[outcome["title"]] = outcome["doc_id"]
    assert set(ids) == {"Harbour Fees of Utrecht", "Market Tolls of Leiden"}
    return ids


def test_search_over_the_library_names_each_hits_document(tmp_path):
    ids = ingest_two(tmp_path)
    hits = json.loads(run("search", "guilders", "--json").stdout)
    assert {hit["doc_id"] for hit in hits} == set(ids.values())
    for hit in hits:
        assert ids[hit["title"]] == hit["doc_id"]

    lines = run("search", "guilders").stdout.splitlines()
    assert len(lines) == len(hits)
    harbour = [line for line in lines if "Berth" in line]
    market = [line for line in lines if "Stall" in line]
    assert harbour and market and len(harbour) + len(market) == len(lines)
    assert all("Harbour Fees of Utrecht, p.1" in line for line in harbour)
    assert all("Market Tolls of Leiden, p.1" in line for line in market)


def test_search_shows_a_title_as_one_line_without_terminal_escapes(tmp_path):
    path = tmp_path / "odd.md"
    path.write_text("# Fees\x1b[31m red\n\nThe fee is due monthly at the harbour.", "utf-8")
    assert run("ingest", str(path)).returncode == 0
    line = run("search", "harbour").stdout.strip()
    assert "\x1b" not in line and "Fees[31m red, p.1" not in line
    assert "Fees red, p.1" in line


def test_history_says_which_documents_each_question_was_about(tmp_path):
    ids = ingest_two(tmp_path)
    asked = run("ask", ids["Market Tolls of Leiden"], "What does stall 3 pay?", "--no-model")
    assert asked.returncode == 0, asked.stderr

    history = json.loads(run("history", "--json").stdout)
    assert history[0]["question"] == "What does stall 3 pay?"
    assert history[0]["doc_ids"] == [ids["Market Tolls of Leiden"]]
    assert history[0]["documents"] == [
        {"id": ids["Market Tolls of Leiden"], "title": "Market Tolls of Leiden"}
    ]
    shown = run("history").stdout.splitlines()
    assert shown[0].endswith("What does stall 3 pay?")
    assert shown[1] == f"    about Market Tolls of Leiden ({ids['Market Tolls of Leiden']})"


def test_stats_list_documents_by_title(tmp_path):
    ids = ingest_two(tmp_path)
    for doc_id, question in (
        (ids["Harbour Fees of Utrecht"], "What does berth 5 pay?"),
        (ids["Market Tolls of Leiden"], "What does stall 3 pay?"),
    ):
        assert run("ask", doc_id, question, "--no-model").returncode == 0

    figures = json.loads(run("stats", "--json").stdout)
    assert {doc_id: row["title"] for doc_id, row in figures["by_document"].items()} == {
        doc_id: title for title, doc_id in ids.items()
    }
    assert all(row["answers"] == 1 for row in figures["by_document"].values())

    shown = run("stats").stdout.splitlines()
    by_document = shown[shown.index("by document:") + 1 : shown.index("by day:")]
    assert sorted(line.split(":")[0] for line in by_document) == sorted(
        f"  {title} ({doc_id})" for title, doc_id in ids.items()
    )


def test_a_document_no_longer_in_the_library_is_named_by_its_id_and_said_to_be_gone(tmp_path):
    ids = ingest_two(tmp_path)
    gone = ids["Market Tolls of Leiden"]
    assert run("ask", gone, "What does stall 3 pay?", "--no-model").returncode == 0
    with Library() as library:
        library.remove(gone)

    assert run("history").stdout.splitlines()[1] == f"    about {gone} (no longer in the library)"
    assert json.loads(run("history", "--json").stdout)[0]["documents"] == [
        {"id": gone, "title": None}
    ]
    assert f"  {gone} (no longer in the library): 1 answer," in run("stats").stdout
    assert json.loads(run("stats", "--json").stdout)["by_document"][gone]["title"] is None
