"""`reader rename DOC "Title"`: by path or id, shown by every listing; --reset."""

from __future__ import annotations

import json

from tests.test_cli import assert_one_line_failure, run

NOTES = "# Introduction\n\nThe harbour fee is four guilders a tide.\n"


def test_rename_by_path_then_by_id_and_reset(tmp_path):
    path = tmp_path / "harbour-notes.md"
    path.write_text(NOTES, encoding="utf-8")
    renamed = run("rename", str(path), "Harbour Fees of Utrecht")  # ingested first
    assert renamed.returncode == 0, renamed.stderr
    doc_id, title = renamed.stdout.strip().split("  ")
    assert title == "Harbour Fees of Utrecht"
    assert "Harbour Fees of Utrecht" in run("list").stdout
    assert run("rename", doc_id[:8], "Utrecht Tolls").stdout.strip() == f"{doc_id}  Utrecht Tolls"
    (listed,) = json.loads(run("list", "--json").stdout)
    assert listed["title"] == "Utrecht Tolls"
    reset = run("rename", doc_id, "--reset")
    assert reset.stdout.strip() == f"{doc_id}  harbour notes"


def test_rename_needs_a_title_or_reset_and_a_known_document(tmp_path):
    path = tmp_path / "notes.md"
    path.write_text(NOTES, encoding="utf-8")
    assert "--reset" in assert_one_line_failure(run("rename", str(path)))
    assert "--reset" in assert_one_line_failure(run("rename", str(path), "T", "--reset"))
    assert "reader list" in assert_one_line_failure(run("rename", "feedfacecafe", "Title"))
