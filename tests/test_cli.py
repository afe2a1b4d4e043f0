"""The CLI contract that tests, benchmarks and tools depend on."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from reader.cli import cli, main

TEXT = "\n\n".join(
    f"Section {n} states that the fee is {n * 3} dollars. Payment is due monthly."
    for n in range(40)
)


def run(*args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run the real ``reader`` entry point in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "reader.cli", *args],
        capture_output=True,
        text=True,
        input=input,
    )


def assert_one_line_failure(completed: subprocess.CompletedProcess[str]) -> str:
    assert completed.returncode == 2, completed
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1, completed.stderr
    assert "Traceback" not in completed.stderr
    return lines[0]


def test_every_command_has_help():
    runner = CliRunner()
    for name, command in cli.commands.items():
        assert command.help, name
        result = runner.invoke(cli, [name, "--help"])
        assert result.exit_code == 0, name


def test_ingest_json_reports_each_file_and_exits_2_if_any_failed(make_file):
    good = make_file("good.txt", TEXT.encode())
    bad = make_file("bad.pdf", b"garbage" * 50)
    completed = run("ingest", str(good), str(bad), "--json")
    assert completed.returncode == 2
    results = [json.loads(line) for line in completed.stdout.splitlines()]
    assert results[0]["path"] == str(good)
    assert set(results[0]) >= {"path", "doc_id", "pages", "chars", "chunks"}
    assert results[0]["chars"] == len(TEXT)
    assert results[1]["path"] == str(bad) and "error" in results[1]
    assert "Traceback" not in completed.stderr
    # the good one landed
    listed = json.loads(run("list", "--json").stdout)
    assert [d["id"] for d in listed] == [results[0]["doc_id"]]


def test_ingest_succeeds_with_status_0(make_file):
    completed = run("ingest", str(make_file("good.txt", TEXT.encode())))
    assert completed.returncode == 0
    assert "40" not in completed.stderr


@pytest.mark.parametrize(
    ("name", "data", "words"),
    [
        ("missing.pdf", None, "no such file"),
        ("empty.pdf", b"", "empty"),
        ("corrupt.pdf", b"%PDF-1.4 garbage" * 10, "damaged"),
        ("deck.pptx", b"PK\x03\x04", "cannot open"),
    ],
)
def test_expected_failures_print_one_line_and_exit_2(tmp_path, name, data, words):
    path = tmp_path / name
    if data is not None:
        path.write_bytes(data)
    for command in (["ingest", str(path)], ["text", str(path)], ["chunks", str(path)]):
        line = assert_one_line_failure(run(*command))
        assert words in line.lower()


def test_unknown_document_id_is_an_expected_failure():
    line = assert_one_line_failure(run("text", "0123456789abcdef"))
    assert "reader list" in line


def test_text_prints_canonical_text_only(make_file):
    path = make_file("doc.txt", TEXT.encode())
    by_path = run("text", str(path))
    assert by_path.returncode == 0 and by_path.stdout == TEXT
    doc_id = json.loads(run("ingest", str(path), "--json").stdout)["doc_id"]
    assert run("text", doc_id).stdout == TEXT
    assert run("text", doc_id[:8]).stdout == TEXT


def test_chunks_json_schema(make_file):
    path = make_file("doc.txt", TEXT.encode())
    completed = run("chunks", str(path), "--json")
    chunks = json.loads(completed.stdout)
    assert chunks
    for chunk in chunks:
        assert set(chunk) == {
            "id",
            "doc_id",
            "start",
            "end",
            "text",
            "heading",
            "pages",
            "url",
            "ocr_pages",
            "back_matter",
        }
        assert chunk["back_matter"] is False
        assert TEXT[chunk["start"] : chunk["end"]] == chunk["text"]
        assert chunk["url"] == f"reader://{chunk['doc_id']}#{chunk['start']}-{chunk['end']}"
        assert chunk["pages"] == [1]


def test_search_json(make_file):
    path = make_file("doc.txt", TEXT.encode())
    run("ingest", str(path))
    hits = json.loads(run("search", "fee is 27 dollars", "--doc", str(path), "--json").stdout)
    assert hits and "Section 9 " in hits[0]["text"]
    assert all("score" in hit for hit in hits)
    assert json.loads(run("search", '"AND *', "--json").stdout) is not None


def test_verify_quote_and_batch(make_file, tmp_path):
    path = make_file("doc.txt", TEXT.encode())
    chunks = json.loads(run("chunks", str(path), "--json").stdout)
    target = next(c for c in chunks if "Section 12 " in c["text"])
    single = json.loads(
        run(
            "verify",
            str(path),
            "--quote",
            "the fee is 36 DOLLARS",
            "--source",
            target["id"],
            "--json",
        ).stdout
    )
    assert single["status"] == "exact"
    assert TEXT[single["start"] : single["end"]] == "the fee is 36 dollars"

    batch = tmp_path / "batch.jsonl"
    batch.write_text(
        "\n".join(
            [
                json.dumps({"quote": "the fee is 36 dollars", "source": target["id"]}),
                json.dumps({"quote": "the fee is 37 dollars", "source": target["id"]}),
                json.dumps({"quote": "Payment is due monthly"}),
                "not json",
            ]
        )
    )
    completed = run("verify", str(path), "--batch", str(batch), "--json")
    # One quote missed and one line no quote at all: the check could not be made (2).
    assert completed.returncode == 2, completed.stderr
    results = [json.loads(line) for line in completed.stdout.splitlines()]
    assert [r["status"] for r in results] == ["exact", "miss", "exact", "miss"]
    expected_keys = {"status", "reason", "chunk_id", "start", "end", "page", "score", "occurrences"}
    assert all(expected_keys <= set(r) for r in results)
    assert results[1]["start"] is None and results[1]["end"] is None
    assert results[2]["occurrences"] == 40


def test_verify_exits_0_when_the_quote_is_found_and_1_when_it_is_missed(make_file):
    path = make_file("doc.txt", TEXT.encode())
    found = run("verify", str(path), "--quote", "the fee is 36 dollars")
    assert found.returncode == 0, found.stderr
    assert found.stdout.startswith('exact: "the fee is 36 dollars" at chars ')

    missed = run("verify", str(path), "--quote", "the fee is 37 dollars")
    assert missed.returncode == 1, missed.stderr
    assert missed.stdout == (
        'miss: "the fee is 37 dollars" not found: the quote was not found anywhere in '
        "the document\n"
    )
    assert missed.stderr == ""
    as_json = run("verify", str(path), "--quote", "the fee is 37 dollars", "--json")
    assert as_json.returncode == 1 and json.loads(as_json.stdout)["status"] == "miss"


def test_verify_batch_exits_1_if_any_quote_misses_and_names_each_missed_quote(make_file, tmp_path):
    path = make_file("doc.txt", TEXT.encode())
    chunks = json.loads(run("chunks", str(path), "--json").stdout)
    cited = next(c for c in chunks if "Section 12 " in c["text"])["id"]
    long_quote = "the fee is 36 dollars and " + "the payment is not due weekly " * 5
    lines = {
        "found": json.dumps({"quote": "the fee is 36 dollars", "source": cited}),
        "elsewhere": json.dumps({"quote": "the fee is 3 dollars", "source": cited}),
        "long": json.dumps({"quote": long_quote}),
        "broken": "not json",
    }
    batch = tmp_path / "batch.jsonl"
    batch.write_text(lines["found"] + "\n", encoding="utf-8")
    assert run("verify", str(path), "--batch", str(batch)).returncode == 0

    batch.write_text("\n".join(lines.values()), encoding="utf-8")
    completed = run("verify", str(path), "--batch", str(batch))
    # A line that is not JSON is the input's fault: the check cannot be made (2), though
    # the other lines are checked, and misses among them would be 1 on their own.
    assert completed.returncode == 2, completed.stderr
    found, elsewhere, long, broken = completed.stdout.splitlines()
    assert found.startswith('exact: "the fee is 36 dollars" at chars ')
    assert elsewhere.startswith('miss: "the fee is 3 dollars" not found: the quote is in chunk ')
    assert elsewhere.endswith(f"not in the cited chunk {cited}")
    # A long quote is shown whole, on one line: its end may be what tells it apart.
    shown = long.split('"')[1]
    assert shown == " ".join(long_quote.split())
    assert long.startswith('miss: "the fee is 36 dollars and the payment') and "not found: " in long
    assert broken == "miss: line 4 of the batch is not valid JSON"
    assert "None" not in completed.stdout
    batch.write_text("\n".join([lines["found"], lines["elsewhere"]]), encoding="utf-8")
    assert run("verify", str(path), "--batch", str(batch)).returncode == 1


def test_verify_help_documents_its_exit_status():
    shown = " ".join(CliRunner().invoke(cli, ["verify", "--help"]).output.split())
    assert (
        "Exit status: 0 when every quote is found (exact or fuzzy), 1 when any quote is missed"
        in shown
    )
    assert "2 when the check cannot be made" in shown
    assert "a batch line that is not JSON or holds no quote" in shown


def test_verify_needs_a_quote_or_a_batch(make_file):
    path = make_file("doc.txt", TEXT.encode())
    assert_one_line_failure(run("verify", str(path)))


def make_odd_path(kind: str, folder: Path) -> tuple[str, str]:
    """Something at a path that is not a readable document, and the words that say so."""
    if kind == "folder":
        (folder / "papers").mkdir()
        return str(folder / "papers"), "is a folder; give the files inside it"
    if kind == "loop":
        (folder / "loop.pdf").symlink_to("loop.pdf")
        return str(folder / "loop.pdf"), "loops back on itself"
    if kind == "dangling":
        (folder / "paper.pdf").symlink_to("gone.pdf")
        return str(folder / "paper.pdf"), f"link to {folder / 'gone.pdf'}, which does not exist"
    if kind == "fifo":
        os.mkfifo(folder / "pipe.txt")
        return str(folder / "pipe.txt"), "is a named pipe (FIFO)"
    if kind == "socket":
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(str(folder / "reader.sock"))
        return str(folder / "reader.sock"), "is a socket, not a document"
    if kind == "nul-text":
        (folder / "zeros.txt").write_bytes(bytes(2048))
        return str(folder / "zeros.txt"), "holds NUL bytes"
    if kind == "missing":
        return str(folder / "nope.pdf"), "no such file"
    return kind, "is a device, not a document"


# ingest walks a folder; an empty one holds nothing to ingest.
EMPTY_FOLDER = "holds no files matching the document kinds"
ODD_PATHS = ["folder", "loop", "dangling", "fifo", "socket", "/dev/null", "/dev/zero", "missing"]
COMMANDS = {
    "ingest": ["ingest", "{}"],
    "ask": ["ask", "{}", "What is the fee?", "--no-model"],
    "text": ["text", "{}"],
    "chunks": ["chunks", "{}"],
    "verify": ["verify", "{}", "--quote", "the fee"],
    "open": ["open", "{}"],
    "bare": ["{}"],
}


@pytest.mark.parametrize("kind", ODD_PATHS)
def test_each_odd_path_gets_its_own_message_from_every_command(kind, tmp_path, capsys):
    path, words = make_odd_path(kind, tmp_path)
    for name, template in COMMANDS.items():
        with pytest.raises(SystemExit) as exited:
            main([part.replace("{}", path) for part in template])
        captured = capsys.readouterr()
        assert exited.value.code == 2, (name, captured)
        assert captured.err.count("\n") == 1, (name, captured.err)
        expected = EMPTY_FOLDER if (kind, name) == ("folder", "ingest") else words
        assert captured.err.startswith("error: ") and expected in captured.err, (name, captured)


def test_a_bare_name_that_can_only_be_a_file_is_opened_not_taken_for_a_command(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exited:
        main(["paper.pdf"])
    assert exited.value.code == 2
    assert (
        capsys.readouterr().err == "error: paper.pdf: no such file; check the path and try again.\n"
    )


@pytest.mark.parametrize("kind", ["folder", "dangling", "fifo", "/dev/zero", "nul-text"])
def test_odd_paths_fail_in_one_line_from_the_real_command(kind, tmp_path):
    path, words = make_odd_path(kind, tmp_path)
    for command in (["ask", path, "What is the fee?", "--no-model"], ["ingest", path]):
        line = assert_one_line_failure(run(*command))
        expected = EMPTY_FOLDER if (kind, command[0]) == ("folder", "ingest") else words
        assert line.startswith("error: ") and expected in line


def test_a_file_this_user_may_not_read(tmp_path):
    """Root reads any file: as root (as in CI) the command runs without the two
    capabilities that let it, so it meets permissions as any other user does."""
    secret = tmp_path / "secret.pdf"
    secret.write_bytes(b"%PDF-1.4 not for you")
    secret.chmod(0o000)
    prefix = []
    if os.geteuid() == 0:
        prefix = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]
    probe = subprocess.run(
        [*prefix, sys.executable, "-c", f"open({str(secret)!r}, 'rb')"],
        capture_output=True,
        text=True,
    )
    assert "PermissionError" in probe.stderr  # the file really is unreadable here
    for command in (["ingest", str(secret)], ["text", str(secret)], [str(secret)]):
        completed = subprocess.run(
            [*prefix, sys.executable, "-m", "reader.cli", *command], capture_output=True, text=True
        )
        line = assert_one_line_failure(completed)
        assert f"{secret} cannot be read: permission denied" in line, line


def test_verify_shows_long_quotes_whole_so_two_that_end_apart_print_apart(make_file):
    text = (
        "In 1790, Congress enacted the first copyright law, which secured that copyright "
        "for fourteen years, and the author could renew it once."
    )
    path = make_file("law.txt", text.encode())
    start = "Congress enacted the first copyright law, which secured that copyright for "
    found = run("verify", str(path), "--quote", start + "fourteen years")
    missed = run("verify", str(path), "--quote", start + "fifteen years")
    assert found.returncode == 0 and missed.returncode == 1
    assert f'"{start}fourteen years"' in found.stdout
    assert f'"{start}fifteen years"' in missed.stdout
