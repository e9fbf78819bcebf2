"""Upstreams on loopback shaped like the real ones: SearXNG, web sites, the Wayback Machine."""

import asyncio
from collections import Counter

import pdf_samples
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from steward.testing import ScriptedModel

RESULTS = [
    {
        "url": f"https://example.org/{n}",
        "title": f"Result <b>{n}</b>",
        "content": f"Snippet with <b>bold</b> &amp; entities, number {n}",
        "engine": "duckduckgo",
        "publishedDate": None,
    }
    for n in range(8)
] + [
    {"url": bad, "title": "bad", "content": ""}
    for bad in ("javascript:alert(1)", "http://[not-an-address]/", "https://example.net:port/", "https:///no-host")
]


ENGINES = [
    {"name": "google", "categories": ["general", "web"], "enabled": True},
    {"name": "bing", "categories": ["general", "web"], "enabled": True},
    {"name": "brave", "categories": ["general", "web"], "enabled": True},
    {"name": "duckduckgo", "categories": ["general", "web"], "enabled": True},
    {"name": "qwant", "categories": ["general", "web"], "enabled": False},
    {"name": "bing images", "categories": ["images"], "enabled": True},
]
BANGS = {"g", "ddg", "w"}
LANGUAGES = {"en", "de", "fr", "all", "auto"}
SHORTCUTS = {"images", "news", "general", "wikipedia", "google", "go", "bing", "bi"}


def searched_text(query: str) -> str:
    """What SearXNG searches for: its query parser takes words it recognises as commands out.

    Any word: ``<N`` a timeout, ``:xx`` a language, ``!!bang`` an external bang, ``!name`` an
    engine or category (searx/query.py, RawTextQuery).
    """
    kept = []
    for word in query.split():
        if word.startswith("<") and word[1:].isdigit():
            continue
        if word.startswith(":") and word[1:].lower() in LANGUAGES:
            continue
        if word.startswith("!!") and word[2:] in BANGS:
            continue
        if word.startswith("!") and not word.startswith("!!") and word[1:].lower() in SHORTCUTS:
            continue
        kept.append(word)
    return " ".join(kept)


class SearxShaped:
    """Answers like SearXNG does, in whichever way a test asks for.

    ``searched`` records what each query searched once SearXNG's query syntax took its commands out.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Answer normally again and forget every request (the fixtures call it before each test)."""
        self.mode = "ok"
        self.config_up = True
        self.requests: list[dict[str, str]] = []
        self.searched: list[str] = []

    def app(self) -> Starlette:
        async def search(request: Request) -> Response:
            self.requests.append(dict(request.query_params))
            self.searched.append(searched_text(request.query_params.get("q", "")))
            if self.mode == "ok":
                return JSONResponse(
                    {
                        "query": request.query_params["q"],
                        "number_of_results": 0,
                        "results": RESULTS,
                        "unresponsive_engines": [],
                    }
                )
            if self.mode == "duplicates":
                again = {**RESULTS[0], "url": "https://www.example.org/0/?utm_source=searx", "engine": "bing"}
                return JSONResponse({"results": [*RESULTS[:2], again], "unresponsive_engines": []})
            if self.mode == "partial":
                return JSONResponse({"results": RESULTS[:2], "unresponsive_engines": [["google", "timeout"]]})
            if self.mode in ("all-failed", "quiet"):
                failed = [["google", "timeout"], ["bing", "CAPTCHA"], ["brave", "too many requests"]]
                if self.mode == "all-failed":
                    failed.append(["duckduckgo", "Suspended: CAPTCHA"])
                return JSONResponse({"results": [], "unresponsive_engines": failed})
            if self.mode == "nothing":
                return JSONResponse({"results": [], "unresponsive_engines": []})
            if self.mode == "no-json":
                return PlainTextResponse("Forbidden", status_code=403)
            if self.mode == "limited":
                return PlainTextResponse("Too Many Requests", status_code=429)
            if self.mode == "bad-request":
                return JSONResponse({"error": "search error: unknown time_range"}, status_code=400)
            if self.mode == "garbage":
                return PlainTextResponse("<html>oops</html>")
            return PlainTextResponse("boom", status_code=500)

        async def healthz(request: Request) -> Response:
            return PlainTextResponse("OK")

        async def config(request: Request) -> Response:
            if not self.config_up:
                return PlainTextResponse("boom", status_code=500)
            return JSONResponse({"categories": ["general", "images"], "engines": ENGINES})

        return Starlette(routes=[Route("/search", search), Route("/healthz", healthz), Route("/config", config)])


