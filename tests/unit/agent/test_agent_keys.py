"""The node key: made once in the state directory, private to the agent, stable across restarts."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from node_agent.keys import generate_private_key, load_or_create_private_key, public_key_of


def test_first_start_creates_a_private_key_readable_only_by_the_agent(tmp_path: Path) -> None:
    state = tmp_path / "state"
    key = load_or_create_private_key(state)
    path = state / "private.key"
    assert path.read_text().strip() == key
    assert path.stat().st_mode & 0o777 == 0o600
    assert not list(state.glob("*.tmp"))


def test_restart_reuses_the_same_key(tmp_path: Path) -> None:
    assert load_or_create_private_key(tmp_path) == load_or_create_private_key(tmp_path)


def test_loosened_permissions_are_tightened_again(tmp_path: Path) -> None:
    load_or_create_private_key(tmp_path)
    (tmp_path / "private.key").chmod(0o644)
    load_or_create_private_key(tmp_path)
    assert (tmp_path / "private.key").stat().st_mode & 0o777 == 0o600


def test_garbage_key_file_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "private.key").write_text("bm90IGEga2V5\n")
    with pytest.raises(ValueError, match="private key"):
        load_or_create_private_key(tmp_path)


def test_public_key_matches_wireguard_tools() -> None:
    if shutil.which("wg") is None:
        if os.environ.get("VPN_REQUIRE_ALL_TESTS") == "1":
            pytest.fail("wg (wireguard-tools) not installed")
        pytest.skip("wg (wireguard-tools) not installed")
    private = generate_private_key()
    expected = subprocess.run(["wg", "pubkey"], input=private, capture_output=True, text=True, check=True)
    assert public_key_of(private) == expected.stdout.strip()
