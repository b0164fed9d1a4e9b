"""clients/python: its generated code is current, and it needs nothing beyond what it declares."""

from __future__ import annotations

import ast
import filecmp
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CLIENT = REPO / "clients" / "python"
GENERATED = CLIENT / "flightdeck_client" / "generated"
CODEGEN = REPO / ".venv-codegen" / "bin" / "ariadne-codegen"


def test_the_generated_operations_match_the_schema_and_the_graphql_files(tmp_path: Path) -> None:
    assert CODEGEN.exists(), "ariadne-codegen is missing: run `make install`"
    shutil.copy(REPO / "schema.graphql", tmp_path / "schema.graphql")
    copy = tmp_path / "clients" / "python"
    (copy / "flightdeck_client").mkdir(parents=True)
    shutil.copy(CLIENT / "pyproject.toml", copy / "pyproject.toml")
    shutil.copytree(CLIENT / "flightdeck_client" / "operations", copy / "flightdeck_client" / "operations")
    run = subprocess.run([str(CODEGEN)], cwd=copy, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    fresh = copy / "flightdeck_client" / "generated"
    names = sorted(p.name for p in fresh.glob("*.py"))
    assert names == sorted(p.name for p in GENERATED.glob("*.py")), "run `make client-codegen`"
    _, mismatch, errors = filecmp.cmpfiles(fresh, GENERATED, names, shallow=False)
    assert (mismatch, errors) == ([], []), f"stale generated code {mismatch}: run `make client-codegen`"


def test_the_package_imports_only_the_standard_library_and_its_declared_dependencies() -> None:
    declared = tomllib.loads((CLIENT / "pyproject.toml").read_text())["project"]["dependencies"]
    allowed = {d.split(">")[0].split("=")[0].split("<")[0].strip().replace("-", "_") for d in declared}
    allowed |= {"pydantic_core", "flightdeck_client"}  # pydantic's own core
    found: set[str] = set()
    for source in (CLIENT / "flightdeck_client").rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.Import):
                found.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    outside = {m for m in found - allowed if m not in sys.stdlib_module_names}
    assert outside == set(), f"flightdeck_client imports undeclared packages: {outside}"
