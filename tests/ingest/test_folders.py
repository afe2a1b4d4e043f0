"""Which files a list of files and folders names."""

from __future__ import annotations

from pathlib import Path

from reader.ingest.folders import select_files


def make_tree(root: Path, names: list[str]) -> Path:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"The text of {name}.", encoding="utf-8")
    return root


TREE = [
    "b.pdf",
    "a.TXT",
    "notes.docx",
    "image.png",
    "sub/c.md",
    "sub/deeper/d.epub",
    "drafts/e.pdf",
    "sub/f-old.pdf",
]


def names(files: list[Path], root: Path) -> list[str]:
    return [path.relative_to(root).as_posix() for path in files]


def test_folders_are_walked_in_name_order_for_every_kind_reader_reads(tmp_path):
    root = make_tree(tmp_path / "library", TREE)
    selection = select_files([root])
    assert names(selection.files, root) == [
        "a.TXT",
        "b.pdf",
        "drafts/e.pdf",
        "sub/c.md",
        "sub/f-old.pdf",
        "sub/deeper/d.epub",
    ]
    assert selection.folders == [root]
    assert selection.unreadable == []


def test_without_recursion_only_the_folders_own_files_are_taken(tmp_path):
    root = make_tree(tmp_path / "library", TREE)
    assert names(select_files([root], recursive=False).files, root) == ["a.TXT", "b.pdf"]


def test_globs_choose_files_and_excludes_leave_out_files_and_whole_folders(tmp_path):
    root = make_tree(tmp_path / "library", TREE)
    pdfs = select_files([root], include=["*.PDF"], exclude=["drafts", "*-old.pdf"])
    assert names(pdfs.files, root) == ["b.pdf"]
    by_path = select_files([root], include=["sub/*"], exclude=["sub/deeper"])
    assert names(by_path.files, root) == ["sub/c.md", "sub/f-old.pdf"]
    docx = select_files([root], include=["*.docx"])
    assert names(docx.files, root) == ["notes.docx"]


def test_files_named_on_their_own_are_taken_whatever_their_kind_and_only_once(tmp_path):
    root = make_tree(tmp_path / "library", TREE)
    selection = select_files([root / "notes.docx", root / "missing.pdf", root, root / "b.pdf"])
    listed = names(selection.files, root)
    assert listed[:2] == ["notes.docx", "missing.pdf"]
    assert listed.count("b.pdf") == 1
    assert len(listed) == 8


def test_links_to_folders_are_not_followed_so_a_loop_ends(tmp_path):
    root = make_tree(tmp_path / "library", ["a.pdf", "sub/b.pdf"])
    (root / "sub" / "back").symlink_to(root, target_is_directory=True)
    assert names(select_files([root]).files, root) == ["a.pdf", "sub/b.pdf"]
