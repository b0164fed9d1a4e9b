"""No function in server/ is longer than a reader can hold: each does one thing, named."""

from __future__ import annotations

import ast
from pathlib import Path

SERVER = Path(__file__).resolve().parent.parent / "server"
MOST_LINES = 100


def _functions(tree: ast.AST, prefix: str = "") -> list[tuple[str, int]]:
    """Every function and method, by dotted name within its module, with its length in lines."""
    found: list[tuple[str, int]] = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name = f"{prefix}{node.name}"
            assert node.end_lineno is not None
            found.append((name, node.end_lineno - node.lineno + 1))
            found += _functions(node, f"{name}.")
        elif isinstance(node, ast.ClassDef):
            found += _functions(node, f"{prefix}{node.name}.")
        else:
            found += _functions(node, prefix)
    return found


def long_functions(root: Path, most: int) -> list[str]:
    too_long = []
    for path in sorted(root.rglob("*.py")):
        module = path.relative_to(root).as_posix()
        for name, lines in _functions(ast.parse(path.read_text(encoding="utf-8"))):
            if lines > most:
                too_long.append(f"server/{module}: {name} has {lines} lines")
    return too_long


def test_no_function_in_server_is_over_100_lines() -> None:
    assert long_functions(SERVER, MOST_LINES) == []


def test_the_length_check_finds_a_long_function_nested_in_a_class(tmp_path: Path) -> None:
    body = "\n".join(f"        x{i} = {i}" for i in range(MOST_LINES))
    (tmp_path / "long.py").write_text(f"class Face:\n    def handle(self):\n{body}\n", encoding="utf-8")
    (tmp_path / "short.py").write_text("def fine():\n    return 1\n", encoding="utf-8")
    assert long_functions(tmp_path, MOST_LINES) == [f"server/long.py: Face.handle has {MOST_LINES + 1} lines"]
