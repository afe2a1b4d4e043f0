"""Ingesting folders: skipping what is unchanged, finding moved files, changed files,
parallel extraction."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pymupdf
import pytest

import reader.library.batch
from reader.ingest import document_id
from reader.library import Library
from reader.library.batch import ingest_paths
from reader.library.batch_report import FileOutcome
from reader.library.reverify import reverify
from reader.library.stale import stale_documents
from reader.records import Answer, AnswerMetrics, CheckedClaim, Claim


def paragraphs(name: str, count: int = 6) -> str:
    return "\n\n".join(
        f"Paragraph {n} of {name} says that the fee for item {n} is {n * 7} dollars."
        for n in range(count)
    )


def write_pdf(path: Path, name: str, pages: int = 2) -> Path:
    document = pymupdf.open()
    for page_number in range(pages):
        page = document.new_page(width=595, height=842)
        text = f"{name}, page {page_number + 1}. " + paragraphs(name, 3).replace("\n\n", " ")
        page.insert_textbox(pymupdf.Rect(72, 72, 523, 800), text, fontsize=11, fontname="helv")
    path.parent.mkdir(parents=True, exist_ok=True)
    document.save(path)
    document.close()
    return path


def make_folder(root: Path) -> Path:
    write_pdf(root / "alpha.pdf", "alpha")
    write_pdf(root / "reports" / "beta.pdf", "beta", pages=3)
    (root / "reports" / "gamma.txt").write_text(paragraphs("gamma"), encoding="utf-8")
    (root / "notes.md").write_text(paragraphs("delta"), encoding="utf-8")
    return root


class Calls:
    """Counts the calls of a function while passing them on."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> None:
        self.paths: list[Path] = []
        original = getattr(module, name)

        def counted(path, *args, **kwargs):
            self.paths.append(Path(path))
            return original(path, *args, **kwargs)

        monkeypatch.setattr(module, name, counted)


def states(outcomes: list[FileOutcome], root: Path) -> dict[str, str]:
    return {outcome.path.relative_to(root).as_posix(): outcome.state for outcome in outcomes}


def test_a_folder_is_ingested_and_a_second_run_reads_and_hashes_nothing(
    library, tmp_path, monkeypatch
):
    root = make_folder(tmp_path / "library")
    told: list[FileOutcome] = []
    first = ingest_paths(library, [root], on_file=told.append)
    assert states(told, root) == {
        "alpha.pdf": "added",
        "notes.md": "added",
        "reports/beta.pdf": "added",
        "reports/gamma.txt": "added",
    }
    assert first.pages == 2 + 3 + 1 + 1 and len(library.documents()) == 4
    hashed = Calls(monkeypatch, reader.library.batch, "document_id")
    extracted = Calls(monkeypatch, reader.library.batch, "extract_file")
    again = ingest_paths(library, [root])
    assert {outcome.state for outcome in again.outcomes} == {"unchanged"}
    assert hashed.paths == [] and extracted.paths == []
    assert len(library.documents()) == 4


def test_a_touched_file_is_hashed_once_then_known_by_its_new_time(library, tmp_path, monkeypatch):
    root = make_folder(tmp_path / "library")
    ingest_paths(library, [root])
    touched = root / "notes.md"
    os.utime(touched, ns=(10**18, 10**18))
    hashed = Calls(monkeypatch, reader.library.batch, "document_id")
    extracted = Calls(monkeypatch, reader.library.batch, "extract_file")
    report = ingest_paths(library, [root])
    assert hashed.paths == [touched] and extracted.paths == []
    assert report.count("unchanged") == 4
    ingest_paths(library, [root])
    assert hashed.paths == [touched]


def test_a_moved_file_is_found_by_its_content_and_only_recorded_at_its_new_path(
    library, tmp_path, monkeypatch
):
    root = make_folder(tmp_path / "library")
    ingest_paths(library, [root])
    moved = root / "archive" / "beta-2020.pdf"
    moved.parent.mkdir()
    (root / "reports" / "beta.pdf").rename(moved)
    extracted = Calls(monkeypatch, reader.library.batch, "extract_file")
    report = ingest_paths(library, [root])
    assert states(report.outcomes, root)["archive/beta-2020.pdf"] == "unchanged"
    assert extracted.paths == []
    paths = {document.path for document in library.documents()}
    assert str(moved) in paths and len(paths) == 4
    assert stale_documents(library) == []


