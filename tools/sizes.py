"""The size limits of issue 31, counted: what a newcomer should be able to read.

    python tools/sizes.py [PACKAGE_DIR]      # default: truc_p2p

Prints the modules over 600 lines, the functions over 100 lines and the
functions over 8 parameters (``self``/``cls`` not counted; constructors of
value objects are the accepted exception, judged by hand), largest first.
Exits 0 whatever it finds: the gate is ``tests/test_sizes.py``, which fails on
any row not in its commented allow-list.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 100
MAX_PARAMETERS = 8

Row = tuple[int, str]


def parameters(args: ast.arguments) -> int:
    """How many parameters a function takes, ``self`` and ``cls`` left out."""
    count = len(args.posonlyargs) + len(args.args) + len(args.kwonlyargs)
    count += bool(args.vararg) + bool(args.kwarg)
    first = (args.posonlyargs + args.args)[:1]
    if first and first[0].arg in ("self", "cls"):
        count -= 1
    return count


def measure(root: Path) -> tuple[list[Row], list[Row], list[Row]]:
    """(long modules, long functions, functions with many parameters) under ``root``."""
    modules: list[Row] = []
    functions: list[Row] = []
    params: list[Row] = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        if lines > MAX_MODULE_LINES:
            modules.append((lines, str(path)))
        for node in ast.walk(ast.parse(text, filename=str(path))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            where = f"{path}:{node.lineno} {node.name}"
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                functions.append((length, where))
            count = parameters(node.args)
            if count > MAX_PARAMETERS:
                params.append((count, where))
    return modules, functions, params


def main(argv: list[str]) -> int:
    root = Path(argv[1] if len(argv) > 1 else "truc_p2p")
    if not root.is_dir():
        print(f"sizes: {root} is not a directory", file=sys.stderr)
        return 2
    modules, functions, params = measure(root)
    for title, rows in (
        (f"modules > {MAX_MODULE_LINES} lines", modules),
        (f"functions > {MAX_FUNCTION_LINES} lines", functions),
        (f"functions > {MAX_PARAMETERS} params", params),
    ):
        print(f"{title}: {len(rows)}")
        for size, where in sorted(rows, reverse=True):
            print(f"  {size:5} {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
