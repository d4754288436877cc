"""No two modules of the control plane, the agent or the protocol import each other, even through others
(docs/architecture.md, "Who may import whom"). import-linter's contracts say who may import whom; none of them
says "no circle" between modules, so this test does, on grimp's graph (the one import-linter builds): every import
that runs counts, those inside functions too. Imports under TYPE_CHECKING do not: they let a peer operation module
(domain/peers/operations/) name the `PeerService` that runs it, for mypy only, and never load it.

A circle found is printed as the modules in it, so that the fix (a Protocol declared by the importer, a factory
moved to the module it belongs in) can start from there."""

from __future__ import annotations

import grimp

PACKAGES = ("controlplane", "node_agent", "protos")


def import_circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected groups of two or more modules (Tarjan's algorithm, iterative)."""
    modules = sorted(graph.modules)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for root in modules:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            module, child = work.pop()
            if child == 0:
                index[module] = low[module] = len(index)
                stack.append(module)
                on_stack.add(module)
            targets = edges.get(module, [])
            if child < len(targets):
                work.append((module, child + 1))
                target = targets[child]
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[module] = min(low[module], index[target])
                continue
            if low[module] == index[module]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == module:
                        break
                if len(group) > 1:
                    circles.append(sorted(group))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[module])
    return circles


def test_no_module_imports_itself_through_others() -> None:
    graph = grimp.build_graph(*PACKAGES, cache_dir=None, exclude_type_checking_imports=True)
    circles = import_circles(graph)
    assert circles == [], "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


def test_a_circle_is_found() -> None:
    """The finder itself: two modules importing each other, and a three-module ring beside a plain chain."""
    graph = grimp.ImportGraph()
    for module in ("a", "b", "c", "d", "e", "f"):
        graph.add_module(module)
    for importer, imported in (("a", "b"), ("b", "a"), ("c", "d"), ("d", "e"), ("e", "c"), ("e", "f")):
        graph.add_import(importer=importer, imported=imported)
    assert sorted(import_circles(graph)) == [["a", "b"], ["c", "d", "e"]]