def test_refused_files_are_listed_with_their_reasons_and_the_others_added(library, tmp_path):
    root = make_folder(tmp_path / "library")
    (root / "empty.pdf").write_bytes(b"")
    (root / "broken.pdf").write_bytes(b"%PDF-1.7 not really a pdf" * 30)
    (root / "gone.pdf").symlink_to(root / "nowhere.pdf")
    report = ingest_paths(library, [root], workers=2)
    reasons = {outcome.path.name: str(outcome.reason) for outcome in report.refused}
    assert set(reasons) == {"empty.pdf", "broken.pdf", "gone.pdf"}
    assert "is empty" in reasons["empty.pdf"]
    assert "damaged" in reasons["broken.pdf"]
    assert "which does not exist" in reasons["gone.pdf"]
    assert all("\n" not in reason for reason in reasons.values())
    assert report.count("added") == 4 and len(library.documents()) == 4


def test_a_file_whose_name_is_not_utf8_is_ingested_beside_the_others_and_known_again(
    library, tmp_path, monkeypatch
):
    root = make_folder(tmp_path / "library")
    ingest_paths(library, [root])
    others = library.documents()
    odd = root / os.fsdecode(b"r\xe9sum\xe9-\xff\xfe.md")  # Latin-1, as an old archive has it
    odd.write_text(paragraphs("epsilon"), encoding="utf-8")

    report = ingest_paths(library, [root], workers=2)
    assert states(report.outcomes, root) == {
        "alpha.pdf": "unchanged",
        "notes.md": "unchanged",
        "reports/beta.pdf": "unchanged",
        "reports/gamma.txt": "unchanged",
        odd.name: "added",
    }
    [added] = [outcome for outcome in report.outcomes if outcome.state == "added"]
    # The title is text that can be shown and stored: each stray byte is one U+FFFD.
    assert added.title == "r\ufffdsum\ufffd \ufffd\ufffd"
    listed = {document.id: document for document in library.documents()}
    assert listed.pop(str(added.doc_id)).path == str(odd)
    assert list(listed.values()) == others

    hashed = Calls(monkeypatch, reader.library.batch, "document_id")
    extracted = Calls(monkeypatch, reader.library.batch, "extract_file")
    again = ingest_paths(library, [root])
    assert again.count("unchanged") == 5 and hashed.paths == [] and extracted.paths == []
    assert stale_documents(library) == []

    odd.write_text(paragraphs("epsilon", 3), encoding="utf-8")
    assert [(d.doc_id, d.path, d.state) for d in stale_documents(library)] == [
        (added.doc_id, str(odd), "changed")
    ]
    update = ingest_paths(library, [root], update=True)
    assert [(o.path, o.state, o.replaced) for o in update.outcomes if o.state != "unchanged"] == [
        (odd, "updated", [added.doc_id])
    ]
    assert stale_documents(library) == [] and len(library.documents()) == 5


def test_parallel_ingest_stores_the_same_documents_and_chunks_as_serial(tmp_path):
    root = make_folder(tmp_path / "library")
    for n in range(4):
        write_pdf(root / "more" / f"extra-{n}.pdf", f"extra {n}", pages=2)
    stored = []
    for workers in (1, 2):
        told: list[FileOutcome] = []
        with Library(tmp_path / f"workers-{workers}.db") as library:
            report = ingest_paths(library, [root], workers=workers, on_file=told.append)
            assert report.count("added") == 8
            documents = {record.id: library.document(record.id) for record in library.documents()}
            stored.append(
                {
                    doc_id: (
                        document.text,
                        document.page_starts,
                        document.path,
                        [chunk.id for chunk in library.chunks(doc_id)],
                    )
                    for doc_id, document in documents.items()
                }
            )
        # Outcomes are told in the files' order whichever worker finished first.
        assert [outcome.path for outcome in told] == sorted(
            (outcome.path for outcome in told), key=lambda p: (p.parent != root, str(p))
        )
    assert stored[0] == stored[1]


