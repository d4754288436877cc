"""What a server's fields may hold before they reach customers' WireGuard files (controlplane/domain/servers/fields.py),
the renderer's own refusal of a control character, and the header naming the file."""

from __future__ import annotations

import dataclasses

import pytest

from controlplane.domain.peers.config_file import ClientConfig, UnsafeValue, content_disposition, render
from controlplane.domain.servers.fields import check_address, check_dns, check_text
from controlplane.errors import Invalid

LINE_BREAKS = ["\n", "\r", "\r\n", "\x00", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u2029", "\u200b", "\u202e"]


@pytest.mark.parametrize(
    "host", ["vpn1.example.org", "vpn1.example.org.", "localhost", "203.0.113.7", "2001:db8::7", "xn--habana-5ta.cu"]
)
def test_addresses_customers_can_dial_are_taken(host: str) -> None:
    assert check_address(host) == host


@pytest.mark.parametrize(
    "host",
    [
        "vpn1.example.org:51820",  # the port is its own field
        "[2001:db8::7]",  # the renderer adds the brackets
        "udp://vpn1.example.org",
        "vpn1 example.org",
        "-vpn.example.org",
        "10.0.0",  # neither an address nor a name (all-digit last label)
        "999.1.1.1",
        "fe80::1%eth0",
        "a" * 64 + ".example.org",
        "",
    ],
)
def test_anything_else_as_the_address_is_refused_naming_the_field(host: str) -> None:
    with pytest.raises(Invalid) as refused:
        check_address(host)
    assert refused.value.status_code == 422 and refused.value.fields == {"address": "Host o IP no válido."}


@pytest.mark.parametrize("brk", LINE_BREAKS)
def test_no_line_break_passes_any_field(brk: str) -> None:
    for check, value in ((check_address, "vpn1.example.org"), (check_dns, "1.1.1.1")):
        with pytest.raises(Invalid):
            check(f"{value}{brk}PostUp = touch /tmp/pwned")
    for field in ("name", "ubication"):
        with pytest.raises(Invalid) as refused:
            check_text(f"Habana{brk}PostUp = touch /tmp/pwned", field)
        assert refused.value.fields == {field: "Sin saltos de línea ni caracteres de control."}


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("1.1.1.1", "1.1.1.1"),
        ("1.1.1.1,1.0.0.1", "1.1.1.1, 1.0.0.1"),
        ("10.8.0.1, 2606:4700:4700::1111, casa.lan", "10.8.0.1, 2606:4700:4700::1111, casa.lan"),
        ("casa.lan, 10.8.0.1", "casa.lan, 10.8.0.1"),
    ],
)
def test_dns_takes_addresses_and_search_domains(typed: str, stored: str) -> None:
    assert check_dns(typed) == stored


@pytest.mark.parametrize(
    "dns", ["", "dns.google", "1.1.1.1,", "1.1.1.1; 8.8.8.8", "1.1.1.1 8.8.8.8", "1.1.1.1, 1.1.1", "1.1.1.1/32"]
)
def test_dns_without_an_address_or_with_a_stray_entry_is_refused(dns: str) -> None:
    with pytest.raises(Invalid) as refused:
        check_dns(dns)
    assert refused.value.code == "invalid_dns" and refused.value.fields == {"dns": "IP o dominios no válidos."}


def test_free_text_keeps_accents_and_spaces() -> None:
    assert check_text("Bogotá – Centro 1", "name") == "Bogotá – Centro 1"


CONFIG = ClientConfig(
    private_key="cHJpdmF0ZQ==",
    address="10.8.0.2",
    dns="1.1.1.1",
    server_public_key="cHVibGlj",
    preshared_key="cHNr",
    endpoint_host="2001:db8::7",
    endpoint_port=51820,
)


def test_the_renderer_writes_the_template_lines() -> None:
    text = render(CONFIG)
    assert "Endpoint = [2001:db8::7]:51820" in text and "DNS = 1.1.1.1" in text
    assert len(text.splitlines()) == len(text.split("\n")) - 1  # no line break but the template's own


@pytest.mark.parametrize("field", ["dns", "endpoint_host", "address", "server_public_key"])
@pytest.mark.parametrize("brk", LINE_BREAKS)
def test_the_renderer_refuses_a_control_character_in_any_value(field: str, brk: str) -> None:
    """A stored value that got past the API (a row from before the check) never becomes a line of its own."""
    bad = dataclasses.replace(CONFIG, **{field: getattr(CONFIG, field) + brk + "PostUp = touch /tmp/pwned"})
    with pytest.raises(UnsafeValue) as refused:
        render(bad)
    assert refused.value.field == field


@pytest.mark.parametrize(
    ("name", "plain", "encoded"),
    [
        ("movil", "movil", "movil"),
        ("Teléfono", "Tel_fono", "Tel%C3%A9fono"),
        ('a";filename="x.sh', "a__filename__x.sh", "a%22%3Bfilename%3D%22x.sh"),
        ("movil\r\nSet-Cookie: a=1", "movilSet-Cookie__a_1", "movilSet-Cookie%3A%20a%3D1"),
        ("\u2028", "peer", "peer"),
    ],
)
def test_the_file_name_header_names_one_file_and_nothing_else(name: str, plain: str, encoded: str) -> None:
    expected = f"attachment; filename=\"{plain}.conf\"; filename*=UTF-8''{encoded}.conf"
    assert content_disposition("attachment", name) == expected