ARTICLE = (
    "<html lang='en'><head><title>Kettles</title><meta name='description' content='All about kettles'></head>"
    "<body><nav><a href='/'>Home</a> <a href='/shop'>Shop</a></nav><article><h1>Kettles</h1>"
    + "".join(
        f"<p>Paragraph {n}: a kettle boils water, and a good one does it quietly, quickly and safely. "
        f"<a href='/kettles/{n}'>More on kettle {n}</a></p>"
        for n in range(6)
    )
    + "</article><div class='sidebar'>Descaling tips for every kettle owner.</div>"
    "<footer>© Kettle World</footer></body></html>"
)
ARCHIVED = (
    "<html><head><title>Archived kettles</title></head><body><article>"
    + ("<p>This archived page about kettles was saved long ago, and it still reads well enough.</p>" * 5)
    + "</article></body></html>"
)


# a page nested past extraction's budget: refused before it is parsed (parsing it takes lexbor 16 s)
NESTED = "<html><body>" + "<div>" * 100_000 + "<p>deep</p>" + "</div>" * 100_000 + "</body></html>"
# a page inside the budget that still costs the extractor seconds of CPU (240,000 elements)
HEAVY = "<html><body>" + "<p><span>a</span> <span>b</span> <span>c</span></p>" * 60_000 + "</body></html>"


class Site:
    """A web site with the pages the fetch service must cope with, and a Wayback-shaped archive.

    ``hits`` counts requests by path, so a test can tell a cache hit from a fetch.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Answer normally again and forget every request (the fixtures call it before each test)."""
        self.hits: Counter[str] = Counter()
        self.slow_seconds = 2.0
        self.archive_has_copy = True

    def app(self) -> Starlette:
        def count(request: Request) -> None:
            self.hits[request.url.path] += 1

        async def article(request: Request) -> Response:
            count(request)
            return HTMLResponse(ARTICLE, headers={"Cache-Control": "max-age=600"})

        async def fresh(request: Request) -> Response:
            count(request)
            return HTMLResponse(ARTICLE, headers={"Cache-Control": "no-store"})

        async def data(request: Request) -> Response:
            count(request)
            return JSONResponse({"kettles": [{"name": "quiet", "watts": 2200}, {"name": "fast", "watts": 3000}]})

        async def redirects(request: Request) -> Response:
            count(request)
            left = int(request.path_params["left"])
            return RedirectResponse("/article" if left == 0 else f"/r/{left - 1}", status_code=302)

        async def slow(request: Request) -> Response:
            count(request)
            await asyncio.sleep(self.slow_seconds)
            return HTMLResponse(ARTICLE)

        async def status(request: Request) -> Response:
            count(request)
            return PlainTextResponse("no", status_code=int(request.path_params["code"]))

        async def available(request: Request) -> Response:
            count(request)
            url = request.query_params.get("url", "")
            if not self.archive_has_copy:
                return JSONResponse({"url": url, "archived_snapshots": {}})
            snapshot = f"{request.base_url}web/20240102030405/{url}"
            closest = {"status": "200", "available": True, "url": snapshot, "timestamp": "20240102030405"}
            return JSONResponse({"url": url, "archived_snapshots": {"closest": closest}})

        async def archive_today(request: Request) -> Response:
            count(request)
            return HTMLResponse(ARCHIVED, headers={"Memento-Datetime": "Sun, 05 May 2024 06:07:08 GMT"})

        async def snapshot(request: Request) -> Response:
            count(request)
            if not request.path_params["stamp"].endswith("id_"):
                return HTMLResponse("<html><body>WAYBACK TOOLBAR " + ARCHIVED + "</body></html>")
            return HTMLResponse(ARCHIVED)

        return Starlette(
            routes=[
                Route("/article", article),
                Route("/fresh", fresh),
                Route("/data.json", data),
                Route("/notes.txt", lambda request: PlainTextResponse("plain notes, as they are")),
                Route("/image", lambda request: Response(b"\x89PNG\r\n\x1a\n", media_type="image/png")),
                Route("/manual.pdf", lambda request: Response(pdf_samples.manual(), media_type="application/pdf")),
                Route(
                    "/download", lambda request: Response(pdf_samples.manual(), media_type="application/octet-stream")
                ),
                Route("/bomb.pdf", lambda request: Response(pdf_samples.flate_bomb(), media_type="application/pdf")),
                Route("/scanned.pdf", lambda request: Response(pdf_samples.scanned(), media_type="application/pdf")),
                Route("/fake.pdf", lambda request: Response(ARTICLE.encode(), media_type="application/pdf")),
                Route("/r/{left:int}", redirects),
                Route("/to-private", lambda request: RedirectResponse("http://10.0.0.5/admin", status_code=302)),
                Route("/slow", slow),
                Route("/nested", lambda request: HTMLResponse(NESTED)),
                Route("/heavy", lambda request: HTMLResponse(HEAVY)),
                Route("/status/{code:int}", status),
                Route("/wayback/available", available),
                Route("/web/{stamp}/{url:path}", snapshot),
                Route("/newest/{url:path}", archive_today),
            ]
        )