def test_cancel_keeps_the_finished_documents_and_the_next_run_adds_the_rest(library, tmp_path):
    root = make_folder(tmp_path / "library")
    cancel = threading.Event()

    def stop_after_the_first(outcome: FileOutcome) -> None:
        cancel.set()

    report = ingest_paths(library, [root], cancel=cancel, on_file=stop_after_the_first)
    assert report.cancelled and report.count("added") == 1
    assert len(library.documents()) == 1
    rest = ingest_paths(library, [root])
    assert rest.count("unchanged") == 1 and rest.count("added") == 3
    assert len(library.documents()) == 4


def record_answer(library: Library, doc_id: str, quotes: list[str]) -> int:
    verifier = library.verifier(doc_id)
    claims = []
    for quote in quotes:
        verification = verifier.verify(quote)
        assert verification.verified and verification.chunk_id is not None
        claims.append(
            CheckedClaim(Claim(quote, verification.chunk_id, quote), verification, doc_id)
        )
    answer = Answer(
        question="What are the fees?",
        answer=" ".join(quotes),
        claims=claims,
        unsupported=[],
        model="test",
        mode="test",
        doc_ids=[doc_id],
        metrics=AnswerMetrics(),
    )
    return library.store.add_answer(answer)


def test_a_changed_file_is_stale_and_update_moves_its_answers_to_the_new_version(library, tmp_path):
    root = make_folder(tmp_path / "library")
    ingest_paths(library, [root])
    notes = root / "notes.md"
    old_id = library.store.find_document_ids(document_id(notes))[0]
    kept = "the fee for item 2 is 14 dollars"
    dropped = "the fee for item 5 is 35 dollars"
    answer_id = record_answer(library, old_id, [kept, dropped])

    notes.write_text("A new first paragraph.\n\n" + paragraphs("delta", 4), encoding="utf-8")
    (root / "alpha.pdf").unlink()
    stale = {document.path: document for document in stale_documents(library)}
    assert {Path(path).name: d.state for path, d in stale.items()} == {
        "notes.md": "changed",
        "alpha.pdf": "gone",
    }
    assert stale[str(notes)].doc_id == old_id

    report = ingest_paths(library, [root], update=True)
    [updated] = [outcome for outcome in report.outcomes if outcome.state == "updated"]
    assert updated.replaced == [old_id] and updated.answers_moved == 1
    new_id = updated.doc_id
    assert new_id != old_id and library.store.titles([old_id]) == {}
    assert [d.state for d in stale_documents(library)] == ["gone"]

    [stored] = library.store.answers(doc_id=new_id)
    assert stored.id == answer_id and stored.doc_ids == [new_id]
    checked = reverify(library, stored)
    first, second = checked.claims
    assert first.verified and first.doc_id == new_id
    assert "re-anchored" in first.verification.reason
    assert library.store.chunk(first.claim.source_id).doc_id == new_id
    text = library.document(new_id).text
    start, end = first.verification.start, first.verification.end
    assert start is not None and end is not None and text[start:end] == kept
    assert not second.verified and "quote is not in it" in second.verification.reason


def test_without_update_a_changed_file_is_added_beside_the_old_version(library, tmp_path):
    root = make_folder(tmp_path / "library")
    ingest_paths(library, [root])
    notes = root / "notes.md"
    old_id = library.store.find_document_ids(document_id(notes))[0]
    notes.write_text(paragraphs("delta", 3), encoding="utf-8")
    report = ingest_paths(library, [root])
    [changed] = [outcome for outcome in report.outcomes if outcome.state == "changed"]
    assert "--update replaces the old version" in str(changed.reason)
    assert len(library.documents()) == 5
    assert [(d.doc_id, d.state) for d in stale_documents(library)] == [(old_id, "changed")]
    # --update alone takes in every changed file of the library.
    update = ingest_paths(library, [], update=True)
    assert [(o.state, o.replaced) for o in update.outcomes] == [("updated", [old_id])]
    assert len(library.documents()) == 4 and stale_documents(library) == []


