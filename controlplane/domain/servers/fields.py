"""What a server's fields may hold. Its `address`, `port` and `dns` are written into every customer's WireGuard file
and its name into the node's install steps, where one line break would let an admin add a command that runs as
root (`PostUp = ...`): so each is checked for what it is (docs/security.md, "Third round")."""

from __future__ import annotations

import ipaddress
import re
import unicodedata

from controlplane.errors import Invalid

# A DNS name: labels of letters, digits and inner hyphens, at most 253 characters, an optional final dot.
HOST_NAME = re.compile(
    r"(?=.{1,253}\.?\Z)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?"
)
# C0/C1 controls (line feed, carriage return, NUL, NEL...), format characters (zero-width, bidi overrides) and the
# Unicode line and paragraph separators: some reader of a file or a header breaks a line at each of them.
_CONTROL_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})


def first_control(value: str) -> int | None:
    """Where the first control character of `value` is, or None."""
    for index, char in enumerate(value):
        if unicodedata.category(char) in _CONTROL_CATEGORIES:
            return index
    return None


def without_controls(value: str) -> str:
    """`value` with its control characters dropped, for a stored value shown where a line break must not reach."""
    return "".join(char for char in value if unicodedata.category(char) not in _CONTROL_CATEGORIES)


def is_ip(value: str) -> bool:
    """An IPv4 or IPv6 literal as WireGuard writes it: no brackets, no zone (`%eth0` means nothing to a customer)."""
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return "%" not in value


def is_host_name(value: str) -> bool:
    """A DNS name that cannot be mistaken for an address: its last label is not all digits ("10.0.0" is neither)."""
    return HOST_NAME.fullmatch(value) is not None and not value.rstrip(".").rsplit(".", 1)[-1].isdigit()


def is_host(value: str) -> bool:
    return is_ip(value) or is_host_name(value)


def dns_entries(value: str) -> list[str] | None:
    """The DNS servers and search domains of a `dns` value ("1.1.1.1, 2606:4700:4700::1111, casa.lan"), or None
    when it is not one: at least one IP address, and host names only as search domains (wg-quick's reading)."""
    entries = [entry.strip() for entry in value.split(",")]
    if not all(is_ip(entry) or is_host_name(entry) for entry in entries):
        return None
    return entries if any(is_ip(entry) for entry in entries) else None


def check_address(value: str) -> str:
    """`address`: what a WireGuard Endpoint takes before ":port" (the renderer adds the brackets of an IPv6)."""
    if not is_host(value):
        raise Invalid(
            "La dirección pública debe ser un nombre de host o una IP, sin puerto, corchetes ni esquema"
            " (ejemplo: vpn1.example.org o 203.0.113.7).",
            code="invalid_address",
            fields={"address": "Host o IP no válido."},
        )
    return value


def check_dns(value: str) -> str:
    """The DNS line of customers' files, written back as wg-quick reads it: entries separated by ", "."""
    entries = dns_entries(value)
    if entries is None:
        raise Invalid(
            "El DNS debe ser una o más IP separadas por comas, y opcionalmente dominios de búsqueda"
            " (ejemplo: 1.1.1.1, 1.0.0.1).",
            code="invalid_dns",
            fields={"dns": "IP o dominios no válidos."},
        )
    return ", ".join(entries)


_TEXT_LABELS = {"name": "El nombre", "ubication": "La ubicación"}


def check_text(value: str, field: str) -> str:
    """Free text (`name`, `ubication`) shown to people and written into the install steps: any character but
    controls."""
    if first_control(value) is not None:
        raise Invalid(
            f"{_TEXT_LABELS[field]} no puede contener saltos de línea ni caracteres de control.",
            code="control_character",
            fields={field: "Sin saltos de línea ni caracteres de control."},
        )
    return value
