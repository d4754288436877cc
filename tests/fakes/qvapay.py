"""The fake QvaPay lives in shipped code (the demo of `make run` uses it too): controlplane/demo/qvapay.py."""

from controlplane.demo.qvapay import APP_ID, APP_SECRET, FakeQvaPay

__all__ = ["APP_ID", "APP_SECRET", "FakeQvaPay"]
