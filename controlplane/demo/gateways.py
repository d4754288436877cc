"""Both fake gateways at once: the control-plane settings that point at them."""

from __future__ import annotations

from typing import Any

from controlplane.demo import qvapay as qvapay_fake
from controlplane.demo import remesita as remesita_fake
from controlplane.demo.qvapay import FakeQvaPay
from controlplane.demo.remesita import FakeRemesita


def gateway_settings(qvapay: FakeQvaPay, remesita: FakeRemesita, timeout: float = 15.0) -> dict[str, Any]:
    """Settings overrides (`make_settings(..., **gateway_settings(...))`): credentials, base URLs and a timeout
    generous for a loaded machine (a test that wants a gateway given up on sooner passes a shorter one)."""
    return {
        "qvapay_app_id": qvapay_fake.APP_ID,
        "qvapay_app_secret": qvapay_fake.APP_SECRET,
        "qvapay_base_url": qvapay.base_url,
        "remesita_api_key": remesita_fake.API_KEY,
        "remesita_api_secret": remesita_fake.API_SECRET,
        "remesita_business_unit_id": remesita_fake.BUSINESS_UNIT,
        "remesita_base_url": remesita.base_url,
        "payments_timeout_seconds": timeout,
    }
