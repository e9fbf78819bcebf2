"""The household console's page: static files shipped in the package, served with a strict CSP.

The page is a client of the public HTTP API and nothing else (docs/console.md): it holds the key
for its tab only and sends it as a bearer header, so no cookie carries authority and there is
no cross-site request to forge. The policy allows scripts, styles and requests from Steward's
own origin only: no inline script, no ``eval``, no third-party origin, no framing.
"""

from __future__ import annotations

from importlib.resources import files

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from steward.web import host_of, json_response, require_scope

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
ASSETS = {
    "index.html": "text/html; charset=utf-8",
    "console.css": "text/css; charset=utf-8",
    "console.js": "text/javascript; charset=utf-8",
    "strings.js": "text/javascript; charset=utf-8",
}
_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
    "Cross-Origin-Opener-Policy": "same-origin",
}


def _asset(name: str) -> Response:
    body = files("steward._surfaces.console").joinpath(name).read_bytes()
    return Response(body, media_type=ASSETS[name], headers=_HEADERS)


def _not_found() -> Response:
    return Response("not found", status_code=404, media_type="text/plain", headers=_HEADERS)


async def console_page(request: Request) -> Response:
    """The household console (no key needed to load it; every API it calls needs one)."""
    return _asset("index.html")


async def console_asset(request: Request) -> Response:
    """The console's stylesheet and script."""
    name = request.path_params["asset"]
    if name not in ASSETS or name == "index.html":
        return _not_found()
    return _asset(name)


async def panel_script(request: Request) -> Response:
    """A plugin's console panel script (``register_console_panels``), under the console's policy."""
    panel = host_of(request).console_panels.get(request.path_params["name"])
    if panel is None:
        return _not_found()
    return Response(panel.script.read_bytes(), media_type=ASSETS["console.js"], headers=_HEADERS)


@require_scope()
async def list_panels(request: Request) -> Response:
    """The plugins' console panels: name, title, the scope a key needs, and the script's address."""
    panels = host_of(request).console_panels.values()
    described = [
        {"name": panel.name, "title": panel.title, "scope": panel.scope, "script": f"/console/panels/{panel.name}.js"}
        for panel in panels
    ]
    return json_response({"panels": described})


def console_routes() -> list[BaseRoute]:
    return [
        Route("/console", console_page, methods=["GET"], include_in_schema=False),
        Route("/console/panels/{name}.js", panel_script, methods=["GET"], include_in_schema=False),
        Route("/console/{asset}", console_asset, methods=["GET"], include_in_schema=False),
        Route("/api/v1/console/panels", list_panels, methods=["GET"]),
    ]
