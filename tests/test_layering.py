"""The package's declared edges between parts (``truc_p2p/_layers.py``), checked over
every import in the package, at module level, inside functions and by string (a whole
string naming a module of the package: ``importlib.import_module("...")``,
``__import__``, a lazy table):

* every top-level part is declared (a new module or package must be placed);
* a part imports only the parts its edges list (``bots`` only ``rules``; no
  ``protocol -> net``), and the edges form no circle;
* no circle of imports inside a part either (what only a type checker reads, under
  ``if TYPE_CHECKING:``, aside);
* a part imports only another part's public names (no ``truc_p2p.deck.v2._side``
  from outside ``deck``), but for the reaches ``REACH_EXCEPTIONS`` lists with a reason;
* the pure parts import no I/O, clock or randomness module and call no
  ``open``/``print``/``input``; the rules engine uses the standard library only.

The checker is keyed on part names, not file paths, and is tested on packages
built in a temporary directory so that it is known to fail.
"""

from __future__ import annotations

import ast
import functools
import importlib
import json
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from truc_p2p import _layers

PACKAGE = Path(__file__).resolve().parents[1] / "truc_p2p"
ROOT = "truc_p2p"

#: Modules whose import means I/O, networking, clocks or global randomness.
IO_MODULES = frozenset(
    {"trio", "socket", "asyncio", "selectors", "subprocess", "random", "secrets", "time", "os"}
)
IO_CALLS = frozenset({"open", "print", "input"})
#: What the rules engine may import besides itself: the standard library's pure parts.
RULES_STDLIB = frozenset(
    {"__future__", "collections", "dataclasses", "enum", "functools", "itertools", "typing"}
)
#: Tools shipped with a pure part, not part of its core (they write test vectors).
PURE_TOOLS = frozenset({"truc_p2p.deck.legacy_v1._vectors"})


@dataclass(frozen=True)
class Import:
    module: str  # the importing module's dotted name
    target: str  # the dotted name imported (``from a import b`` gives ``a.b`` and ``a``)
    line: int
    typing_only: bool = False  # under ``if TYPE_CHECKING:``: never run
    from_base: bool = False  # the ``a`` of ``from a import b`` (``a.b`` comes too)

    def where(self) -> str:
        return f"{self.module}:{self.line}"


