"""The fake Remesita lives in shipped code (the demo of `make run` uses it too): controlplane/demo/remesita.py."""

from controlplane.demo.remesita import API_KEY, API_SECRET, BUSINESS_UNIT, FakeRemesita

__all__ = ["API_KEY", "API_SECRET", "BUSINESS_UNIT", "FakeRemesita"]
