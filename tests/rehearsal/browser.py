"""One HTTPS request from the customer's side, run inside the customer's network namespace (`ip netns exec`):
the site's name resolves through /etc/netns/<namespace>/hosts, the certificate is checked against the rehearsal's
CA. Prints {"status", "headers", "text"} as JSON.

    browser.py CA METHOD URL JSON_BODY|- [HEADER:VALUE ...]
"""

from __future__ import annotations

import json
import sys

import httpx


def main(argv: list[str]) -> int:
    ca, method, url, body_text, *rest = argv
    body = None if body_text == "-" else json.loads(body_text)
    headers = dict(item.split(":", 1) for item in rest)
    with httpx.Client(verify=ca, timeout=20) as client:
        answer = client.request(method, url, json=body, headers=headers)
    print(json.dumps({"status": answer.status_code, "headers": dict(answer.headers), "text": answer.text}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
