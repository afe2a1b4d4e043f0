"""What a newcomer met in a first hour, each held: messages that say what happened,
JSON with every field the README names, warnings that say which file."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from reader.cli import cli

FEES = "Fees\n\nThe harbour fee is 36 crowns, due monthly at the stone house by the quay.\n"


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_a_search_that_finds_nothing_says_so(tmp_path):
    path = tmp_path / "fees.txt"
    path.write_text(FEES, encoding="utf-8")
    assert invoke("ingest", str(path)).exit_code == 0
    found = invoke("search", "xyzzyqq")
    assert found.exit_code == 0 and found.stdout == ""
    assert "No passage of the library holds those words" in found.stderr


def test_ask_json_gives_each_claims_page_label_and_judgement(tmp_path):
    path = tmp_path / "fees.txt"
    path.write_text(FEES, encoding="utf-8")
    asked = invoke("ask", str(path), "How much is the harbour fee?", "--no-model", "--json")
    assert asked.exit_code == 0, asked.output
    claims = json.loads(asked.stdout)["claims"]
    assert claims and all({"page_label", "support_judged"} <= claim.keys() for claim in claims)


def test_history_says_which_claims_no_longer_verify(tmp_path):
    path = tmp_path / "fees.txt"
    path.write_text(FEES, encoding="utf-8")
    invoke("ask", str(path), "How much is the harbour fee?", "--no-model")
    path.write_text("Fees\n\nThe harbour fee was abolished.\n", encoding="utf-8")
    assert invoke("ingest", "--update", str(path)).exit_code == 0
    shown = invoke("history", "--limit", "1")
    assert 'not verified now: "The harbour fee is 36 crowns' in shown.stdout, shown.stdout


def test_a_folder_ingest_warning_names_its_file_and_is_said_once(tmp_path, make_pdf):
    folder = tmp_path / "docs"
    folder.mkdir()
    make_pdf([["A page of text about the harbour."], []], name="docs/half-empty.pdf")
    first = invoke("ingest", str(folder))
    assert "  warning: half-empty.pdf: " in first.stderr, first.stderr
    again = invoke("ingest", str(folder))
    assert "warning" not in again.stderr  # already in the library: warned when it was read


@pytest.mark.model
def test_a_terminal_is_told_while_a_model_answers(tmp_path):
    from tests.commands.test_text_command import on_a_terminal

    path = tmp_path / "fees.txt"
    path.write_text(FEES, encoding="utf-8")
    shown = on_a_terminal("ask", str(path), "How much is the harbour fee?", "--mode", "constrained")
    assert "answering with SmolLM2" in shown.decode("utf-8")
    piped = invoke("ask", str(path), "How much is the harbour fee?", "--mode", "constrained")
    assert "answering with" not in piped.stderr
