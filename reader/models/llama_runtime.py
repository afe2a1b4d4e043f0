"""How llama.cpp is set up before a model loads: its CPU code, and AMX kept out.

Two things decide whether llama.cpp runs on the processor it finds:

- **Which CPU code it has.** A llama.cpp built for one processor (``-march=native``)
  dies with SIGILL on one without the same instructions. The bundle's llama.cpp is
  built with one CPU library per processor generation (``GGML_BACKEND_DL`` with
  ``GGML_CPU_ALL_VARIANTS``, see ``packaging/README.md``); such a build loads none
  by itself, so ``load_cpu_backends`` asks ggml to load the best one for this
  processor from llama_cpp's own folder.
- **AMX.** Where the processor advertises AMX (Intel Xeon since 2023), llama.cpp
  moves quantised weights into an AMX buffer and multiplies them with tile
  instructions. On machines where the system does not give the process the tile
  state (seen on cloud virtual machines), the first such instruction raises SIGILL
  (llama.cpp issues 13678, 28756). ``keep_weights_plain`` then keeps weights out of
  llama.cpp's extra buffer types, which it uses only for AMX and weight repacking;
  elsewhere they stay on. The cost was measured on such a machine (see
  ``models/README.md``).

Both run in the model process only (``reader.models.model_process``), before the
first model loads.
"""

from __future__ import annotations

import ctypes
import functools
import os
import re
import sys
from pathlib import Path
from typing import Any

from reader.errors import ModelError

# "on" or "off" forces llama.cpp's extra buffer types either way (for measuring).
EXTRA_BUFFERS_VARIABLE = "READER_LLAMA_EXTRA_BUFFERS"
# A variant's name ("haswell", "icelake" ...) loads that CPU library instead of the
# best one (for measuring, or where ggml's choice fails).
CPU_VARIANT_VARIABLE = "READER_LLAMA_CPU_VARIANT"
_AMX_FLAGS = ("amx_tile", "amx_int8", "amx_bf16")


def advertises_amx(cpuinfo: str | None = None) -> bool:
    """Whether the processor says it has AMX (read from /proc/cpuinfo; only Linux
    machines have AMX processors that reader runs on)."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="ascii", errors="replace")
        except OSError:
            return False
    for line in cpuinfo.splitlines():
        if line.startswith("flags"):
            flags = set(line.partition(":")[2].split())
            return any(flag in flags for flag in _AMX_FLAGS)
    return False


def use_extra_buffers() -> bool:
    """Whether llama.cpp may move weights into its extra buffer types (see above)."""
    forced = os.environ.get(EXTRA_BUFFERS_VARIABLE, "").strip().lower()
    if forced in ("on", "off"):
        return forced == "on"
    return not advertises_amx()


_LIBRARY_FORMS = (("lib", ".so"), ("", ".dll"), ("lib", ".dylib"))


def _library_names(stem: str) -> list[str]:
    if sys.platform == "win32":
        return [f"{stem}.dll"]
    if sys.platform == "darwin":
        return [f"lib{stem}.dylib"]
    return [f"lib{stem}.so"]


def cpu_variants(lib_dir: Path) -> list[Path]:
    """The per-processor CPU libraries of a ``GGML_CPU_ALL_VARIANTS`` build."""
    return sorted(
        path
        for pattern in ("libggml-cpu-*", "ggml-cpu-*")
        for path in lib_dir.glob(pattern)
        if path.suffix in (".so", ".dll", ".dylib")
    )


def _loaded_ggml() -> str | None:
    """The file of the ggml library llama.cpp loaded in this process (Linux).

    A wheel holds libggml.so, libggml.so.0 ... as copies, not links: backends
    registered with a copy that llama.cpp did not load are not seen by it.
    """
    try:
        maps = Path("/proc/self/maps").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in maps.splitlines():
        fields = line.split(maxsplit=5)
        if len(fields) == 6 and re.search(r"/libggml\.so[.\d]*$", fields[5]):
            return fields[5]
    return None


def load_cpu_backends(llama_cpp: Any) -> None:
    """Load the CPU library that suits this processor, for a build that loads its
    backends at run time (a build that links its CPU code has it registered)."""
    lib_dir = Path(llama_cpp.__file__).resolve().parent / "lib"
    variants = cpu_variants(lib_dir)
    if not variants:
        # pip installs such a wheel's variants as data, into the environment's bin/.
        for folder in (Path(sys.prefix) / "bin", Path(sys.prefix) / "Scripts"):
            variants = cpu_variants(folder)
            if variants:
                break
    if not variants:
        return
    variants_dir = variants[0].parent
    ggml_path = _loaded_ggml() or next(
        (lib_dir / name for name in _library_names("ggml") if (lib_dir / name).is_file()), None
    )
    if ggml_path is None:
        return
    ggml = ctypes.CDLL(str(ggml_path))
    ggml.ggml_backend_reg_count.restype = ctypes.c_size_t
    if ggml.ggml_backend_reg_count() > 0:
        return
    chosen = os.environ.get(CPU_VARIANT_VARIABLE, "").strip()
    if chosen:
        names = [
            f"ggml-cpu-{chosen}.dll",
            f"libggml-cpu-{chosen}.so",
            f"libggml-cpu-{chosen}.dylib",
        ]
        found = [variants_dir / name for name in names if (variants_dir / name).is_file()]
        known = ", ".join(path.stem.rpartition("cpu-")[2] for path in variants)
        ggml.ggml_backend_load.restype = ctypes.c_void_p
        ggml.ggml_backend_load.argtypes = [ctypes.c_char_p]
        if not found or not ggml.ggml_backend_load(str(found[0]).encode()):
            raise ModelError(
                f"{CPU_VARIANT_VARIABLE}={chosen} names no CPU library this processor can "
                f"load; unset it, or choose one of: {known}."
            )
        return
    ggml.ggml_backend_load_all_from_path.argtypes = [ctypes.c_char_p]
    ggml.ggml_backend_load_all_from_path(str(variants_dir).encode())


def keep_weights_plain(llama_cpp: Any) -> None:
    """Make every model loaded from now on keep its weights out of llama.cpp's
    extra buffer types (llama-cpp-python sets no such option itself, so its
    default parameters are changed at their source)."""
    module = llama_cpp.llama_cpp
    defaults = module.llama_model_default_params
    if getattr(defaults, "_reader_plain", False):
        return

    @functools.wraps(defaults)
    def plain_defaults() -> Any:
        params = defaults()
        params.use_extra_bufts = False
        return params

    plain_defaults._reader_plain = True  # type: ignore[attr-defined]
    plain_defaults._reader_original = defaults  # type: ignore[attr-defined]
    module.llama_model_default_params = plain_defaults


def prepare(llama_cpp: Any) -> None:
    """Everything above, once, before the first model loads."""
    load_cpu_backends(llama_cpp)
    if not use_extra_buffers():
        keep_weights_plain(llama_cpp)
