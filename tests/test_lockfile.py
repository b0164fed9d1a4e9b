"""requirements.lock is the only source `make` installs from: it must match pyproject.toml and pin every
file by hash."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
PIN = re.compile(r"^([A-Za-z0-9._-]+)==([^ ;\\]+)(?: ; ([^\\]+))? \\$")


def _lockfile() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lockfile", ROOT / ".ci" / "lockfile.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pins() -> dict[str, tuple[str, int]]:
    """name -> (version, number of hashes) for every requirement in the lock."""
    pins: dict[str, tuple[str, int]] = {}
    current = None
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        match = PIN.match(line)
        if match:
            current = canonicalize_name(match.group(1))
            pins[current] = (match.group(2), 0)
        elif line.strip().startswith("--hash=sha256:") and current is not None:
            version, hashes = pins[current]
            pins[current] = (version, hashes + 1)
        elif line and not line.startswith(" ") and not line.startswith("#"):
            raise AssertionError(f"unexpected line in requirements.lock: {line!r}")
    return pins


def test_the_lock_was_made_from_pyproject_as_it_is_now() -> None:
    assert _lockfile().differences() == [], "requirements.lock is stale: run `make lock`"


def test_every_locked_package_is_pinned_with_hashes() -> None:
    pins = _pins()
    assert len(pins) > 50
    assert all(hashes >= 1 for _, hashes in pins.values()), [n for n, (_, h) in pins.items() if not h]


def test_every_requirement_of_pyproject_is_locked_at_a_version_it_allows() -> None:
    lockfile = _lockfile()
    pins = _pins()
    inputs = lockfile.inputs()
    wanted = [*inputs["build-system"], *inputs["dependencies"]]
    wanted += [r for reqs in inputs["optional-dependencies"].values() for r in reqs]
    for text in wanted:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{text} is not in requirements.lock"
        assert requirement.specifier.contains(pins[name][0], prereleases=True), (text, pins[name][0])


def test_the_check_names_what_changed_in_pyproject(tmp_path: Path) -> None:
    lockfile = _lockfile()
    pyproject = tmp_path / "pyproject.toml"
    text = (ROOT / "pyproject.toml").read_text()
    assert '    "pyyaml>=6.0,<7",\n' in text
    edited = text.replace('    "pyyaml>=6.0,<7",\n', '    "pyyaml>=6.0,<8",\n    "tomli-w>=1.0,<2",\n')
    edited = re.sub(r'requires-python = "[^"]*"', 'requires-python = ">=3.12"', edited)
    pyproject.write_text(edited)
    lock = ROOT / "requirements.lock"
    assert lockfile.differences(pyproject, lock) == [
        "dependencies: added 'pyyaml>=6.0,<8'",
        "dependencies: added 'tomli-w>=1.0,<2'",
        "dependencies: removed 'pyyaml>=6.0,<7'",
        f"requires-python: {lockfile.inputs()['requires-python']!r} -> '>=3.12'",
    ]
    assert lockfile.differences(ROOT / "pyproject.toml", tmp_path / "missing.lock") != []


def test_supported_pythons_are_3_11_to_3_13() -> None:
    from packaging.specifiers import SpecifierSet

    supported = SpecifierSet(_lockfile().inputs()["requires-python"])
    assert [v for v in ("3.10", "3.11", "3.12", "3.13", "3.14") if v in supported] == ["3.11", "3.12", "3.13"]
