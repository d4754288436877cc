"""The two releases the rehearsal's git server serves: the previous one, which the hosts install first, and this tree.

The previous release is the last one that landed before the rehearsal existed: commit PREVIOUS_COMMIT of this
repository's history, served as PREVIOUS_TAG. This tree (committed or not) is served as THIS_TAG, pushed to the
server only when the upgrade step comes, the way a release is published after the hosts were installed. When a new
release lands, move PREVIOUS_COMMIT to it (the rehearsal then proves the upgrade from that one).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from hosts import PROJECT

PREVIOUS_COMMIT = "a54688b5f38cccf5171b08f071c89f82ce2114be"
PREVIOUS_TAG = "v0.14.0"
THIS_TAG = "v0.15.0"
GIT = ["git", "-c", "user.name=Ensayo", "-c", "user.email=ensayo@rehearsal.test", "-c", "init.defaultBranch=main"]


def export_previous(dest: Path) -> Path:
    """The previous release's files in `dest` (git archive: needs this repository's history, not a shallow clone)."""
    present = subprocess.run(["git", "cat-file", "-e", f"{PREVIOUS_COMMIT}^{{commit}}"], cwd=PROJECT, check=False)
    if present.returncode != 0:
        raise RuntimeError(
            f"the previous release's commit {PREVIOUS_COMMIT[:12]} is not in this clone's history (a shallow clone?):"
            " `git fetch --unshallow`, or clone without --depth"
        )
    dest.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "archive", PREVIOUS_COMMIT], cwd=PROJECT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    return dest


def _copy_this_tree(tree: Path) -> None:
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=PROJECT, capture_output=True, check=True,
    ).stdout.decode().split("\0")  # fmt: skip
    for name in filter(None, files):
        source = PROJECT / name
        if source.is_file() or source.is_symlink():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, tree / name, follow_symlinks=False)


def served_repository(workdir: Path) -> tuple[Path, Path]:
    """A bare repository whose default branch is the previous release, tagged PREVIOUS_TAG; and the working
    repository where this tree is committed on top, tagged THIS_TAG, ready for `publish_this_release`."""
    tree = export_previous(workdir / "tree")
    subprocess.run([*GIT, "init", "-q"], cwd=tree, check=True)
    for argv in (["add", "-A"], ["commit", "-q", "-m", "previous release"], ["tag", PREVIOUS_TAG]):
        subprocess.run([*GIT, *argv], cwd=tree, check=True)
    bare = workdir / "git" / "vpn-service.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(tree), str(bare)], check=True)
    subprocess.run([*GIT, "rm", "-rq", "."], cwd=tree, check=True)  # files this release deleted stay deleted
    _copy_this_tree(tree)
    for argv in (["add", "-A"], ["commit", "-q", "-m", "this release"], ["tag", THIS_TAG]):
        subprocess.run([*GIT, *argv], cwd=tree, check=True)
    return bare.parent, tree


def publish_this_release(workdir: Path) -> None:
    """THIS_TAG reaches the git server (and its default branch moves to it)."""
    bare = workdir / "git" / "vpn-service.git"
    subprocess.run(["git", "push", "-q", "--tags", str(bare), "main"], cwd=workdir / "tree", check=True)
