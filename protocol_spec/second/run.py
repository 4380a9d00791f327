"""Run the second generator: write, or ``--check``, the vector files it covers.

    python -I protocol_spec/second/run.py                  # print the names it covers
    python -I protocol_spec/second/run.py --check [NAME…]  # exit 1 on any byte of difference
    python -I protocol_spec/second/run.py --out DIR [NAME…]  # write the files into DIR
    python -I protocol_spec/second/run.py --check --against DIR  # compare with DIR's copies

It never imports ``truc_p2p`` (tests/spec/test_spec_second_generator.py blocks the
import and checks ``sys.modules``).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
VECTORS = HERE.parent / "vectors"
sys.path.insert(0, str(HERE))

#: module name -> the vector file it writes
MODULES = [
    "relay_ws",
    "lobby",
    "nostr",
    "linked",
    "deck_v2",
    "wire_v2",
    "wire_v2_pipelined",
    "wire_v2_early",
    "wire_v2_pipelined_early",
    "wire_v2_rest_final",
    "wire_v2_early_redeal",
    "wire_v2_resign",
    "wire_v2_cases",
    "resume_v2",
    "resume_clock_v1",
    "deck_v1",
    "wire_v1",
    "resume_v1",
    "evidence_v1",
    "turn",
]


def generate(module_name: str) -> tuple[str, str]:
    """(file name, text) of one module's vector file."""
    from common import dump

    module = importlib.import_module(module_name)
    return module.FILE, dump(module.build(), module.INDENT, getattr(module, "ASCII", False))


def covered() -> dict[str, str]:
    """vector file name -> module name."""
    return {importlib.import_module(m).FILE: m for m in MODULES}


def main(argv: list[str]) -> int:
    check = "--check" in argv
    options: dict[str, Path] = {}
    names: list[str] = []
    args = iter(argv)
    for arg in args:
        if arg in ("--out", "--against"):
            options[arg] = Path(next(args, ""))
        elif arg != "--check":
            names.append(arg)
    out = options.get("--out")
    against = options.get("--against", VECTORS)
    files = covered()
    if not check and out is None:
        print("\n".join(sorted(files)))
        return 0
    unknown = [n for n in names if n not in files]
    if unknown:
        print(f"not covered by the second generator: {', '.join(unknown)}", file=sys.stderr)
        return 2
    failed = 0
    for name in names or sorted(files):
        file_name, text = generate(files[name])
        if out is not None:
            (out / file_name).write_text(text)
        if check and (against / file_name).read_bytes() != text.encode():
            print(f"{file_name}: differs from {against / file_name}", file=sys.stderr)
            failed = 1
    return failed


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
