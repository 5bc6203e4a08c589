"""The floors' figures (issue 28's "before" and "after"), or the contract's transitional lists.

Run from the repository root::

    .venv/bin/python infra/floor_figures.py             # the figures of docs/benchmarks.md
    .venv/bin/python infra/floor_figures.py --runs 5    # more fresh processes per import time
    .venv/bin/python infra/floor_figures.py --contract  # allowed_private

Counts come from grimp, grouped as the contract (``import_floors.py``) and the before-stop hook
group them; import times and loaded modules from fresh interpreters, one per run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import grimp
from import_floors import (
    ARROW,
    cross_package_imports,
    cycles,
    floor_of,
    own_modules,
    package_cycles,
    parse_floors,
    private_imports,
)

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
FLOORS = parse_floors(CONTRACT["contracts"][0]["floors"])
FOLDERS = ("sdk", "workflows", "activities", "worker")
VENDORS = (
    "openai",
    "anthropic",
    "aiohttp",
    "httpx",
    "mcp",
    "docker",
    "obstore",
    "opensandbox",
    "openviking",
    "rich",
    "opentelemetry",
    "temporalio",
)
"""Top-level modules a values import or an entry point should not load (issue 28)."""
IMPORTS = (
    "from rath import flow",
    "from rath.session import Session",
    "import rath.contracts",
    "import rath.errors",
)
_PROBE = """
import json, sys, time
start = time.perf_counter()
exec(sys.argv[1])
seconds = time.perf_counter() - start
names = list(sys.modules)
vendors = sorted({n.split(".")[0] for n in names} & set(json.loads(sys.argv[2])))
own = [n for n in names if n == "rath" or n.startswith("rath.")]
print(json.dumps({"seconds": seconds, "modules": len(names), "rath": own, "vendors": vendors}))
"""


def python_files(folder: Path) -> list[Path]:
    """The ``.py`` files below ``folder``, sorted."""
    return sorted(folder.rglob("*.py"))


def line_count(path: Path) -> int:
    """Lines of a file, as ``wc -l`` counts them."""
    return path.read_bytes().count(b"\n")


def probe(statement: str) -> dict[str, Any]:
    """Time ``statement`` in a fresh interpreter; what it loaded."""
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, statement, json.dumps(VENDORS)],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    figures: dict[str, Any] = json.loads(result.stdout)
    return figures


def graph_figures(graph: grimp.ImportGraph) -> list[str]:
    """The import graph's figures, one line each."""
    modules = own_modules(graph, "rath")
    inside = {f: sum(m.startswith(f"rath.{f}") for m in modules) for f in FOLDERS[1:]}
    parts = ", ".join(
        f"{f} {n}" for f, n in {"sdk": len(modules) - sum(inside.values()), **inside}.items()
    )
    lines = [f"modules in the import graph: {len(modules)} ({parts})"]
    loops = cycles(graph, modules)
    lines.append(f"module cycles: {len(loops)}")
    lines.extend(f"  module cycle of {len(c)}: {' '.join(c)}" for c in loops)
    loops = package_cycles(graph, "rath")
    lines.append(f"package cycles: {len(loops)}")
    lines.extend(f"  package cycle of {len(c)}: {' '.join(c)}" for c in loops)
    lines.append(f"imports between packages: {len(cross_package_imports(graph, 'rath'))}")
    lines.append(
        f"  of which into another package's private module: {len(private_imports(graph, 'rath'))}"
    )
    return lines


def size_figures() -> list[str]:
    """Lines of sdk and the files over 500 lines."""
    sdk = python_files(ROOT / "sdk")
    lines = [f"sdk: {sum(line_count(p) for p in sdk)} lines in {len(sdk)} files"]
    long = [
        (line_count(p), p.relative_to(ROOT))
        for folder in FOLDERS
        for p in python_files(ROOT / folder)
        if line_count(p) > 500
    ]
    lines.append(f"files over 500 lines: {len(long)}")
    lines.extend(f"  {path}: {count}" for count, path in sorted(long, reverse=True))
    return lines


def import_figures(runs: int) -> list[str]:
    """Each of :data:`IMPORTS` in ``runs`` fresh interpreters: times, modules, vendors."""
    lines = [f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}"]
    for statement in IMPORTS:
        results = [probe(statement) for _ in range(runs)]
        times = sorted(float(r["seconds"]) for r in results)
        last = results[-1]
        floors = Counter(getattr(floor_of(m, FLOORS), "name", "none") for m in last["rath"])
        lines.append(
            f"{statement}: median {statistics.median(times):.2f} s "
            f"(min {times[0]:.2f}, max {times[-1]:.2f}, {runs} runs); {last['modules']} modules, "
            f"{len(last['rath'])} of Rath's {dict(sorted(floors.items()))}; "
            f"vendors {last['vendors']}"
        )
    return lines


def contract_lists(graph: grimp.ImportGraph) -> str:
    """``allowed_private`` for today's tree, as TOML."""
    pairs = sorted(private_imports(graph, "rath"), key=lambda pair: (pair[1], pair[0]))
    out = ["allowed_private = ["]
    out.extend(f'    "{a}{ARROW}{b}",' for a, b in pairs)
    out.append("]")
    return "\n".join(out)


def main() -> None:
    """Print the figures (or the contract's lists with ``--contract``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contract", action="store_true", help="print the transitional lists")
    parser.add_argument("--runs", type=int, default=3, help="fresh processes per import time")
    args = parser.parse_args()
    graph = grimp.build_graph("rath", include_external_packages=False, cache_dir=None)
    if args.contract:
        print(contract_lists(graph))
        return
    for line in [*graph_figures(graph), *size_figures(), *import_figures(args.runs)]:
        print(line)


if __name__ == "__main__":
    main()
