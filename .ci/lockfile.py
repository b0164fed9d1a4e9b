"""requirements.lock and pyproject.toml must agree: `make lock` stamps the lock, everything else checks.

`make lock` resolves pyproject.toml's dependencies with uv (every extra, the build backend, one universal
resolution for every Python that ``requires-python`` admits, a hash for every file) and then runs
``stamp``, which records the inputs it resolved in a comment line of the lock. ``check`` compares that
line with pyproject.toml as it is now and fails, naming what changed, when they differ: the lock is then
stale, and `make lock` makes it fresh. Standard library only, so that it runs before anything is installed.

    python3 .ci/lockfile.py build-requires   # print the build backend's requirements (input to uv)
    python3 .ci/lockfile.py stamp            # after uv wrote requirements.lock
    python3 .ci/lockfile.py check            # exit 1 when the lock is stale
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
LOCK = ROOT / "requirements.lock"
MARK = "# inputs: "


def inputs(pyproject: Path = PYPROJECT) -> dict[str, Any]:
    """What the resolution depends on, from pyproject.toml, in a canonical form."""
    data = tomllib.loads(pyproject.read_text())
    project = data["project"]
    return {
        "requires-python": project.get("requires-python", ""),
        "build-system": sorted(data.get("build-system", {}).get("requires", [])),
        "dependencies": sorted(project.get("dependencies", [])),
        "optional-dependencies": {
            extra: sorted(reqs) for extra, reqs in sorted(project.get("optional-dependencies", {}).items())
        },
    }


def recorded(lock: Path = LOCK) -> dict[str, Any] | None:
    """The inputs the lock was made from, or None when it has no stamp."""
    if not lock.exists():
        return None
    for line in lock.read_text().splitlines():
        if line.startswith(MARK):
            value: dict[str, Any] = json.loads(line[len(MARK) :])
            return value
    return None


def stamp(pyproject: Path = PYPROJECT, lock: Path = LOCK) -> None:
    lines = [line for line in lock.read_text().splitlines() if not line.startswith(MARK)]
    # After uv's header (its first two comment lines), before the first requirement.
    at = next((i for i, line in enumerate(lines) if not line.startswith("#")), len(lines))
    lines.insert(at, MARK + json.dumps(inputs(pyproject), sort_keys=True, separators=(",", ":")))
    lock.write_text("\n".join(lines) + "\n")


def differences(pyproject: Path = PYPROJECT, lock: Path = LOCK) -> list[str]:
    """How pyproject.toml differs from what the lock was made from; empty when they agree."""
    before = recorded(lock)
    if before is None:
        return [f"{lock.name} is missing or has no '{MARK.strip()}' line"]
    now = inputs(pyproject)
    found = []
    for key in sorted(set(before) | set(now)):
        old, new = before.get(key), now.get(key)
        if old == new:
            continue
        if isinstance(old, dict) and isinstance(new, dict):
            for extra in sorted(set(old) | set(new)):
                found += _listed(f"{key}.{extra}", old.get(extra, []), new.get(extra, []))
        elif isinstance(old, list) and isinstance(new, list):
            found += _listed(key, old, new)
        else:
            found.append(f"{key}: {old!r} -> {new!r}")
    return found


def _listed(where: str, old: list[str], new: list[str]) -> list[str]:
    return [f"{where}: added {r!r}" for r in new if r not in old] + [
        f"{where}: removed {r!r}" for r in old if r not in new
    ]


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else "check"
    if command == "build-requires":
        print("\n".join(inputs()["build-system"]))
        return 0
    if command == "stamp":
        stamp()
        return 0
    if command == "check":
        found = differences()
        if found:
            print(
                f"{LOCK.name} does not match pyproject.toml (run `make lock`):\n  " + "\n  ".join(found),
                file=sys.stderr,
            )
            return 1
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
