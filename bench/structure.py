"""Print reader's structure: its rooms, import cycles, imports against the layer
order, files over 450 lines, and reaches into the store from the clients.

    python bench/structure.py            # this checkout
    python bench/structure.py OTHER/reader   # another tree's package, to compare

The rules themselves are checked by ``tests/test_architecture.py``; this prints
the figures it checks.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tests.test_architecture as architecture  # noqa: E402

LONG_FILE = 450


def main() -> None:
    if len(sys.argv) > 1:
        architecture.PACKAGE = Path(sys.argv[1]).resolve()
        architecture.modules.cache_clear()
    modules = architecture.modules()
    graph = architecture.graph()
    lines = {
        name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in modules.items()
    }
    rooms: Counter[str] = Counter()
    room_lines: Counter[str] = Counter()
    for name in graph:
        rooms[architecture.room(name)] += 1
        room_lines[architecture.room(name)] += lines[name]
    print(f"package: {architecture.PACKAGE}")
    print(f"modules: {len(modules)}, lines: {sum(lines.values())}")
    print(
        "rooms: "
        + ", ".join(f"{room} {rooms[room]} ({room_lines[room]} lines)" for room in sorted(rooms))
    )
    found = architecture.cycles(graph)
    print(f"import cycles: {len(found)}")
    for group in found:
        print("  " + " <-> ".join(group))
    known = set().union(*architecture.LAYERS)
    upward = [
        f"{name} -> {target}"
        for name, targets in sorted(graph.items())
        for target in sorted(targets)
        if {architecture.room(name), architecture.room(target)} <= known
        and architecture.layer(target) > architecture.layer(name)
    ]
    loose = sorted(room for room in rooms if room not in known)
    print(f"imports against the layer order: {len(upward)}")
    for edge in upward:
        print("  " + edge)
    if loose:
        print("modules outside the rooms: " + ", ".join(loose))
    long_files = sorted((count, name) for name, count in lines.items() if count > LONG_FILE)
    print(f"files over {LONG_FILE} lines: {len(long_files)}")
    for count, name in reversed(long_files):
        print(f"  {count:4d} {name}")
    reaches = 0
    for name, path in modules.items():
        if name == "reader" or architecture.room(name) not in architecture.CLIENTS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        reaches += sum(
            isinstance(node, ast.Attribute) and node.attr == "store" for node in ast.walk(tree)
        )
        reaches += sum(
            architecture.room(target) == "store" for target in architecture.imports_of(name)
        )
    print(f"reaches into the store from the command line and the window: {reaches}")


if __name__ == "__main__":
    main()
