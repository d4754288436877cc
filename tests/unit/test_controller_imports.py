"""Controllers take the parts of the app they use by name, from their domain's providers (domain/<domain>/
dependencies.py) or the shared ones (controlplane/dependencies.py): no controller or domain provider module imports
the composition root (controlplane/services.py, or the app that runs it), no handler takes the whole container, and
each provider is typed and names what it reads (no providers generated from the container's fields)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONTROLLERS = sorted((ROOT / "controlplane" / "domain").glob("**/controllers.py"))
DOMAIN_PROVIDERS = sorted((ROOT / "controlplane" / "domain").glob("**/dependencies.py"))
SHARED_PROVIDERS = ROOT / "controlplane" / "dependencies.py"
COMPOSITION_ROOT = ("controlplane.services", "controlplane.app")


def imported_modules(tree: ast.Module) -> set[str]:
    """Every module a file imports, and each `from x import y` also as x.y (y may be a module)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            names.add(module)
            names |= {f"{module}.{alias.name}" for alias in node.names}
    return names


def test_the_scan_finds_the_controllers() -> None:
    found = {path.relative_to(ROOT).as_posix() for path in CONTROLLERS}
    assert {"controlplane/domain/peers/controllers.py", "controlplane/domain/manager/controllers.py"} <= found


def test_the_scan_finds_each_domains_providers() -> None:
    found = {path.relative_to(ROOT).as_posix() for path in DOMAIN_PROVIDERS}
    assert {"controlplane/domain/peers/dependencies.py", "controlplane/domain/accounts/dependencies.py"} <= found


def test_no_controller_imports_the_composition_root() -> None:
    offenders = []
    for path in CONTROLLERS + DOMAIN_PROVIDERS:
        for module in imported_modules(ast.parse(path.read_text(), str(path))):
            if module.startswith(".") or any(module == m or module.startswith(f"{m}.") for m in COMPOSITION_ROOT):
                offenders.append(f"{path.relative_to(ROOT)}: {module}")
    assert not offenders, offenders


def test_no_handler_takes_the_whole_container() -> None:
    offenders = []
    for path in CONTROLLERS:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
                if any(arg.arg == "services" for arg in arguments):
                    offenders.append(f"{path.relative_to(ROOT)}: {node.name}")
    assert not offenders, offenders


def test_every_provider_is_typed_and_reads_its_part_by_name() -> None:
    """A provider returns what it provides (PeerService, not Any) and reads it by attribute (no getattr over the
    container's fields)."""
    offenders = []
    for path in [*DOMAIN_PROVIDERS, SHARED_PROVIDERS]:
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.AsyncFunctionDef | ast.FunctionDef) and node.name.startswith("provide_"):
                returns = ast.unparse(node.returns) if node.returns is not None else "Any"
                if returns == "Any":
                    offenders.append(f"{path.relative_to(ROOT)}: {node.name} is not typed")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "fields"):
                offenders.append(f"{path.relative_to(ROOT)}: {node.func.id}() at line {node.lineno}")
    assert not offenders, offenders