BRAVE_KEY = "BSA-test-subscription-key-7f3a"


class BraveShaped:
    """Brave's LLM Context API as documented: ``GET /res/v1/llm/context``, key in X-Subscription-Token.

    It finds example.org/1 again (as ``www.``, with a trailing slash and tracking parameters) beside
    pages of its own, so merging has a duplicate to find. ``mode`` "down" answers 500.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Answer normally again and forget every request (the fixtures call it before each test)."""
        self.mode = "ok"
        self.requests: list[dict[str, str]] = []
        self.keys: list[str | None] = []

    def app(self) -> Starlette:
        async def context(request: Request) -> Response:
            self.requests.append(dict(request.query_params))
            self.keys.append(request.headers.get("x-subscription-token"))
            if request.headers.get("x-subscription-token") != BRAVE_KEY:
                return JSONResponse({"type": "ErrorResponse", "error": {"code": "SUBSCRIPTION_TOKEN_INVALID"}}, 401)
            if self.mode == "down":
                return PlainTextResponse("boom", status_code=500)
            generic = [
                {
                    "url": "https://www.example.org/1/?utm_source=brave&gclid=x",
                    "title": "Result 1 at Brave",
                    "snippets": ["Brave's passage from page one."],
                },
                {
                    "url": "https://brave.example/kettles",
                    "title": "Kettles, <b>grounded</b>",
                    "snippets": ["A kettle boils water.", {"table": [["watts", 2200]]}],
                },
            ]
            return JSONResponse({"grounding": {"generic": generic, "map": []}, "sources": {}})

        return Starlette(routes=[Route("/res/v1/llm/context", context)])


