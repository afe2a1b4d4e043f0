"""A repair on a disk that fills up: one line saying so, no file left behind, the library
as it was; with room again the same repair succeeds."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tests.damage import library_of_two_documents, overwrite_pages
from tests.store.test_file_guard import in_mount_namespace


# Room left: enough to open the library and begin (more than reader's 256 KiB
# margin), not for the rebuild (the library is 360 KiB, its rebuild no smaller); at
# 300 KiB the rebuild's own file cannot take its journal, at 600 KiB it fills up
# while a document is saved.
@pytest.mark.parametrize("room", ["300K", "600K"])
def test_a_repair_the_disk_has_no_room_for_fails_in_one_line_and_leaves_nothing(
    reader_home, tmp_path, monkeypatch, room
):
    library = library_of_two_documents(tmp_path)
    prepared = Path(library["path"])  # type: ignore[arg-type]
    overwrite_pages(prepared, library["essay_pages"][3:5])  # type: ignore[index]
    home = tmp_path / "small-disk"
    home.mkdir()
    monkeypatch.setenv("READER_HOME", str(home))
    disk, source = shlex.quote(str(home)), shlex.quote(str(prepared))
    work = tmp_path / "namespace-output"

    failed, repaired, listing = in_mount_namespace(
        f"mount -t tmpfs -o size=4m tmpfs {disk}; cp {source} {disk}/library.db",
        f"dd if=/dev/zero of={disk}/filler bs=4096 2>/dev/null",  # the disk fills up
        f"truncate -s -{room} {disk}/filler",
        f"sha256sum < {disk}/library.db > before",
        ["repair"],
        f"sha256sum < {disk}/library.db > after; ls -A {disk} > listing",
        f"rm {disk}/filler",
        ["repair"],
        ["list"],
    )

    assert failed.returncode == 2, failed
    assert failed.stderr.strip().splitlines()[-1] == (
        f"error: The repair of the library at {home / 'library.db'} failed: the disk is full; "
        "the damaged library is unchanged. Free some disk space and run `reader repair` again."
    )
    assert "Could not save" not in failed.stderr
    assert (work / "after").read_text() == (work / "before").read_text()
    left = (work / "listing").read_text().split()
    assert sorted(left) == ["filler", "library.db", "library.db.lock"], left
    assert repaired.returncode == 0, repaired
    assert "1 kept from the library, 1 re-read from their files, 0 lost" in repaired.stdout
    assert listing.returncode == 0 and "essay" in listing.stdout and "letter" in listing.stdout


@pytest.fixture(autouse=True)
def _needs_unshare() -> None:
    import shutil

    if shutil.which("unshare") is None:
        pytest.fail("unshare is missing: sudo apt install util-linux")
