"""The demo of `make run` (run.py): demo data, the fake payment gateways and a simulated node. Never imported by
`serve`; docs/deployment.md, "The demo", says what it starts and when it refuses to."""
