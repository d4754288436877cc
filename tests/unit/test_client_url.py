"""The client URL and the live socket's origins follow the HTTP bind unless they are set (docs/deployment.md)."""

from __future__ import annotations

from controlplane.settings import Settings


def _settings(**env: str) -> Settings:
    return Settings.from_env({f"VPN_{name}": value for name, value in env.items()})


def test_by_default_the_client_is_on_127_0_0_1_port_8000_and_localhost_works_too() -> None:
    settings = _settings()
    assert settings.client_url == "http://127.0.0.1:8000"
    assert {"http://127.0.0.1:8000", "http://localhost:8000"} <= set(settings.allowed_origins)


def test_the_client_url_follows_the_bind_and_its_port() -> None:
    settings = _settings(HTTP_BIND="127.0.0.1:8642")
    assert settings.client_url == "http://127.0.0.1:8642"
    assert {"http://127.0.0.1:8642", "http://localhost:8642"} <= set(settings.allowed_origins)
    assert "http://localhost:8000" not in settings.allowed_origins


def test_a_wildcard_bind_advertises_loopback() -> None:
    assert _settings(HTTP_BIND="0.0.0.0:9000").client_url == "http://127.0.0.1:9000"
    assert _settings(HTTP_BIND="[::]:9000").client_url == "http://127.0.0.1:9000"
    assert _settings(HTTP_BIND="192.0.2.7:80").client_url == "http://192.0.2.7"


def test_a_set_client_url_wins_and_a_public_one_accepts_only_itself() -> None:
    settings = _settings(HTTP_BIND="0.0.0.0:9000", CLIENT_URL="https://vpn.example.org/")
    assert settings.client_url == "https://vpn.example.org"
    assert settings.allowed_origins == ("https://vpn.example.org",)


def test_set_origins_are_taken_as_they_are() -> None:
    settings = _settings(ALLOWED_ORIGINS="https://a.example, https://b.example/")
    assert settings.allowed_origins == ("https://a.example", "https://b.example")