def index_segments(library: Library) -> int:
    return int(
        library.store.db.execute("SELECT count(DISTINCT segid) FROM chunks_fts_idx").fetchone()[0]
    )


def test_a_batch_that_grows_a_large_library_merges_its_index(reader_home, tmp_path, monkeypatch):
    folder = make_folder(tmp_path / "docs")
    with Library() as library:
        ingest_paths(library, [folder])
        assert index_segments(library) > 1  # a small library keeps its segments
    second = tmp_path / "more"
    for name in ("epsilon", "zeta", "eta"):
        (second / f"{name}.txt").parent.mkdir(parents=True, exist_ok=True)
        (second / f"{name}.txt").write_text(paragraphs(name), encoding="utf-8")
    monkeypatch.setattr(
        reader.library.batch, "MERGE_FROM_CHUNKS", 1
    )  # as if the library were large
    with Library() as library:
        ingest_paths(library, [second])
        assert index_segments(library) == 1
        assert library.search("epsilon fee") and library.search("alpha fee")


def saving_anew(monkeypatch, target: Path, versions: list[str]) -> None:
    """Each time ``target`` is about to be read, an editor saves it anew (written aside,
    renamed over it), with the next of ``versions``."""
    import reader.ingest

    read = reader.ingest.read_document

    def read_after_a_save(path, *args, **kwargs):
        if Path(path).name == target.name and versions:
            aside = target.with_suffix(".saving")
            aside.write_text(versions.pop(0), encoding="utf-8")
            aside.replace(target)
        return read(path, *args, **kwargs)

    monkeypatch.setattr(reader.ingest, "read_document", read_after_a_save)


def test_a_file_saved_anew_between_plan_and_read_is_stored_under_its_new_bytes(
    library, tmp_path, monkeypatch
):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.txt").write_text(paragraphs("alpha"), encoding="utf-8")
    target = folder / "b.txt"
    target.write_text("The old version says the harbour froze in 1709.", encoding="utf-8")
    saving_anew(monkeypatch, target, ["The new version says the harbour froze in 1740."])
    report = ingest_paths(library, [folder], workers=1)
    assert [o.state for o in report.outcomes] == ["added", "added"]
    (stored,) = [o for o in report.outcomes if o.path.name == "b.txt"]
    assert stored.doc_id == document_id(target)
    assert "1740" in library.document(stored.doc_id).text
    assert library.verifier(stored.doc_id).verify("harbour froze in 1709").status == "miss"


def test_a_file_that_changes_at_every_read_is_refused_and_the_others_added(
    library, tmp_path, monkeypatch
):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.txt").write_text(paragraphs("alpha"), encoding="utf-8")
    target = folder / "b.txt"
    target.write_text("Version zero of the log.", encoding="utf-8")
    saving_anew(monkeypatch, target, [f"Version {n} of the log." for n in range(1, 5)])
    report = ingest_paths(library, [folder], workers=1)
    states = {o.path.name: o for o in report.outcomes}
    assert states["a.txt"].state == "added"
    assert states["b.txt"].state == "refused"
    assert "changed while it was being read" in str(states["b.txt"].reason)
    assert len(library.documents()) == 1


def test_a_single_file_saved_anew_while_it_is_read_is_refused_and_nothing_stored(
    library, tmp_path, monkeypatch
):
    import reader.library.library
    from reader.errors import IngestError

    target = tmp_path / "log.txt"
    target.write_text("Version zero of the log.", encoding="utf-8")
    read = reader.library.library.read_document

    def read_then_saved(path, *args, **kwargs):
        result = read(path, *args, **kwargs)
        target.write_text("Version one of the log.", encoding="utf-8")
        return result

    monkeypatch.setattr(reader.library.library, "read_document", read_then_saved)
    with pytest.raises(IngestError, match="changed while it was being read"):
        library.ingest(target)
    assert library.documents() == []


def test_the_summary_counts_a_single_page_in_the_singular():
    from reader.library.batch_report import BatchReport, FileOutcome

    report = BatchReport([FileOutcome(Path("a.pdf"), "added", "0123", pages=1)], seconds=2.0)
    assert report.summary() == "1 added, 0 unchanged, 0 refused (1 page in 2 s, 0.5 pages/s)"
