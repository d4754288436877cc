"""docs/deployment.md's shell blocks as an operator pastes them, one block per shell: what broke when the guide was
followed literally on fresh Debian 12 hosts (issue 31) stays fixed.

`run_as_vpn` is taken from the guide itself and run with a stand-in `systemd-run` that records its arguments."""

from __future__ import annotations

import os
import pty
import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GUIDE = (REPO / "docs" / "deployment.md").read_text()
BLOCKS = re.findall(r"```sh\n(.*?)```", GUIDE, re.S)
DEFINITION = re.compile(r"^run_as_vpn\(\) \{.*?\}$", re.S | re.M)


def _calls_run_as_vpn(block: str) -> bool:
    return any(re.match(r"\s*run_as_vpn\s", line) for line in block.splitlines())


def test_every_block_that_calls_run_as_vpn_defines_it_first() -> None:
    """ "Upgrades" and "Restore" called it in a new shell where nothing had defined it."""
    calling = [block for block in BLOCKS if _calls_run_as_vpn(block)]
    assert len(calling) >= 3  # the install, the upgrade, the restore
    for block in calling:
        definition = DEFINITION.search(block)
        first_call = next(m for m in re.finditer(r"^\s*run_as_vpn\s", block, re.M))
        assert definition is not None and definition.start() < first_call.start(), block[:200]


def _run_as_vpn(tmp_path: Path, block: str, terminal: bool) -> list[str]:
    """The block's own run_as_vpn, run once; the arguments the stand-in systemd-run got."""
    definition = DEFINITION.search(block)
    assert definition is not None
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    record = tmp_path / "args"
    (bin_dir / "systemd-run").write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {record}\n')
    (bin_dir / "systemd-run").chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin"}
    script = definition.group(0) + "\nrun_as_vpn migrate\n"
    if terminal:
        primary, secondary = pty.openpty()
        try:
            done = subprocess.run(["bash", "-c", script], stdin=secondary, stdout=secondary, env=env, timeout=30)
        finally:
            os.close(primary)
            os.close(secondary)
    else:
        done = subprocess.run(
            ["bash", "-c", script], stdin=subprocess.DEVNULL, capture_output=True, env=env, timeout=30
        )
    assert done.returncode == 0
    return record.read_text().splitlines()


def test_run_as_vpn_without_a_terminal_pipes_instead_of_waiting_for_one(tmp_path: Path) -> None:
    """`systemd-run --pty` without a terminal waits forever: a script or `ssh -T` hung at `run_as_vpn migrate`."""
    for block in (b for b in BLOCKS if _calls_run_as_vpn(b)):
        args = _run_as_vpn(tmp_path, block, terminal=False)
        assert "--pipe" in args and "--pty" not in args
        assert args[-3:] == ["-m", "controlplane", "migrate"] and "User=vpn" in args
        assert "--pty" in _run_as_vpn(tmp_path, block, terminal=True)  # create-admin's password prompt


def _commands(block: str) -> list[str]:
    """The block's lines without comments (a `#` that starts a word)."""
    return [re.sub(r"(^|\s)#.*", "", line) for line in block.splitlines()]


def test_the_web_client_is_built_with_the_project_s_npm_wrapper_everywhere() -> None:
    """Debian 12 has no npm new enough for Vite: the upgrade called a bare `npm`, failed, and kept the old build."""
    for block in BLOCKS:
        for line in _commands(block):
            for match in re.finditer(r"(\S*)\bnpm\b", line):
                assert match.group(1).endswith("scripts/"), line


def test_the_certificate_is_issued_before_the_site_that_names_it_is_enabled() -> None:
    """`certbot --nginx` ran `nginx -t` with a site whose certificate files did not exist yet: it always failed."""
    block = next(b for b in BLOCKS if "sites-enabled/vpn" in b)
    lines = _commands(block)
    certbot = next(i for i, line in enumerate(lines) if line.startswith("certbot "))
    enable = next(i for i, line in enumerate(lines) if "sites-enabled/vpn" in line)
    assert certbot < enable
    assert "--nginx" not in lines[certbot] and "--webroot -w /var/www/html" in lines[certbot]
    # The site's port-80 block answers the renewals' challenges from the same folder.
    assert (
        "location /.well-known/acme-challenge/ { root /var/www/html; }"
        in (REPO / "packaging" / "nginx-vpn.conf").read_text()
    )


def test_readyz_right_after_a_start_is_asked_until_it_answers() -> None:
    """Right after `enable --now` (or a restart) the port is not open yet: one curl said "connection refused"."""
    asked = [line for block in BLOCKS for line in _commands(block) if "/readyz" in line and "curl" in line]
    assert len(asked) >= 2
    for line in asked:
        assert "--retry" in line and "--retry-connrefused" in line and "-f" in line.split()[1], line
