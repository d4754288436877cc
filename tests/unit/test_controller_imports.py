"""Controllers take the parts of the app they use by name (controlplane/dependencies.py): none imports the
composition root (controlplane/services.py, or the app that runs it) and no handler takes the whole container."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONTROLLERS = sorted((ROOT / "controlplane" / "domain").glob("**/controllers.py"))
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


def test_no_controller_imports_the_composition_root() -> None:
    offenders = []
    for path in CONTROLLERS:
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
