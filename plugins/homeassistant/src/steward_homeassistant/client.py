"""Home Assistant's REST API, as it really behaves (checked against a live 2024.3 instance).

Only GET requests ever leave. Home Assistant is the operator's own upstream (usually on the LAN),
so it is reached directly; ``https://`` is always verified (a household's own CA may be named),
and there is no switch to turn verification off. A 401 is never retried: Home Assistant may ban
an address after repeated failures. No message built here contains the token.
"""

from __future__ import annotations

import datetime
import ssl
from typing import Any
from urllib.parse import quote

import httpx

import steward

TIMEOUT = httpx.Timeout(8.0, connect=4.0)


class HomeAssistantClient:
    def __init__(self, base_url: str, token: str, *, ca_bundle: str = "") -> None:
        self.base_url = base_url.rstrip("/")
        self._token = token
        self._verify: ssl.SSLContext | bool = ssl.create_default_context(cafile=ca_bundle) if ca_bundle else True

    async def ping(self) -> str:
        """``GET /api/`` → "API running.": the cheap connection test."""
        body = await self._get("/api/")
        return str(body.get("message", "API running.")) if isinstance(body, dict) else "API running."

    async def reachable(self) -> str:
        """Whether Home Assistant answers at all, asked **without** the token (for ``/healthz``).

        ``/healthz`` needs no key, so it must not be a way to make Steward send the household's
        token anywhere: any HTTP answer (HA says 401 to an anonymous request) means reachable.
        """
        response = await self._send("/api/", {"Accept": "application/json"})
        return f"reachable (HTTP {response.status_code} without a token)"

    async def states(self) -> list[dict[str, Any]]:
        body = await self._get("/api/states")
        if not isinstance(body, list):
            raise self._failure("answered /api/states with something that is not a list")
        return [item for item in body if isinstance(item, dict) and isinstance(item.get("entity_id"), str)]

    async def state(self, entity_id: str) -> dict[str, Any] | None:
        """One entity's state, or ``None`` when Home Assistant answers 404 (removed or renamed)."""
        body = await self._get(f"/api/states/{quote(entity_id)}", missing_ok=True)
        return body if isinstance(body, dict) else None

    async def history(self, entity_id: str, start: datetime.datetime, end: datetime.datetime) -> list[dict[str, Any]]:
        """Rows of one entity's history between ``start`` and ``end`` (UTC).

        ``end_time`` is required (without it HA stops at start + 1 day) and must be URL-encoded
        (an unencoded ``+00:00`` is a 400); the start goes in the path with a ``Z``.
        """
        path = (
            f"/api/history/period/{start.strftime('%Y-%m-%dT%H:%M:%SZ')}"
            f"?filter_entity_id={quote(entity_id)}&end_time={quote(end.isoformat())}&minimal_response&no_attributes"
        )
        body = await self._get(path)
        if not isinstance(body, list):
            raise self._failure("answered history with something that is not a list")
        return [row for row in (body[0] if body and isinstance(body[0], list) else []) if isinstance(row, dict)]

    async def _send(self, path: str, headers: dict[str, str]) -> httpx.Response:
        """``GET path``, every way it can fail said as a failure the model can narrate."""
        async with steward.http_client(timeout=TIMEOUT, verify=self._verify) as client:
            try:
                return await client.get(self.base_url + path, headers=headers)
            except httpx.TimeoutException:
                raise self._failure("did not answer in time") from None
            except httpx.ConnectError as error:
                reason = (
                    "its TLS certificate could not be verified" if "CERTIFICATE" in str(error) else "cannot be reached"
                )
                raise self._failure(reason) from None
            except httpx.InvalidURL:
                raise self._failure("is not a usable URL (fix base_url)") from None
            except httpx.HTTPError as error:
                raise self._failure(f"broke off the answer ({type(error).__name__})") from None

    async def _get(self, path: str, *, missing_ok: bool = False) -> Any:
        response = await self._send(path, {"Authorization": f"Bearer {self._token}", "Accept": "application/json"})
        if response.status_code == 401:
            raise steward.CapabilityError(
                steward.Code.UPSTREAM_UNAVAILABLE,
                f"Home Assistant at {self.base_url} rejected the access token (401): set a valid long-lived token",
            )
        if response.status_code == 404 and missing_ok:
            return None
        if response.status_code != 200:
            raise self._failure(f"answered HTTP {response.status_code}")
        try:
            return response.json()
        except ValueError:
            raise self._failure("answered with something that is not JSON") from None

    def _failure(self, what: str) -> steward.CapabilityError:
        return steward.CapabilityError(steward.Code.UPSTREAM_UNAVAILABLE, f"Home Assistant at {self.base_url} {what}")