def module_name(package: Path, path: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def part_of(dotted: str, package: Path) -> str:
    """The top-level part a dotted name of the package belongs to."""
    names = dotted.split(".")
    if len(names) == 1:
        return "__init__"
    top = names[1]
    if (package / top).is_dir() or (package / f"{top}.py").exists():
        return top
    return "__init__"  # an attribute of the package itself, e.g. ``__version__``


#: A whole string naming a part of the package or below: an import by string.
DOTTED = re.compile(rf"{ROOT}(\.[A-Za-z_][A-Za-z0-9_]*)+")
#: Modules that only name other modules, as data (this table).
NAMES_ONLY = frozenset({f"{ROOT}._layers"})


def _typing_only_nodes(tree: ast.AST) -> set[int]:
    """The ids of the nodes under ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        test = node.test if isinstance(node, ast.If) else None
        if (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
            isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
        ):
            assert isinstance(node, ast.If)
            found.update(id(n) for child in node.body for n in ast.walk(child))
    return found


def _resource_anchors(tree: ast.AST) -> set[int]:
    """The ids of the strings that name a package to read data files from
    (``importlib.resources.files("truc_p2p.site")``): no import of code."""
    return {
        id(arg)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Attribute) and node.func.attr == "files")
            or (isinstance(node.func, ast.Name) and node.func.id == "files")
        )
        for arg in node.args
    }


@functools.cache
def _parsed(text: str, filename: str) -> ast.Module:
    """A module's tree, parsed once per text (the checks only read the trees)."""
    return ast.parse(text, filename)


def parse(path: Path) -> ast.Module:
    return _parsed(path.read_text(encoding="utf-8"), str(path))


def imports(package: Path) -> Iterator[Import]:
    """Every import of the package's own modules, relative ones resolved, and every
    whole string that names a module of the package (an import by string); scanned
    once per state of the package's files (several checks read them)."""
    paths = sorted(package.rglob("*.py"))
    files = tuple((path, path.read_text(encoding="utf-8")) for path in paths)
    return iter(_imports(package, files))


@functools.cache
def _imports(package: Path, files: tuple[tuple[Path, str], ...]) -> tuple[Import, ...]:
    return tuple(_scan(package, files))


def _scan(package: Path, files: tuple[tuple[Path, str], ...]) -> Iterator[Import]:
    for path, text in files:
        name = module_name(package, path)
        is_pkg = path.name == "__init__.py"
        tree = _parsed(text, str(path))
        typing_only = _typing_only_nodes(tree)
        anchors = _resource_anchors(tree)
        for node in ast.walk(tree):
            only = id(node) in typing_only
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield Import(name, alias.name, node.lineno, only)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    here = name.split(".") if is_pkg else name.split(".")[:-1]
                    here = here[: len(here) - (node.level - 1)]
                    base = ".".join([*here, base] if base else here)
                yield Import(name, base, node.lineno, only, from_base=True)
                for alias in node.names:
                    yield Import(name, f"{base}.{alias.name}", node.lineno, only)
            elif (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and DOTTED.fullmatch(node.value)
                and name not in NAMES_ONLY
                and id(node) not in anchors
                and module_of(node.value, package) is not None
            ):
                yield Import(name, node.value, node.lineno, only)


def module_of(dotted: str, package: Path) -> str | None:
    """The module below the package's root that a dotted name is (or is an attribute
    of), if any."""
    names = dotted.split(".")
    for end in range(len(names), 1, -1):
        base = package.parent.joinpath(*names[:end])
        if base.with_suffix(".py").is_file() or (base / "__init__.py").is_file():
            return ".".join(names[:end])
    return None


def declared_parts() -> set[str]:
    return set(_layers.EDGES)


def undeclared_parts(package: Path) -> list[str]:
    found = set()
    for entry in package.iterdir():
        if entry.is_dir() and (entry / "__init__.py").exists():
            found.add(entry.name)
        elif entry.suffix == ".py":
            found.add(entry.stem)
    return sorted(found - declared_parts())


def public_names(package: Path, part: str) -> frozenset[str]:
    """The names a package part's ``__init__`` lists in ``__all__`` (``ui`` exports ``_``)."""
    init = package / part / "__init__.py"
    if not init.exists():
        return frozenset()
    for node in parse(init).body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
            and isinstance(node.value, ast.List | ast.Tuple)
        ):
            return frozenset(
                e.value
                for e in node.value.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            )
    return frozenset()


def private_module(target: str, package: Path) -> str | None:
    """The private module ``target`` names inside its part, if any (``truc_p2p.deck.v2._ec``
    for ``truc_p2p.deck.v2._ec.mul``); names re-exported by a part's ``__init__`` (its
    ``__all__``) are public, even ``_`` (gettext's)."""
    names = target.split(".")
    if len(names) > 2 and names[2] in public_names(package, names[1]):
        return None
    for depth in range(2, len(names)):
        name = names[depth]
        if name.startswith("_") and not name.startswith("__"):
            return ".".join(names[: depth + 1])
    return None


def layering_faults(package: Path) -> list[str]:
    faults = [
        f"{part}: a part that is not in truc_p2p/_layers.py LAYERS (place it)"
        for part in undeclared_parts(package)
    ]
    declared = declared_parts()
    seen: set[tuple[str, str]] = set()
    for imp in imports(package):
        if imp.target.split(".")[0] != ROOT or (imp.module, imp.target) in seen:
            continue
        seen.add((imp.module, imp.target))
        mine, theirs = part_of(imp.module, package), part_of(imp.target, package)
        if mine == theirs or mine not in declared or theirs not in declared:
            continue
        if theirs not in _layers.EDGES[mine]:
            faults.append(f"{imp.where()} imports {imp.target}: {mine} may not import {theirs}")
        private = private_module(imp.target, package)
        if private is not None:
            allowed = next(
                (
                    parts
                    for name, (parts, _why) in _layers.REACH_EXCEPTIONS.items()
                    if private == name or private.startswith(name + ".")
                ),
                frozenset(),
            )
            if mine not in allowed:
                faults.append(f"{imp.where()} reaches into {theirs}'s private {private}")
    return faults


def edge_circles(edges: Mapping[str, frozenset[str]]) -> list[list[str]]:
    """The circles of a table of edges (each circle's members, sorted)."""
    return _circles({a: set(b) for a, b in edges.items()})


