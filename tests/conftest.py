"""Fixtures shared by every layer: which database the API layer runs on, and the opt-out rule for skips."""

from __future__ import annotations

import os

import pytest

REQUIRE_ALL = os.environ.get("VPN_REQUIRE_ALL_TESTS") == "1"


def skip_or_fail(reason: str) -> None:
    """Skip where the environment lacks something; in CI (VPN_REQUIRE_ALL_TESTS=1) that is a failure."""
    if REQUIRE_ALL:
        pytest.fail(f"required test could not run: {reason}", pytrace=False)
    pytest.skip(reason)