class EmbeddingsShaped:
    """An OpenAI-compatible ``POST /v1/embeddings``: the scripted model's word vectors when ``mode`` is
    "ok", else what a broken server sends: "down" (500), "slow", "short" (a vector missing),
    "ragged" (dimensions that differ), "nan" (a bare NaN, which is not JSON), "huge" (a 40 MB answer),
    "misnumbered" (indexes that are not 0…n-1)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.mode = "ok"
        self.inputs: list[list[str]] = []
        self.model = ScriptedModel(rules=())

    def app(self) -> Starlette:
        async def embeddings(request: Request) -> Response:
            texts = (await request.json())["input"]
            self.inputs.append(texts)
            vectors = [self.model.embed(text) for text in texts]
            data = [
                {"object": "embedding", "index": index, "embedding": vector} for index, vector in enumerate(vectors)
            ]
            if self.mode == "down":
                return PlainTextResponse("model not loaded", status_code=500)
            if self.mode == "slow":
                await asyncio.sleep(3)
            if self.mode == "short":
                data = data[:-1]
            if self.mode == "ragged":
                data[1]["embedding"] = data[1]["embedding"][:10]
            if self.mode == "misnumbered":
                data[0]["index"] = 7
            if self.mode == "nan":
                return Response(b'{"data": [{"index": 0, "embedding": [NaN, 1.0]}]}', media_type="application/json")
            if self.mode == "huge":
                return Response(b'{"data": [' + b" " * (40 * 1024 * 1024) + b"]}", media_type="application/json")
            return JSONResponse({"object": "list", "data": data})

        return Starlette(routes=[Route("/v1/embeddings", embeddings, methods=["POST"])])


HONCHO_KEY = "honcho-test-key-3c9e"


class HonchoShaped:
    """Honcho's routes that memory context uses, shaped as its code has them (plastic-labs/honcho,
    src/routers/workspaces.py and src/schemas/api.py): ``POST /v3/workspaces/{workspace_id}/search``
    with ``{query, filters?, limit: 1-100 (10)}`` answering a list of messages ``{id, content,
    peer_id, session_id, metadata, created_at, workspace_id, token_count}``, a bearer key, 422 for
    a body it refuses, and ``GET /health``. Messages match when they share a word with the query.

    ``mode``: "ok", "down" (500), "slow", "huge" (a 10 MB answer), "garbage" (not a list).
    ``searches`` records (workspace, body) of every search, so a test sees what was asked.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.mode = "ok"
        self.searches: list[tuple[str, dict]] = []
        self.writes = 0
        self.messages: dict[str, list[dict]] = {
            "house-a": [
                _honcho_message("house-a", "alice", "We descaled the kettle with white vinegar last spring.", 1),
                _honcho_message("house-a", "bob", "The kettle manual says to fill it with water first.", 2),
                _honcho_message("house-a", "alice", "Bought new running shoes.", 3),
            ],
            "house-b": [_honcho_message("house-b", "carol", "Our kettle is the Acme one, descaling monthly.", 4)],
        }

    def app(self) -> Starlette:
        async def search(request: Request) -> Response:
            if request.headers.get("authorization") != f"Bearer {HONCHO_KEY}":
                return JSONResponse({"detail": "Invalid or missing API key"}, status_code=401)
            workspace = request.path_params["workspace_id"]
            body = await request.json()
            self.searches.append((workspace, body))
            limit = body.get("limit", 10)
            if not isinstance(body.get("query"), str) or not isinstance(limit, int) or not 1 <= limit <= 100:
                return JSONResponse({"detail": [{"msg": "validation error"}]}, status_code=422)
            if self.mode == "down":
                return PlainTextResponse("Internal Server Error", status_code=500)
            if self.mode == "slow":
                await asyncio.sleep(5)
            if self.mode == "huge":
                return Response(b"[" + b" " * (10 * 1024 * 1024) + b"]", media_type="application/json")
            if self.mode == "garbage":
                return JSONResponse({"items": []})
            words = set(body["query"].lower().split())
            found = [
                message
                for message in self.messages.get(workspace, [])
                if words & set(message["content"].lower().replace(".", "").split())
            ]
            return JSONResponse(found[:limit])

        async def write(request: Request) -> Response:
            self.writes += 1
            return JSONResponse({}, status_code=201)

        async def health(request: Request) -> Response:
            if self.mode == "down":
                return PlainTextResponse("Internal Server Error", status_code=500)
            return JSONResponse({"status": "ok"})

        return Starlette(
            routes=[
                Route("/v3/workspaces/{workspace_id}/search", search, methods=["POST"]),
                Route("/v3/workspaces/{workspace_id}/{rest:path}", write, methods=["POST", "PUT"]),
                Route("/health", health),
            ]
        )


def _honcho_message(workspace: str, peer: str, content: str, number: int) -> dict:
    return {
        "id": f"msg{number}",
        "content": content,
        "peer_id": peer,
        "session_id": "kitchen",
        "metadata": {},
        "created_at": f"2026-0{number}-01T09:00:00Z",
        "workspace_id": workspace,
        "token_count": len(content) // 4,
    }
