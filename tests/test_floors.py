"""The floors (docs/design.md): imports only go down, no module or package cycle, no private
reach, every module imports alone, and values load no engine."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "infra"))

from floor_figures import VENDORS  # noqa: E402
from import_floors import (  # noqa: E402
    floor_of,
    own_modules,
    package_cycles,
    packages_on_disk,
    parse_floors,
    pattern_problems,
    private_imports,
    unallowed_pairs,
    violations,
)

CONTRACT = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
PROJECT_FLOORS = parse_floors(CONTRACT["contracts"][0]["floors"])
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


def test_packages_are_found_on_disk_without_importing_them() -> None:
    found = packages_on_disk("rath")
    assert {"rath", "rath.workflows", "rath.session.persistence", "rath.llm.openai"} <= found
    assert "rath.errors" not in found and "rath.session.session" not in found


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


def test_a_sub_folder_may_sit_above_its_parent_which_may_not_import_it() -> None:
    floors = parse_floors(["values: pkg.values", "engines: pkg.values.engine", "api: =pkg"])
    graph = _graph(("pkg.values.engine", "pkg.values"), ("pkg.values", "pkg.values.engine"))
    graph.remove_import(importer="pkg.values.engine", imported="pkg.values")
    _, wrong, _ = violations(graph, "pkg", floors)
    assert wrong == [("pkg.values", "pkg.values.engine", "values imports engines, a higher floor")]
    packages = {"pkg", "pkg.values", "pkg.values.engine"}
    assert pattern_problems(floors, "pkg", packages) == []


def test_floor_patterns_name_folders_or_top_level_modules() -> None:
    floors = parse_floors(["values: pkg.top pkg.values.mod", "api: =pkg =pkg.values"])
    packages = {"pkg", "pkg.values"}
    problems = pattern_problems(floors, "pkg", packages)
    assert [p.split(" names ")[0] for p in problems] == [
        "floor pattern pkg.values.mod",
        "floor pattern =pkg.values",
    ]
    assert "list its folder" in problems[0]
    # Kept while the code moves; an entry no floor uses any more must go.
    transitional = ["pkg.values.mod", "=pkg.values"]
    assert pattern_problems(floors, "pkg", packages, transitional) == []
    stale = pattern_problems(floors, "pkg", packages, [*transitional, "pkg.values.gone"])
    assert stale == [
        "transitional_modules entry pkg.values.gone is not a module pattern of any floor: delete it"
    ]


def test_a_package_cycle_is_found_without_a_module_cycle() -> None:
    graph = _graph(
        ("pkg.api.x", "pkg.engine.y"),
        ("pkg.engine.z", "pkg.api.w"),
        ("pkg.values", "pkg"),  # imports of the root package itself do not count
        ("pkg", "pkg.values.x"),
    )
    assert violations(graph, "pkg", FLOORS)[2] == []
    found = package_cycles(graph, "pkg")
    assert found == [["pkg.api", "pkg.engine"]]


def test_an_import_of_another_packages_private_module_is_found() -> None:
    graph = _graph(
        ("pkg.api", "pkg.engine._wire"),
        ("pkg.api", "pkg.engine.sub._part"),
        ("pkg.engine.public", "pkg.engine._wire"),  # inside its own package: fine
        ("pkg.api", "pkg.engine.__main__"),  # a dunder name is not private
        ("pkg.api", "pkg._top"),  # a top-level module is its own package
    )
    found = private_imports(graph, "pkg")
    assert found == [("pkg.api", "pkg.engine._wire"), ("pkg.api", "pkg.engine.sub._part")]
    allowed = ["pkg.api -> pkg.engine._wire", "pkg.api -> pkg.engine._gone"]
    assert unallowed_pairs(found, allowed) == (
        [("pkg.api", "pkg.engine.sub._part")],
        ["pkg.api -> pkg.engine._gone"],
    )


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
    heavy = "('temporalio', 'rath.runtime', 'openai', 'anthropic')"
    loaded = f"(m for m in sys.modules if m.startswith({heavy}))"
    probe = f"import sys; import {module}; print(sorted{loaded})"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.strip() == "[]"


def _values_modules() -> list[str]:
    graph = grimp.build_graph("rath", include_external_packages=False, cache_dir=None)
    return sorted(
        m
        for m in own_modules(graph, "rath")
        if getattr(floor_of(m, PROJECT_FLOORS), "name", "") == "values"
    )


def _ancestors(modules: list[str]) -> set[str]:
    """The packages whose ``__init__`` runs when ``modules`` are imported."""
    return {m.rsplit(".", n)[0] for m in modules for n in range(1, m.count(".") + 1)}


def _loaded_after(statement: str) -> list[str]:
    """Every module in ``sys.modules`` after ``statement`` ran in a fresh interpreter."""
    probe = f"import sys\n{statement}\nprint('\\n'.join(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    return result.stdout.split()


def _heavy(loaded: list[str], floors: set[str], exempt: set[str]) -> tuple[list[str], list[str]]:
    """Rath's loaded modules outside ``floors`` (``exempt`` aside), and the vendors loaded."""
    rath = [m for m in loaded if m.startswith("rath.") and m not in exempt]
    outside = [m for m in rath if getattr(floor_of(m, PROJECT_FLOORS), "name", None) not in floors]
    return outside, sorted({m.split(".")[0] for m in loaded} & set(VENDORS))


def test_the_values_floor_is_read_from_the_contract() -> None:
    values = _values_modules()
    assert {"rath.errors", "rath.settings", "rath.contracts", "rath.session.chunk"} <= set(values)
    assert "rath.llm.openai" not in values and "rath" not in values


@pytest.mark.timeout(180)
def test_values_load_no_engine() -> None:
    values = _values_modules()
    loaded = _loaded_after("\n".join(f"import {m}" for m in values))
    # A values module's parent packages run their __init__; what they load is checked.
    assert _heavy(loaded, {"values"}, _ancestors(values)) == ([], [])


@pytest.mark.parametrize(
    ("statement", "floors", "exempt"),
    [
        # Engines may load for flow (the built-in tools live there); what starts runs, and
        # the vendor SDKs, load when a run starts.
        ("from rath import flow", {"values", "engines", "api"}, set()),
        ("from rath.session import Session", {"values"}, {"rath.session"}),
    ],
    ids=["flow", "session"],
)
def test_entry_points_load_no_vendor_sdk(
    statement: str, floors: set[str], exempt: set[str]
) -> None:
    loaded = _loaded_after(statement)
    # A package's lazy __init__ runs as the parent of what loads; what it loads is checked.
    parents = _ancestors([m for m in loaded if m.startswith("rath.")])
    assert _heavy(loaded, floors, exempt | parents) == ([], [])


def test_docs_design_lists_every_module() -> None:
    """docs/design.md's module map names every module of the package, and nothing gone."""
    design = (ROOT / "docs" / "design.md").read_text()
    folders = ("sdk", "workflows", "activities", "worker")
    modules = {
        path.relative_to(ROOT).as_posix() for top in folders for path in (ROOT / top).rglob("*.py")
    }
    listed = set(re.findall(r"^- `((?:sdk|workflows|activities|worker)/[^`]+\.py)`", design, re.M))
    assert sorted(modules - listed) == []
    assert sorted(listed - modules) == []