def _circles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of ``graph`` with more than one member (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            members = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                members.append(member)
                if member == node:
                    break
            if len(members) > 1:
                found.append(sorted(members))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def circle_faults(package: Path) -> list[str]:
    """Each circle of imports between the package's modules, whatever the part (an
    import under ``if TYPE_CHECKING:`` never runs, and does not count)."""
    graph: dict[str, set[str]] = {}
    for imp in imports(package):
        if imp.typing_only or imp.from_base or imp.target.split(".")[0] != ROOT:
            continue  # ``from a import b``: ``a.b`` is the module, or a name of ``a``
        target = module_of(imp.target, package)
        if target is not None and target != imp.module:
            graph.setdefault(imp.module, set()).add(target)
    return [f"a circle of imports: {' -> '.join(c)}" for c in _circles(graph)]


def purity_faults(package: Path, part: str) -> list[str]:
    faults = []
    base = package / part
    paths = sorted(base.rglob("*.py")) if base.is_dir() else [base.with_suffix(".py")]
    for path in paths:
        name = module_name(package, path)
        if name in PURE_TOOLS:
            continue
        for node in ast.walk(parse(path)):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in IO_CALLS
            ):
                faults.append(f"{name}:{node.lineno} calls {node.func.id}()")
    for imp in imports(package):
        if part_of(imp.module, package) != part or imp.module in PURE_TOOLS:
            continue
        top = imp.target.split(".")[0]
        if top in IO_MODULES:
            faults.append(f"{imp.where()} imports {imp.target}")
        names = imp.target.split(".")
        prefixes = {".".join(names[: n + 1]) for n in range(len(names))}
        if part == "rules" and top != ROOT and not prefixes & RULES_STDLIB:
            faults.append(f"{imp.where()} imports {imp.target} (rules: stdlib only)")
    return faults


def crypto_library_faults(package: Path) -> list[str]:
    """Imports of coincurve or cryptography outside ``_layers.CRYPTO_LIBRARY_USERS``."""
    allowed = tuple(_layers.CRYPTO_LIBRARY_USERS)
    return sorted(
        {
            f"{imp.where()} imports {imp.target.split('.')[0]} (only through truc_p2p.crypto)"
            for imp in imports(package)
            if imp.target.split(".")[0] in _layers.CRYPTO_LIBRARIES
            and not any(imp.module == a or imp.module.startswith(a + ".") for a in allowed)
        }
    )


# ---------------------------------------------------------------- the package


def test_the_package_keeps_its_declared_edges() -> None:
    assert layering_faults(PACKAGE) == []


def test_the_declared_edges_form_no_circle() -> None:
    assert edge_circles(_layers.EDGES) == []


def test_no_circle_of_imports_in_the_package() -> None:
    assert circle_faults(PACKAGE) == []


def test_only_the_native_backend_imports_the_crypto_libraries() -> None:
    assert crypto_library_faults(PACKAGE) == []


