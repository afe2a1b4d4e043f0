"""The house holds its shape: the core is headless, rooms import only the rooms
below them, no import cycles, and the command line and the window reach the
library only through its API.

Run alone to see the structure: ``python -m pytest tests/test_architecture.py -q``.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from functools import cache
from pathlib import Path

import reader

PACKAGE = Path(reader.__file__).parent
QT_MODULES = ("PySide6", "PyQt5", "PyQt6", "shiboken6")

# The rooms in the order data flows through them: a module may import its own
# room and the rooms before it, never one after. The last row are the clients.
LAYERS: list[set[str]] = [
    {"errors", "config", "process_log"},
    {"text"},
    {"records"},
    {"ingest"},
    {"store"},
    {"retrieve"},
    {"verify"},
    {"models"},
    {"answer"},
    {"library"},
    {"commands", "ui", "cli", "sample"},
]
CLIENTS = ("commands", "ui", "cli")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    return {module_name(path): path for path in PACKAGE.rglob("*.py")}


def _known(name: str) -> str | None:
    """The reader module ``name`` is, or is in (``reader.ingest.ocr.OcrSettings``)."""
    while name and name not in modules():
        name = name.rpartition(".")[0]
    return name or None


def imports_of(name: str) -> set[str]:
    """The reader modules ``name`` imports, anywhere in it (inside functions and
    ``TYPE_CHECKING`` blocks too: those are imports mypy and readers follow)."""
    path = modules()[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str | None] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(
                _known(alias.name) for alias in node.names if alias.name.startswith("reader")
            )
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source.split(".")[0] != "reader":
                continue
            for alias in node.names:
                found.add(_known(f"{source}.{alias.name}"))
    # ``reader`` itself is the API's front door (it names what others define,
    # loaded lazily) and holds ``__version__``: not a room.
    return {module for module in found if module not in (None, "reader", name)}


def graph() -> dict[str, set[str]]:
    return {name: imports_of(name) for name in modules() if name != "reader"}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in edges.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def room(name: str) -> str:
    return name.split(".")[1]


def layer(name: str) -> int:
    return next(number for number, rooms in enumerate(LAYERS) if room(name) in rooms)


def test_every_module_is_in_a_room_of_a_layer():
    rooms = {room(name) for name in modules() if name != "reader"}
    assert rooms <= set().union(*LAYERS)


def test_no_import_cycles():
    assert cycles(graph()) == []


def test_rooms_import_only_the_rooms_before_them():
    upward = [
        f"{name} imports {target}"
        for name, targets in sorted(graph().items())
        for target in sorted(targets)
        if layer(target) > layer(name)
        or (
            layer(target) == layer(name)
            and room(target) != room(name)
            and room(name) not in CLIENTS
        )
    ]
    assert upward == []


def test_the_command_line_and_the_window_reach_the_store_only_through_the_library():
    reach_ins = []
    for name, path in sorted(modules().items()):
        if name == "reader" or room(name) not in CLIENTS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        reach_ins += [
            f"{name} imports {target}" for target in imports_of(name) if room(target) == "store"
        ]
        reach_ins += [
            f"{name}:{node.lineno} reads .{node.attr}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr in ("store", "db")
        ]
    assert reach_ins == []


def test_the_command_line_and_the_window_ask_through_the_library():
    # The library builds what answers (``Library.answerer``); no client builds its own.
    builders = []
    for name, path in sorted(modules().items()):
        if name == "reader" or room(name) not in CLIENTS:
            continue
        builders += [
            f"{name}:{node.lineno}"
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.ImportFrom) and any(a.name == "Answerer" for a in node.names)
        ]
        builders += [
            f"{name} imports {t}" for t in imports_of(name) if t == "reader.answer.pipeline"
        ]
    assert builders == []


# What a client may import besides its own room: the library (the API, with
# ``reader.library.CLIENT_API`` for what it uses of the stages), the records it
# passes, and the shared ground beneath every room (errors, settings, the
# process log, text helpers such as escaping for display). The answer, model,
# ingest, retrieve and verify rooms are reached through the library.
CLIENT_MAY_IMPORT = {"library", "records", "errors", "config", "process_log", "text", "sample"}


def test_the_command_line_and_the_window_import_the_library_and_records_only():
    strays = [
        f"{name} imports {target}"
        for name in sorted(modules())
        if name != "reader" and room(name) in CLIENTS
        for target in sorted(imports_of(name))
        if target != "reader" and room(target) not in CLIENT_MAY_IMPORT | set(CLIENTS)
    ]
    assert strays == []


def test_the_library_gives_clients_every_name_it_lists():
    import reader.library

    missing = [
        name for name in reader.library.CLIENT_API if getattr(reader.library, name, None) is None
    ]
    assert missing == []
    assert set(reader.library.CLIENT_API) <= set(reader.library.__all__)
    # The imports mypy and the packager read name the same things, from the same modules.
    source = ast.parse((PACKAGE / "library" / "__init__.py").read_text(encoding="utf-8"))
    checked = next(
        node
        for node in source.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    )
    imported = {
        alias.name: node.module
        for node in checked.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert imported == reader.library.CLIENT_API


def test_the_package_exports_its_api(tmp_path):
    for name in reader.__all__:
        assert getattr(reader, name) is not None, name
    with reader.Library(tmp_path / "library.db") as library:  # the front door opens a real one
        assert library.documents() == []


def test_the_checker_sees_a_cycle_and_an_upward_import():
    """The checks above could pass by reading nothing; these edges must fail them."""
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert "reader.text.normalize" in graph()
    assert "reader.store" in graph()["reader.library.library"]  # ``from reader.store import``
    assert layer("reader.ui.viewer") > layer("reader.library.batch") > layer("reader.text.words")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_no_core_module_imports_qt():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if "ui" in path.relative_to(PACKAGE).parts:
            continue
        for name in imported_modules(path):
            if name.split(".")[0] in QT_MODULES:
                offenders.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert offenders == []


def test_core_and_cli_import_without_loading_qt():
    code = (
        "import sys, reader.cli, reader.library, reader.ingest, reader.store, "
        "reader.retrieve, reader.verify, reader.text\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in "
        f"{QT_MODULES!r}]\n"
        "print(loaded)\n"
        "sys.exit(1 if loaded else 0)\n"
    )
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert completed.returncode == 0, completed.stdout + completed.stderr


# What a pattern that finds words is called: a word, a token, a hyphenated word.
WORD_NAMES = ("WORD", "WORDS", "TOKEN", "TOKENS", "HYPHENATED")


def word_or_sentence_patterns(source: str) -> list[str]:
    """Names a module gives, at its top level, to a ``re.compile(...)`` whose name
    says it finds words or sentences: ending in one of ``WORD_NAMES``, or starting
    with SENTENCE, leading underscores aside (``_WORD``, ``NUMBER_WORDS``,
    ``_TOKEN``, ``_SENTENCE_END``)."""
    found = []
    for node in ast.parse(source).body:
        if not isinstance(node, ast.Assign | ast.AnnAssign) or not isinstance(node.value, ast.Call):
            continue
        called = node.value.func
        if not (
            isinstance(called, ast.Attribute)
            and called.attr == "compile"
            and isinstance(called.value, ast.Name)
            and called.value.id == "re"
        ):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            name = target.id.lstrip("_") if isinstance(target, ast.Name) else ""
            if name.endswith(WORD_NAMES) or name.startswith("SENTENCE"):
                found.append(target.id)
    return found


def test_words_and_sentences_are_found_only_in_text():
    """Words, sentences and number words are told apart in ``reader.text`` alone:
    no module outside it compiles a pattern named for a word or a sentence
    (see ``word_or_sentence_patterns``). A stage that needs one imports it, so
    two stages never read "a word" two ways by accident."""
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] == "text":
            continue
        name = module_name(path)
        for pattern in word_or_sentence_patterns(path.read_text(encoding="utf-8")):
            offenders.append(f"{name}.{pattern}")
    assert offenders == []


def test_the_pattern_rule_sees_a_private_tokenizer():
    """The rule above could pass by reading nothing; these must fail it."""
    source = (
        "import re\n"
        "_WORD = re.compile(r'\\w+')\n"
        "NUMBER_WORDS: re.Pattern[str] = re.compile('one|two')\n"
        "_SENTENCE_END = re.compile('[.!?]$')\n"
        "_WORD_END = re.compile(r'\\s')\n"  # a word's end is whitespace, no word
        "_TOKEN = re.compile(r'[^\\W_]+')\n"
        "_HYPHENATED = re.compile(r'\\w+(?:-\\w+)+')\n"
        "_LETTERS = 'ab'\n"
        "def inner():\n"
        "    _WORD = re.compile('x')\n"
    )
    assert word_or_sentence_patterns(source) == [
        "_WORD",
        "NUMBER_WORDS",
        "_SENTENCE_END",
        "_TOKEN",
        "_HYPHENATED",
    ]


# The longest a file and a function may grow: past these, a reader loses the thread
# (``make structure`` reports the same files).
LONGEST_FILE = 450
LONGEST_FUNCTION = 80


def test_no_file_or_function_is_too_long_to_read():
    """A file over ``LONGEST_FILE`` lines holds a concept that wants a room of its
    own; a function over ``LONGEST_FUNCTION`` reads better as its steps."""
    too_long = []
    for name, path in sorted(modules().items()):
        source = path.read_text(encoding="utf-8")
        if source.count("\n") > LONGEST_FILE:
            too_long.append(f"{name}: {source.count(chr(10))} lines")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > LONGEST_FUNCTION:
                    too_long.append(f"{name}.{node.name}: {length} lines")
    assert too_long == []
