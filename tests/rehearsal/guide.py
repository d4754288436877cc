"""The deployment guide's own commands, read from docs/deployment.md.

A fenced block right after an HTML comment `<!-- rehearsal:NAME -->` is a step the rehearsal runs as written (the
comment is invisible to a reader). The test never keeps a copy of a command: editing a marked block changes what is
rehearsed, and a marked block that disappears fails the rehearsal.
"""

from __future__ import annotations

import re
from pathlib import Path

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "deployment.md"
_MARKED = re.compile(r"^<!-- rehearsal:(\S+) -->\n```sh\n(.*?)^```[ \t]*$", re.M | re.S)
_APT_INSTALL = re.compile(r"apt-get install ((?:[^\n\\]|\\\n)*)")


def blocks(path: Path = GUIDE) -> dict[str, str]:
    """Every marked block by name; a name given twice is an error (two blocks would silently merge)."""
    found: dict[str, str] = {}
    for match in _MARKED.finditer(path.read_text()):
        name = match.group(1)
        if name in found:
            raise ValueError(f"{path}: two blocks marked rehearsal:{name}")
        found[name] = match.group(2)
    return found


def block(name: str, path: Path = GUIDE) -> str:
    found = blocks(path)
    if name not in found:
        raise KeyError(f"{path} has no block marked rehearsal:{name} (marked: {', '.join(sorted(found))})")
    return found[name]


def apt_packages(script: str) -> list[str]:
    """The packages every `apt-get install` line of a script names, comments included (`# userspace backend only:
    apt-get install -y wireguard-go` is an instruction too): the host image is made of exactly these."""
    packages: set[str] = set()
    for match in _APT_INSTALL.finditer(script):
        words = match.group(1).replace("\\\n", " ").split("#")[0].split()
        packages.update(word for word in words if not word.startswith("-"))
    return sorted(packages)
