"""The floors (docs/design.md): imports only go down, no cycles, every module imports alone."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "infra"))

from import_floors import parse_floors, violations  # noqa: E402

FLOORS = parse_floors(
    [
        "values: pkg.values",
        "engines: pkg.engine",
        "activities: pkg.activities | workflows: pkg.workflows",
        "api: =pkg pkg.api",
    ]
)


def _graph(*imports: tuple[str, str]) -> grimp.ImportGraph:
    graph = grimp.ImportGraph()
    for module in ("pkg", "pkg.values", "pkg.engine", "pkg.activities", "pkg.workflows", "pkg.api"):
        graph.add_module(module)
    for importer, imported in imports:
        graph.add_import(importer=importer, imported=imported)
    return graph


def test_the_project_keeps_its_floors() -> None:
    result = subprocess.run(
        [str(ROOT / ".venv/bin/lint-imports"), "--no-cache"],
        check=False,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "infra")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_an_upward_import_breaks_the_contract() -> None:
    unplaced, wrong, loops = violations(_graph(("pkg.values", "pkg.engine")), "pkg", FLOORS)
    assert wrong == [("pkg.values", "pkg.engine", "values imports engines, a higher floor")]
    assert not unplaced and not loops


def test_siblings_may_not_import_each_other() -> None:
    _, wrong, _ = violations(_graph(("pkg.workflows", "pkg.activities")), "pkg", FLOORS)
    assert wrong == [("pkg.workflows", "pkg.activities", "workflows imports activities, beside it")]


def test_downward_imports_are_kept_and_cycles_are_found() -> None:
    graph = _graph(
        ("pkg.api", "pkg.workflows"),
        ("pkg.workflows", "pkg.values"),
        ("pkg.engine", "pkg.values"),
    )
    assert violations(graph, "pkg", FLOORS) == ([], [], [])
    graph.add_import(importer="pkg.values", imported="pkg.values.inner")
    graph.add_import(importer="pkg.values.inner", imported="pkg.values")
    assert violations(graph, "pkg", FLOORS)[2] == [["pkg.values", "pkg.values.inner"]]


def test_the_package_init_alone_is_placed_by_an_exact_pattern() -> None:
    graph = _graph(("pkg", "pkg.api"))
    graph.add_module("pkg.other")
    unplaced, wrong, _ = violations(graph, "pkg", FLOORS)
    assert unplaced == ["pkg.other"]  # `=pkg` does not claim the package below it
    assert wrong == []


def test_workflow_code_never_imports_the_temporal_client() -> None:
    for path in sorted((ROOT / "workflows").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            assert not any(n.startswith("temporalio.client") for n in names), path.name


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_every_module_imports_alone() -> None:
    # Each module is the first Rath module of its process (tests/import_alone.py says how).
    result = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "import_alone.py")],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    checked = int(result.stdout.split()[1])
    assert result.stdout == f"checked {checked} modules\n" and checked > 250


@pytest.mark.parametrize("module", ["rath.errors", "rath.session"])
def test_values_load_no_temporal_or_vendor_sdk(module: str) -> None:
    # What keeps these imports light (benchmark I1): no Temporal SDK, runtime or model SDKs.
    heavy = "('temporalio', 'rath._runtime', 'openai', 'anthropic')"
    loaded = f"(m for m in sys.modules if m.startswith({heavy}))"
    probe = f"import sys; import {module}; print(sorted{loaded})"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.strip() == "[]"
