"""The import graph keeps its one-way layers: the contracts of ``[tool.importlinter]`` in pyproject.toml,
checked by import-linter's ``lint-imports``, and no cycle among the live side, the readers, the services and
the tasks, written here.

Imports inside functions count like the others: the graph is read from the source, every import statement
wherever it stands.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]


def test_the_contracts_of_pyproject_hold():
    """engine imports no Django and nothing of tournaments, and its modules only those below them;
    tournaments.services import no tournaments.api or tournaments.web; tournaments.models and the readers
    (tournaments.selectors, review_selectors, training_selectors) import no tournaments.services, nor does
    tournaments.setting, which both stand on and which imports no reader; the services import neither the tasks nor the live
    side, and the live side no service; the console's modules are layered."""
    lint_imports = Path(sys.executable).with_name("lint-imports")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(
        [str(lint_imports), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


# No import cycle among these: the live side, the readers, each service module, the Celery tasks, the reads
# that close on the way, each module of the console. A cycle through any other module counts too.
ACYCLIC = ("tournaments.live", "tournaments.selectors", "tournaments.review_selectors",
           "tournaments.training_selectors", "tournaments.setting", "tournaments.services.*", "tournaments.tasks",
           "tournaments.reading", "tournaments.web.console.*")


def _nodes(graph) -> dict[str, set[str]]:
    """{node: its modules}: a package is one node with its descendants; ``pkg.*`` makes each module of the
    package (and the package's ``__init__``) a node of its own."""
    nodes = {}
    for name in ACYCLIC:
        if name.removesuffix(".*") not in graph.modules:  # a graph built by hand holds only a few
            continue
        if name.endswith(".*"):
            package = name[:-2]
            nodes[package] = {package}
            for child in graph.find_children(package):
                nodes[child] = {child} | graph.find_descendants(child)
        else:
            nodes[name] = {name} | (graph.find_descendants(name) if graph.find_children(name) else set())
    return nodes


def import_cycles(graph) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Every pair of nodes that import each other (directly or through other modules), as the two chains."""
    nodes = _nodes(graph)

    def chain(importers, imported):
        chains = (graph.find_shortest_chain(importer=a, imported=b) for a in importers for b in imported)
        return min(filter(None, chains), key=len, default=None)

    cycles = []
    for first, second in itertools.combinations(sorted(nodes), 2):
        there, back = chain(nodes[first], nodes[second]), chain(nodes[second], nodes[first])
        if there and back:
            cycles.append((there, back))
    return cycles


def test_the_cycle_check_finds_a_cycle():
    graph = grimp.ImportGraph()
    for module in ("tournaments.live", "tournaments.selectors", "tournaments.tasks", "tournaments.services",
                   "tournaments.services.draw", "tournaments.services.setup", "tournaments.models"):
        graph.add_module(module)
    graph.add_import(importer="tournaments.services.setup", imported="tournaments.selectors")
    graph.add_import(importer="tournaments.selectors", imported="tournaments.models")
    assert import_cycles(graph) == []
    graph.add_import(importer="tournaments.services.draw", imported="tournaments.tasks")
    graph.add_import(importer="tournaments.tasks", imported="tournaments.services")
    graph.add_import(importer="tournaments.services", imported="tournaments.services.draw")
    pairs = {(there[0], back[0]) for there, back in import_cycles(graph)}
    assert ("tournaments.services", "tournaments.services.draw") in pairs
    assert ("tournaments.services.draw", "tournaments.tasks") in pairs
    assert not any("tournaments.selectors" in pair for pair in pairs)


def test_no_import_cycle_among_live_selectors_services_tasks_and_the_console():
    """Every import counts, those inside a function (a task's body) too: the services queue the tasks by
    their names (services/schedule.py), the read model never calls a service, and the graph has no cycle."""
    graph = grimp.build_graph("tournaments", cache_dir=None)
    assert graph.direct_import_exists(importer="tournaments.tasks", imported="tournaments.services")
    assert import_cycles(graph) == []
