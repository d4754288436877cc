"""Payment gateways behind one interface (QvaPay, Remesita), built from the settings."""

from __future__ import annotations

import httpx

from controlplane.crypto import SecretBox
from controlplane.payments.base import Gateway
from controlplane.payments.qvapay import QvaPayGateway
from controlplane.payments.remesita import RemesitaGateway
from controlplane.settings import Settings

# A gateway as people read it ("QvaPay", not `qvapay`), and the manager's name for payments staff recorded by hand.
GATEWAY_LABELS = {QvaPayGateway.name: QvaPayGateway.label, RemesitaGateway.name: RemesitaGateway.label}
MANUAL_LABEL = "Pago manual"


def gateway_label(name: str) -> str:
    return MANUAL_LABEL if name == "manual" else GATEWAY_LABELS.get(name, name)


def build_gateways(settings: Settings, http: httpx.AsyncClient, box: SecretBox) -> dict[str, Gateway]:
    timeout, public = settings.payments_timeout_seconds, settings.client_url
    qvapay = QvaPayGateway(
        http, timeout, public, settings.qvapay_base_url, settings.qvapay_app_id, settings.qvapay_app_secret
    )
    remesita = RemesitaGateway(
        http,
        timeout,
        public,
        base_url=settings.remesita_base_url,
        api_key=settings.remesita_api_key,
        api_secret=settings.remesita_api_secret,
        business_unit_id=settings.remesita_business_unit_id,
        sandbox=settings.remesita_sandbox,
        # Derived from the key file: nothing to store, and unguessable without it.
        url_secret=lambda remote_id: box.lookup_hash(f"remesita-ipn:{remote_id}")[:40],
    )
    return {qvapay.name: qvapay, remesita.name: remesita}
