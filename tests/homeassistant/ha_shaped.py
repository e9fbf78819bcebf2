"""A Home Assistant-shaped server: what the real one answers, verified against 2024.3 (see the real-HA tests)."""

import datetime
from urllib.parse import unquote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

TOKEN = "ha-token-0123456789abcdefSECRET"


def state(entity_id, value, name, unit=None, changed="2026-11-30T09:00:00+00:00"):
    attributes = {"friendly_name": name, "icon": "mdi:x", "very_long_blob": "x" * 5000}
    if unit:
        attributes["unit_of_measurement"] = unit
    return {
        "entity_id": entity_id,
        "state": value,
        "attributes": attributes,
        "last_changed": changed,
        "last_updated": changed,
        "context": {"id": "c"},
    }


STATES = [
    state("sensor.living_room_temperature", "21.5", "Living room temperature", "°C"),
    state("binary_sensor.front_door", "off", "Front door"),
    state("light.kitchen", "on", "Kitchen light " + "very " * 60 + "long"),
    state("zone.home", "0", "Home"),
    state("person.ada", "home", "Ada"),
]


class HomeAssistantShaped:
    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Answer normally again and forget every request (the fixtures call it before each test)."""
        self.requests: list[tuple[str, str, str]] = []
        self.authorizations: list[str | None] = []
        self.history_rows = 3
        self.synthesized_first = True

    def app(self) -> Starlette:
        def authorised(request: Request) -> bool:
            self.authorizations.append(request.headers.get("authorization"))
            return request.headers.get("authorization") == f"Bearer {TOKEN}"

        async def api(request: Request) -> Response:
            self.requests.append((request.method, request.url.path, request.url.query))
            if not authorised(request):
                return PlainTextResponse("401: Unauthorized", status_code=401)
            return JSONResponse({"message": "API running."})

        async def states(request: Request) -> Response:
            self.requests.append((request.method, request.url.path, request.url.query))
            if not authorised(request):
                return PlainTextResponse("401: Unauthorized", status_code=401)
            return JSONResponse(STATES)

        async def one_state(request: Request) -> Response:
            self.requests.append((request.method, request.url.path, request.url.query))
            if not authorised(request):
                return PlainTextResponse("401: Unauthorized", status_code=401)
            found = [s for s in STATES if s["entity_id"] == request.path_params["entity_id"]]
            return JSONResponse(found[0]) if found else JSONResponse({"message": "Entity not found."}, status_code=404)

        async def history(request: Request) -> Response:
            self.requests.append((request.method, request.url.path, request.url.query))
            if not authorised(request):
                return PlainTextResponse("401: Unauthorized", status_code=401)
            raw_end = (
                request.url.query.split("end_time=", 1)[1].split("&", 1)[0]
                if "end_time=" in request.url.query
                else None
            )
            if raw_end is None or "+" in raw_end:
                return JSONResponse({"message": "Invalid end_time"}, status_code=400)
            start = datetime.datetime.fromisoformat(request.path_params["start"].replace("Z", "+00:00"))
            entity = request.query_params["filter_entity_id"]
            if entity not in {s["entity_id"] for s in STATES}:
                return JSONResponse([])
            end = datetime.datetime.fromisoformat(unquote(raw_end))
            first_time = start if self.synthesized_first else start + datetime.timedelta(seconds=30)
            rows = [
                {
                    "entity_id": entity,
                    "state": "19.0",
                    "attributes": {},
                    "last_changed": first_time.isoformat(),
                    "last_updated": first_time.isoformat(),
                    "context": {},
                }
            ]
            step = (end - start) / (self.history_rows + 1)
            rows += [
                {"state": f"{20 + n * 0.1:.1f}", "last_changed": (start + step * (n + 1)).isoformat()}
                for n in range(self.history_rows)
            ]
            return JSONResponse([rows])

        return Starlette(
            routes=[
                Route("/api/", api),
                Route("/api/states", states),
                Route("/api/states/{entity_id}", one_state),
                Route("/api/history/period/{start}", history),
            ]
        )
