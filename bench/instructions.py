"""Instructions and cache misses per request, counted by valgrind's cachegrind on ``bench.in_process``.

``python -m bench.instructions [--app A] [--typename] [--plans N] [--cache]`` runs the in-process harness
twice under ``valgrind --tool=cachegrind``, with one round and with three, and prints the difference
divided by the 1,280 requests the two extra rounds make: start-up, imports and migrations cancel out.
Counts like these repeat on a busy machine, where CPU seconds do not. Use them for cuts of a few per
cent, which server CPU over HTTP cannot separate from one process's layout and another's.

``--cache`` also simulates this CPU's first-level caches and its per-core L2 as the last level. The
geometry comes from ``/sys/devices/system/cpu/cpu0/cache``, and the printed ``cache`` says which was
used. A request whose code and objects do not fit in L2 misses it at every layer; those misses are
what make one app's instructions slower than another's on the same core. valgrind must be installed
(Debian: ``apt-get install -y valgrind``); a run takes minutes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .in_process import AGENTS, APPS, STEPS

ROUNDS = (1, 3)  # the two runs whose difference is counted
SYSFS = Path("/sys/devices/system/cpu/cpu0/cache")


@dataclass(frozen=True)
class Cache:
    size: int
    ways: int
    line: int

    def option(self) -> str:
        return f"{self.size},{self.ways},{self.line}"


def _size(text: str) -> int:
    text = text.strip()
    units = {"K": 1024, "M": 1024 * 1024}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def cache_geometry(root: Path = SYSFS) -> dict[str, Cache]:
    """This CPU's L1 data (``D1``), L1 instruction (``I1``) and unified L2 (``LL``) caches."""
    found: dict[str, Cache] = {}
    names = {("1", "Data"): "D1", ("1", "Instruction"): "I1", ("2", "Unified"): "LL"}
    for index in sorted(root.glob("index*")):
        key = ((index / "level").read_text().strip(), (index / "type").read_text().strip())
        if key in names:
            found[names[key]] = Cache(
                _size((index / "size").read_text()),
                int((index / "ways_of_associativity").read_text()),
                int((index / "coherency_line_size").read_text()),
            )
    missing = {"D1", "I1", "LL"} - set(found)
    if missing:
        raise RuntimeError(f"{root} does not describe the caches {sorted(missing)}")
    return found


def summary(path: Path) -> dict[str, int]:
    """The totals of a cachegrind output file, by event name (``Ir``, ``D1mr``, ...)."""
    events: list[str] = []
    totals: list[int] = []
    for line in path.read_text().splitlines():
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("summary:"):
            totals = [int(v) for v in line.split()[1:]]
    if not events or len(events) != len(totals):
        raise ValueError(f"{path} is not a complete cachegrind output file")
    return dict(zip(events, totals, strict=True))


def per_request(first: dict[str, int], last: dict[str, int], requests: int) -> dict[str, float]:
    """Each event's growth from the short run to the long one, per request; and, with the cache
    simulated, the misses at each level (reads and writes together) and their rate per 1,000
    instructions."""
    grown = {k: (last[k] - first[k]) / requests for k in first}
    figures: dict[str, float] = {"instructions": round(grown["Ir"])}
    if "I1mr" in grown:
        levels = {
            "i1_misses": grown["I1mr"],
            "d1_misses": grown["D1mr"] + grown["D1mw"],
            "l2_misses": grown["ILmr"] + grown["DLmr"] + grown["DLmw"],
        }
        for name, value in levels.items():
            figures[name] = round(value)
            figures[f"{name}_per_1000_instructions"] = round(1000 * value / grown["Ir"], 3)
    return figures


def _run(rounds: int, out: Path, harness: list[str], cache: dict[str, Cache] | None) -> dict[str, Any]:
    command = ["valgrind", "--tool=cachegrind", f"--cachegrind-out-file={out}"]
    if cache:
        command += ["--cache-sim=yes", *(f"--{name}={c.option()}" for name, c in cache.items())]
    else:
        command.append("--cache-sim=no")
    command += [sys.executable, "-m", "bench.in_process", "--rounds", str(rounds), *harness]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    reply: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return reply


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", choices=APPS, default="flightdeck")
    parser.add_argument("--typename", action="store_true", help="`{ __typename }` requests instead")
    parser.add_argument("--plans", type=int, default=0, help="plans loaded before the first round")
    parser.add_argument("--cache", action="store_true", help="simulate this CPU's L1 and L2 caches")
    args = parser.parse_args()
    harness = ["--app", args.app, "--plans", str(args.plans), *(["--typename"] if args.typename else [])]
    cache = cache_geometry() if args.cache else None
    with tempfile.TemporaryDirectory() as folder:
        runs = [_run(r, Path(folder) / f"cachegrind.{r}", harness, cache) for r in ROUNDS]
        totals = [summary(Path(folder) / f"cachegrind.{r}") for r in ROUNDS]
    requests = runs[1]["requests"] - runs[0]["requests"]
    if requests != (ROUNDS[1] - ROUNDS[0]) * AGENTS * 2 * STEPS:
        raise RuntimeError(f"the runs made {runs[0]['requests']} and {runs[1]['requests']} requests")
    figures: dict[str, Any] = {"app": args.app, "typename": args.typename, "plans": args.plans}
    figures["requests_counted"] = requests
    figures.update(per_request(totals[0], totals[1], requests))
    if cache:
        figures["cache"] = {name: c.option() for name, c in cache.items()}
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
