"""Reading a GGUF file's header before llama.cpp is given it.

llama.cpp reads a model file with native code: a file that is not a GGUF, or
one cut short by an interrupted copy or download, should be refused with a
sentence the user can act on, not found out by the loader. The header says
what the file must hold (its metadata, its tensors, where each starts and what
type it is); here it is read and compared with the file's size, without
reading the weights.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import BinaryIO

from reader.errors import ModelError

MAGIC = b"GGUF"
SUPPORTED_VERSIONS = (2, 3)
DEFAULT_ALIGNMENT = 32
# Sizes of the metadata value types by their GGUF number; 8 is a string, 9 an array.
_SCALAR_SIZES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_STRING, _ARRAY = 8, 9
# Bytes per block and values per block of ggml's tensor types (ggml.h), for the
# types a GGUF commonly holds; a tensor of another type is checked by where it starts.
_TYPE_SIZES = {
    0: (4, 1),  # F32
    1: (2, 1),  # F16
    2: (18, 32),  # Q4_0
    3: (20, 32),  # Q4_1
    6: (22, 32),  # Q5_0
    7: (24, 32),  # Q5_1
    8: (34, 32),  # Q8_0
    10: (84, 256),  # Q2_K
    11: (110, 256),  # Q3_K
    12: (144, 256),  # Q4_K
    13: (176, 256),  # Q5_K
    14: (210, 256),  # Q6_K
    24: (1, 1),  # I8
    25: (2, 1),  # I16
    26: (4, 1),  # I32
    27: (8, 1),  # I64
    28: (8, 1),  # F64
    30: (2, 1),  # BF16
}
# Beyond these the header is not a real model's (a count read from garbage).
_MOST_ITEMS = 1 << 24
_LONGEST_STRING = 1 << 26


class _Truncated(Exception):
    pass


class _Header:
    """Reads the header's fields in order from a binary file."""

    def __init__(self, file: BinaryIO) -> None:
        self.file = file

    def take(self, size: int) -> bytes:
        data = self.file.read(size)
        if len(data) < size:
            raise _Truncated
        return data

    def u32(self) -> int:
        return int(struct.unpack("<I", self.take(4))[0])

    def u64(self) -> int:
        return int(struct.unpack("<Q", self.take(8))[0])

    def count(self, what: str) -> int:
        value = self.u64()
        if value > _MOST_ITEMS:
            raise ValueError(f"it claims {value:,} {what}")
        return value

    def string(self) -> str:
        length = self.u64()
        if length > _LONGEST_STRING:
            raise ValueError(f"it claims a name of {length:,} bytes")
        return self.take(length).decode("utf-8", "replace")

    def value(self, kind: int) -> int | str | None:
        """Read one metadata value; return it if it is a whole number or a string."""
        if kind == _STRING:
            return self.string()
        if kind == _ARRAY:
            item_kind, length = self.u32(), self.count("array items")
            if item_kind in _SCALAR_SIZES:
                self.take(_SCALAR_SIZES[item_kind] * length)
            else:
                for _ in range(length):
                    self.value(item_kind)
            return None
        if kind not in _SCALAR_SIZES:
            raise ValueError(f"it holds a metadata value of unknown type {kind}")
        data = self.take(_SCALAR_SIZES[kind])
        if kind in (4, 5):
            return int(struct.unpack("<I" if kind == 4 else "<i", data)[0])
        return None


def _tensor_bytes(kind: int, dims: list[int]) -> int | None:
    if kind not in _TYPE_SIZES:
        return None
    block_bytes, block_values = _TYPE_SIZES[kind]
    values = 1
    for dim in dims:
        values *= dim
    return values // block_values * block_bytes


def required_size(path: Path) -> int:
    """How many bytes the GGUF at ``path`` says it holds; raise ModelError if it is
    not a GGUF (or not a version llama.cpp reads) or its header is cut short."""
    name = path.name
    try:
        with path.open("rb") as file:
            header = _Header(file)
            try:
                if header.take(4) != MAGIC:
                    raise ModelError(
                        f"{name} is not a GGUF model file (it does not start with GGUF): "
                        "choose a .gguf file, such as one from `reader models`."
                    )
                version = header.u32()
                if version not in SUPPORTED_VERSIONS:
                    raise ModelError(
                        f"{name} is GGUF version {version}, which this llama.cpp does not "
                        "read: choose a GGUF made for llama.cpp (version 2 or 3)."
                    )
                tensors = header.count("tensors")
                entries = header.count("metadata entries")
                alignment = DEFAULT_ALIGNMENT
                for _ in range(entries):
                    key = header.string()
                    value = header.value(header.u32())
                    if key == "general.alignment" and isinstance(value, int) and value > 0:
                        alignment = value
                end = 0
                for _ in range(tensors):
                    header.string()
                    dims = [header.u64() for _ in range(header.u32())]
                    kind, offset = header.u32(), header.u64()
                    size = _tensor_bytes(kind, dims) or 1
                    end = max(end, offset + size)
                data_start = -(-file.tell() // alignment) * alignment
            except _Truncated:
                raise ModelError(
                    f"{name} is cut short inside its header: the copy or download did not "
                    "finish. Copy or download it again."
                ) from None
            except (ValueError, struct.error) as error:
                raise ModelError(
                    f"{name} is not a usable GGUF model file ({error}): "
                    "copy or download it again, or choose another model."
                ) from None
    except OSError as error:
        raise ModelError(f"{name} could not be read ({error.strerror or error}).") from None
    return data_start + end


def check_model_file(path: Path) -> None:
    """Refuse ``path`` with a ModelError unless it is a whole GGUF file."""
    if not path.is_file():
        raise ModelError(f"No model file at {path}.")
    needed = required_size(path)
    size = path.stat().st_size
    if size < needed:
        raise ModelError(
            f"{path.name} is cut short: it holds {size:,} of the {needed:,} bytes its "
            "header describes, so the copy or download did not finish. "
            "Copy or download it again."
        )