def test_the_core_imports_on_the_js_backend_without_the_crypto_libraries() -> None:
    """What the page imports loads with coincurve and cryptography unimportable, on the
    js backend (stand-ins for ``js`` and ``pyodide``: a few points are made at import).
    tests/site runs the same core on the real js backend in Pyodide."""
    code = (
        "import os, sys, types\n"
        "os.environ['TRUC_P2P_CRYPTO'] = 'js'\n"
        "sys.modules['coincurve'] = sys.modules['cryptography'] = None\n"
        "class Api:\n    def __getattr__(self, name):\n"
        "        return lambda *args: types.SimpleNamespace(to_bytes=lambda: bytes(33))\n"
        "js = types.ModuleType('js'); js.trucCrypto = Api(); sys.modules['js'] = js\n"
        "ffi = types.ModuleType('pyodide.ffi'); ffi.to_js = lambda v: v\n"
        "sys.modules['pyodide'] = types.ModuleType('pyodide'); sys.modules['pyodide.ffi'] = ffi\n"
        "import truc_p2p.rules, truc_p2p.deck, truc_p2p.protocol, truc_p2p.transcript\n"
        "import truc_p2p.identity, truc_p2p.evidence, truc_p2p.bots, truc_p2p.memory_pair\n"
        "from truc_p2p import crypto\n"
        "from truc_p2p.deck import DeckSideV2, HandVerifierV2\n"
        "print(crypto.backend())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "js"


def test_the_crypto_check_catches_a_direct_import(tmp_path: Path) -> None:
    package = _package(
        tmp_path,
        {
            "crypto/__init__.py": "",
            "crypto/_native.py": "import coincurve\n",
            "protocol/__init__.py": "",
            "protocol/_wire.py": "def f() -> None:\n    from cryptography import x\n",
        },
    )
    assert crypto_library_faults(package) == [
        "truc_p2p.protocol._wire:2 imports cryptography (only through truc_p2p.crypto)"
    ]


@pytest.mark.parametrize("part", _layers.PURE)
def test_pure_parts_do_no_io(part: str) -> None:
    assert purity_faults(PACKAGE, part) == []


def test_the_table_is_well_formed() -> None:
    parts = set(_layers.EDGES)
    for part, allowed in _layers.EDGES.items():
        assert allowed <= parts and part not in allowed, part
    assert set(_layers.PURE) <= parts
    assert _layers.EDGES["bots"] == {"rules"}  # strategies on the public rules only
    for name, (importers, why) in _layers.REACH_EXCEPTIONS.items():
        assert private_module(name, PACKAGE) == name, name
        assert importers <= parts and why, name


def test_importing_the_pure_parts_loads_no_io_library() -> None:
    code = (
        "import sys, truc_p2p.rules, truc_p2p.deck, truc_p2p.protocol, truc_p2p.bots\n"
        "bad = {'trio', 'socket', 'asyncio'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"


def test_the_rules_engine_and_bots_load_no_crypto_or_wire_library() -> None:
    code = (
        "import sys, truc_p2p.rules, truc_p2p.bots\n"
        "bad = {'trio', 'cryptography', 'msgpack', 'socket', 'asyncio'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"


#: Parts whose ``__init__`` re-exports its private modules' names lazily (PEP 562).
LAZY_SURFACES = ("ui", "history", "bench")


@pytest.mark.parametrize("part", LAZY_SURFACES)
def test_a_lazy_public_surface_gives_every_name_it_lists(part: str) -> None:
    module = importlib.import_module(f"{ROOT}.{part}")
    assert set(module._HOME) == set(module.__all__)
    for name in module.__all__:
        assert getattr(module, name) is not None, name
        assert name in dir(module)
    with pytest.raises(AttributeError):
        module.no_such_name  # noqa: B018


def test_importing_the_public_surfaces_loads_none_of_their_modules() -> None:
    code = (
        f"import json, sys, {', '.join(f'{ROOT}.{p}' for p in LAZY_SURFACES)}\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    below = tuple(f"{ROOT}.{part}." for part in LAZY_SURFACES)
    assert [m for m in json.loads(out.stdout) if m.startswith(below)] == []


# ---------------------------------------------------------------- the checker fails


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    package = tmp_path / ROOT
    for rel, text in {"__init__.py": "", **files}.items():
        path = package / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return package


def test_the_checker_catches_an_upward_import_inside_a_function(tmp_path: Path) -> None:
    package = _package(
        tmp_path,
        {
            "protocol/__init__.py": "",
            "protocol/_session.py": "def f() -> None:\n    from truc_p2p.net import x\n",
            "net/__init__.py": "from truc_p2p.protocol import Session\n",
        },
    )
    assert layering_faults(package) == [
        "truc_p2p.protocol._session:2 imports truc_p2p.net: protocol may not import net",
        "truc_p2p.protocol._session:2 imports truc_p2p.net.x: protocol may not import net",
    ]


def test_the_checker_catches_a_part_leaving_its_edges(tmp_path: Path) -> None:
    """``net`` is below ``ui`` but not one of ``bots``' edges: bots use only rules."""
    package = _package(
        tmp_path,
        {
            "rules/__init__.py": "",
            "net/__init__.py": "",
            "bots/__init__.py": "from truc_p2p.rules import Game\nfrom truc_p2p.net import x\n",
        },
    )
    assert layering_faults(package) == [
        "truc_p2p.bots:2 imports truc_p2p.net: bots may not import net",
        "truc_p2p.bots:2 imports truc_p2p.net.x: bots may not import net",
    ]


def test_the_checker_catches_an_import_by_string(tmp_path: Path) -> None:
    package = _package(
        tmp_path,
        {
            "net/__init__.py": "",
            "net/_tcp.py": "",
            "net/_relay.py": "",
            "bots/__init__.py": (
                "import importlib\n"
                "def f() -> None:\n"
                "    importlib.import_module('truc_p2p.net')\n"
                "    __import__('truc_p2p.net._tcp')\n"
                "TABLE = {'x': 'truc_p2p.net._relay', 'y': 'truc_p2p.nothing.here'}\n"
            ),
        },
    )
    assert sorted(layering_faults(package)) == [
        "truc_p2p.bots:3 imports truc_p2p.net: bots may not import net",
        "truc_p2p.bots:4 imports truc_p2p.net._tcp: bots may not import net",
        "truc_p2p.bots:4 reaches into net's private truc_p2p.net._tcp",
        "truc_p2p.bots:5 imports truc_p2p.net._relay: bots may not import net",
        "truc_p2p.bots:5 reaches into net's private truc_p2p.net._relay",
    ]


def test_the_checker_catches_a_circle_inside_a_part(tmp_path: Path) -> None:
    package = _package(
        tmp_path,
        {
            "cli/__init__.py": "COMMANDS = {'play': 'truc_p2p.cli._play'}\n",
            "cli/_play.py": "from truc_p2p.cli._road import run\n",
            "cli/_road.py": "def run() -> None:\n    from truc_p2p.cli import COMMANDS, _resume\n",
            "cli/_resume.py": "",
            "cli/_typed.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from truc_p2p.cli._types import T\n"
            ),
            "cli/_types.py": "from truc_p2p.cli._typed import U\n",
            "cli/_lobby.py": "from truc_p2p.cli import COMMANDS\n",
        },
    )
    assert circle_faults(package) == [
        "a circle of imports: truc_p2p.cli -> truc_p2p.cli._play -> truc_p2p.cli._road",
    ]


def test_the_checker_catches_a_circle_of_edges() -> None:
    edges = {
        "rules": frozenset(),
        "bots": frozenset({"rules", "net"}),
        "net": frozenset({"ui"}),
        "ui": frozenset({"bots"}),
    }
    assert edge_circles(edges) == [["bots", "net", "ui"]]
    assert edge_circles({**edges, "ui": frozenset({"rules"})}) == []


def test_the_checker_catches_a_reach_into_private_modules(tmp_path: Path) -> None:
    package = _package(
        tmp_path,
        {
            "deck/__init__.py": "",
            "deck/v2/__init__.py": "",
            "deck/v2/_side.py": "",
            "bots/__init__.py": "import truc_p2p.deck.v2._side\nfrom truc_p2p.deck import v2\n",
            "cli/__init__.py": "from truc_p2p.deck.legacy_v1._steps import OpCounts\n",
            "net/__init__.py": "from ..deck.v2 import _side\n",
        },
    )
    assert [f for f in layering_faults(package) if "reaches" in f] == [
        "truc_p2p.bots:1 reaches into deck's private truc_p2p.deck.v2._side",
        "truc_p2p.net:1 reaches into deck's private truc_p2p.deck.v2._side",
    ]


def test_the_checker_takes_a_parts_all_as_public(tmp_path: Path) -> None:
    package = _package(
        tmp_path,
        {
            "ui/__init__.py": '__all__ = ["_", "Voice"]\n',
            "ui/_voice.py": "",
            "cli/__init__.py": "from truc_p2p.ui import _, Voice, _hidden\n",
        },
    )
    assert layering_faults(package) == [
        "truc_p2p.cli:1 reaches into ui's private truc_p2p.ui._hidden",
    ]


def test_a_declared_part_may_be_absent(tmp_path: Path) -> None:
    assert "interop" in declared_parts()  # declared before it lands
    package = _package(tmp_path, {"cli/__init__.py": "from truc_p2p.net import x\n"})
    assert layering_faults(package) == []


def test_the_checker_names_a_part_missing_from_the_table(tmp_path: Path) -> None:
    package = _package(tmp_path, {"gadgets/__init__.py": "", "widget.py": "", "rules/a.py": ""})
    faults = layering_faults(package)
    assert faults[:2] == [
        "gadgets: a part that is not in truc_p2p/_layers.py LAYERS (place it)",
        "widget: a part that is not in truc_p2p/_layers.py LAYERS (place it)",
    ]


def test_the_purity_check_catches_io(tmp_path: Path) -> None:
    package = _package(
        tmp_path,
        {
            "rules/__init__.py": "import msgpack\n",
            "rules/_game.py": "def f() -> None:\n    import time\n    print(1)\n",
        },
    )
    assert purity_faults(package, "rules") == [
        "truc_p2p.rules._game:3 calls print()",
        "truc_p2p.rules:1 imports msgpack (rules: stdlib only)",
        "truc_p2p.rules._game:2 imports time",
        "truc_p2p.rules._game:2 imports time (rules: stdlib only)",
    ]
