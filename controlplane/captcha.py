"""Server-side captcha check against a siteverify-style endpoint (hCaptcha, Turnstile and reCAPTCHA share it)."""

from __future__ import annotations

import logging

import httpx

log = logging.getLogger(__name__)


class CaptchaVerifier:
    def __init__(self, secret: str, verify_url: str, site_key: str, http: httpx.AsyncClient) -> None:
        self._secret = secret
        self._verify_url = verify_url
        self._site_key = site_key
        self._http = http

    @property
    def enabled(self) -> bool:
        return bool(self._secret)

    async def verify(self, token: str, remote_ip: str | None) -> bool:
        if not self.enabled:
            return True
        if not token:
            return False
        form = {"secret": self._secret, "response": token, "sitekey": self._site_key}
        if remote_ip:
            form["remoteip"] = remote_ip
        try:
            answer = await self._http.post(self._verify_url, data=form, timeout=10)
            answer.raise_for_status()
            return answer.json().get("success") is True
        except (httpx.HTTPError, ValueError) as exc:
            log.warning("captcha provider unreachable or answered badly: %s", exc)
            return False
