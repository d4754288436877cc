"""Both fake gateways on fixed local ports, for trying purchases by hand with `make run` (docs/payments.md).

uv run python -m tests.fakes.run_gateways      # then start the control plane with the variables it prints
"""

from __future__ import annotations

import contextlib
import threading

from tests.fakes import qvapay, remesita
from tests.fakes.qvapay import FakeQvaPay
from tests.fakes.remesita import FakeRemesita

QVAPAY_PORT = 8701
REMESITA_PORT = 8702


def main() -> None:
    with FakeQvaPay(port=QVAPAY_PORT) as fake_qvapay, FakeRemesita(port=REMESITA_PORT) as fake_remesita:
        print("Pasarelas simuladas en marcha. Arranque el plano de control con:\n")
        print(f"  export VPN_QVAPAY_BASE_URL={fake_qvapay.base_url}")
        print(f"  export VPN_QVAPAY_APP_ID={qvapay.APP_ID} VPN_QVAPAY_APP_SECRET={qvapay.APP_SECRET}")
        print(f"  export VPN_REMESITA_BASE_URL={fake_remesita.base_url}")
        print(f"  export VPN_REMESITA_API_KEY={remesita.API_KEY} VPN_REMESITA_API_SECRET={remesita.API_SECRET}")
        print(f"  export VPN_REMESITA_BUSINESS_UNIT_ID={remesita.BUSINESS_UNIT}")
        print("\nCtrl+C para terminar.")
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
