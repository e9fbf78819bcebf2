"""The household console in Debian's Chromium: every scenario of SPEC §15 a person goes through.

A served host with the sample, websearch and Home Assistant plugins; a page server on loopback
that counts how often it was fetched; the scripted model for the conversation pane. Each test
also checks that the page broke no Content-Security-Policy rule and opened no dialog.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
import steward_homeassistant
import steward_websearch
from accessibility import contrast, violations
from ha_shaped import TOKEN, HomeAssistantShaped
from playwright.sync_api import Page, expect
from sample_plugin import SamplePlugin
from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Route
from steward_processes import STEWARD, free_port, operator_environment, start_serve

import steward
from steward._surfaces.prompts import touches
from steward.testing import Rule, ScriptedModel, ServedHost, serve_app, serve_host

pytestmark = pytest.mark.requires("chromium")
CONSOLE = Path(steward.__file__).parent / "_surfaces" / "console"
README_SCREENSHOT = Path(__file__).parents[2] / "docs" / "images" / "console-desktop.png"


def console_digest() -> str:
    """What the console's page is made of (its HTML, script and stylesheet), as one SHA-256."""
    digest = hashlib.sha256()
    for name in ("index.html", "console.js", "console.css"):
        digest.update((CONSOLE / name).read_bytes())
    return digest.hexdigest()


def publish_readme_screenshots(taken: Path) -> None:
    """With STEWARD_UPDATE_SCREENSHOTS=1 (``make screenshots``), the first run's pictures become
    the README's and docs/console.md's, recorded with the digest of the console they show."""
    if os.environ.get("STEWARD_UPDATE_SCREENSHOTS") != "1":
        return
    for width in ("desktop", "phone"):
        shutil.copyfile(taken / f"first-run-{width}.png", README_SCREENSHOT.with_name(f"console-{width}.png"))
    README_SCREENSHOT.with_name(README_SCREENSHOT.name + ".source").write_text(
        f"{console_digest()}  the console (index.html, console.js, console.css) these pictures show\n"
    )


PHONE = {"width": 390, "height": 844}


@dataclass
class Site:
    hits: list[str] = field(default_factory=list)

    def app(self) -> Starlette:
        async def page(request):
            self.hits.append(request.url.path)
            return HTMLResponse(
                "<html><head><title>Kettles</title></head><body><p>Descale with vinegar.</p></body></html>"
            )

        return Starlette(routes=[Route("/{path:path}", page)])


@dataclass
class World:
    served: ServedHost
    site: Site
    site_url: str
    ha_url: str
    admin: str
    agent: str

    def invoke(self, name: str, arguments: dict) -> httpx.Response:
        return httpx.post(
            f"{self.served.base_url}/api/v1/capabilities/{name}/invoke",
            json={"arguments": arguments},
            headers={"Authorization": f"Bearer {self.agent}"},
        )

    def runs(self, capability: str) -> list[str]:
        return [
            r["status"] for r in self.served.audit_records() if r["capability"] == capability and r["status"] == "ok"
        ]


def build_world(tmp_path: Path, **confirmation) -> Iterator[World]:
    site, upstream = Site(), HomeAssistantShaped()
    model = ScriptedModel(rules=[Rule(r"\bfetch (\S+)", calls=[("web.fetch", {"url": "{1}"})])])
    with serve_app(site.app()) as site_url, serve_app(upstream.app()) as ha_url, serve_app(model.app()) as model_url:
        port = int(site_url.rsplit(":", 1)[1])
        config = {
            "model": {"base_url": model_url + "/v1"},
            "confirmation": confirmation,
            "plugins": {"websearch": {"allowed_networks": ["127.0.0.0/8"], "allowed_ports": [port]}},
        }
        plugins = [
            steward.Plugin("sample", SamplePlugin()),
            steward.Plugin("websearch", steward_websearch),
            steward.Plugin("homeassistant", steward_homeassistant),
        ]
        with serve_host(plugins, data_dir=tmp_path / "data", config=config) as served:
            served.set_policy("web_search_enabled", True)
            yield World(served, site, site_url, ha_url, served.key(["admin"]), served.key(["invoke"]))


@pytest.fixture
def world(tmp_path) -> Iterator[World]:
    yield from build_world(tmp_path)


def sign_in(page: Page, world: World, key: str | None = None) -> None:
    page.goto(world.served.base_url + "/console")
    page.get_by_label("Key").fill(key or world.admin)
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("#signed-in-as")).to_be_visible()


def test_sign_in_and_the_main_screens_at_desktop_and_phone_widths(page, world, screenshots):
    world.invoke("web.fetch", {"url": world.site_url + "/kettles"})
    sign_in(page, world)
    expect(page.locator("#cards .card")).to_have_count(1)
    expect(page.locator("#flags li")).to_have_count(4)
    expect(page.locator("#capability-rows tr")).not_to_have_count(0)
    expect(page.locator("#home-assistant")).to_be_visible()
    page.screenshot(path=screenshots / "console-desktop.png", full_page=True)
    page.set_viewport_size(PHONE)
    page.screenshot(path=screenshots / "console-phone.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert (screenshots / "console-phone.png").stat().st_size > 10_000


@pytest.mark.requires("axe-core")
def test_every_view_has_no_accessibility_violations_at_desktop_and_phone_widths(page, world):
    page.goto(world.served.base_url + "/console")
    views = {"sign-in": violations(page)}
    world.invoke("web.fetch", {"url": world.site_url + "/kettles"})
    sign_in(page, world)
    expect(page.locator("#cards .card")).to_have_count(1)
    page.get_by_label("Message").fill(f"please fetch {world.site_url}/recipes")
    page.get_by_role("button", name="Send").click()
    expect(page.locator("#messages .card")).to_have_count(1)
    expect(page.locator("#audit-rows tr")).not_to_have_count(0)
    views["desktop"] = violations(page)
    page.set_viewport_size(PHONE)
    views["phone"] = violations(page)
    page.locator("#messages .card").get_by_role("button", name="Approve").click()
    expect(page.locator("#messages .card .countdown.done")).to_have_count(1)
    views["phone, answered"] = violations(page)
    assert views == {view: [] for view in views}


def test_focus_rings_stand_out_and_red_means_refused_only(page, world):
    world.invoke("web.fetch", {"url": world.site_url + "/kettles"})
    sign_in(page, world)
    approve = page.locator("#cards .card").get_by_role("button", name="Approve")
    expect(approve).to_be_visible()
    while not page.evaluate("document.activeElement.classList.contains('approve')"):
        page.keyboard.press("Tab")
    ring = page.evaluate(
        "(({outlineColor, outlineWidth, outlineStyle}) => ({outlineColor, outlineWidth, outlineStyle}))(getComputedStyle(document.activeElement))"
    )
    assert ring["outlineStyle"] == "solid"
    assert float(ring["outlineWidth"].removesuffix("px")) >= 2
    for background in ("rgb(255, 255, 255)", "rgb(251, 251, 250)"):  # a card, the page
        assert contrast(ring["outlineColor"], background) >= 3, ring
    colour = "(selector) => getComputedStyle(document.querySelector(selector)).color"
    danger = page.evaluate(colour, "button.deny")
    assert page.evaluate(colour, "#cards .countdown") != danger  # a live countdown is not a refusal


BROKEN_WORDS = """() => {
  const broken = [];
  for (const cell of document.querySelectorAll("td, .card")) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const word of node.data.matchAll(/[\\w-]+/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const lines = new Set([...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => rect.top));
        if (lines.size > 1) broken.push(word[0]);
      }
    }
  }
  return broken;
}"""


def test_on_a_phone_every_column_is_there_no_word_is_broken_and_times_are_relative(page, world):
    world.invoke("web.fetch", {"url": world.site_url + "/kettles"})
    world.invoke("web.fetch", {"url": world.site_url + "/kettles"})
    sign_in(page, world)
    page.locator("#cards .card").first.get_by_role("button", name="Deny").click()
    expect(page.locator("#audit-rows tr")).not_to_have_count(0)
    page.set_viewport_size(PHONE)
    expect(page.locator("#cards .card")).to_have_count(1)
    for description in page.locator("#flags .description").all():  # under the switch's name, page-wide
        assert description.bounding_box()["width"] > PHONE["width"] * 0.6
    cells = page.locator("#audit-rows td, #capability-rows td")
    assert cells.count() > 5
    for index in range(cells.count()):
        expect(cells.nth(index)).to_be_visible()
    assert page.evaluate(BROKEN_WORDS) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert "From: " in page.evaluate(
        "getComputedStyle(document.querySelector('#audit-rows td:nth-child(3)'), '::before').content"
    )
    moment = page.locator("#audit-rows time").first
    expect(moment).to_have_text(re.compile(r"^(now|\d+ sec\. ago)$"))
    full = moment.get_attribute("title")
    assert re.search(r"\d{4}.*\d{1,2}:\d{2}:\d{2}", full), full
    moment.focus()
    assert full in page.evaluate("getComputedStyle(document.activeElement, '::after').content")


def test_the_page_speaks_the_browsers_language_where_it_has_a_catalogue_and_english_elsewhere(browser, world):
    for locale in ("en-GB", "fr-FR"):  # English has a catalogue; French has none yet
        context = browser.new_context(locale=locale)
        page = context.new_page()
        sign_in(page, world)
        assert page.evaluate("document.documentElement.lang") == "en"
        expect(page.locator("#confirmations-title")).to_have_text("Waiting for your yes")
        expect(page.locator("#capabilities th").first).to_have_text("Capability")
        context.close()


def test_a_wrong_key_and_a_key_without_a_scope_are_told_so(page, world):
    page.goto(world.served.base_url + "/console")
    page.get_by_label("Key").fill("stw_not-a-key")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_have_text("Wrong key: this Steward does not know it.")
    sign_in(page, world, world.served.key(["conversation"]))
    expect(page.locator("#confirmations .scope-missing")).to_have_text(
        'This key lacks the scope "settings", which this part needs.'
    )
    expect(page.locator("#cards")).to_be_hidden()
    expect(page.locator("#message-form")).to_be_visible()


def test_a_fetch_asked_by_another_client_is_a_card_within_2_s_and_runs_once_when_approved(page, world):
    sign_in(page, world)
    url = world.site_url + "/kettles"
    asked = world.invoke("web.fetch", {"url": url})
    assert asked.status_code == 202
    card = page.locator("#cards .card")
    expect(card).to_have_count(1, timeout=2000)
    expect(card.locator(".action")).to_have_text(f"Read the page {url}")  # what will happen, in words
    expect(card.locator(".arguments")).to_be_hidden()  # exactly what would run: one click away
    card.get_by_text("Exactly what would run").click()
    expect(card.locator(".arguments")).to_contain_text(url)
    expect(card.locator(".runs-as")).to_have_text("web.fetch, version 1, asked on the invoke surface")
    classification = steward.Classification(side_effect="read_only", network="external", confirmation="required")
    expect(card.locator(".touches")).to_have_text(touches(classification))
    expect(card.locator(".countdown")).to_contain_text("Expires in")
    card.get_by_role("button", name="Approve").click()
    expect(page.locator("#status")).to_have_text(f"Read the page {url}: done.")
    expect(card).to_have_count(0)
    assert world.site.hits == ["/kettles"]
    token = asked.json()["pending_confirmation"]["token"]

    def answer_with_the_token() -> httpx.Response:
        return httpx.post(
            f"{world.served.base_url}/api/v1/capabilities/web.fetch/invoke",
            json={"confirmation": {"token": token, "approve": True}},
            headers={"Authorization": f"Bearer {world.agent}"},
        )

    collected = answer_with_the_token()
    assert collected.json()["result"]["final_url"] == url, "the asking client collects what the console ran"
    assert answer_with_the_token().json()["code"] == "INVALID_CONFIRMATION"
    assert world.site.hits == ["/kettles"]


def test_a_denied_card_never_runs(page, world):
    sign_in(page, world)
    world.invoke("web.fetch", {"url": world.site_url + "/never"})
    page.locator("#cards .card").get_by_role("button", name="Deny").click()
    expect(page.locator("#status")).to_have_text(f"Read the page {world.site_url}/never: declined; it did not run.")
    assert world.site.hits == []


def test_an_answer_on_one_device_removes_the_card_on_another_within_2_s(browser, world):
    pages = [browser.new_page(), browser.new_page()]
    for each in pages:
        sign_in(each, world)
    world.invoke("web.fetch", {"url": world.site_url + "/once"})
    for each in pages:
        expect(each.locator("#cards .card")).to_have_count(1, timeout=2000)
    pages[0].locator("#cards .card").get_by_role("button", name="Approve").click()
    expect(pages[1].locator("#cards .card")).to_have_count(0, timeout=2000)
    gone = f'"Read the page {world.site_url}/once" was answered on another device, or expired.'
    expect(pages[1].locator("#status")).to_have_text(gone)  # the other device says what happened
    assert world.site.hits == ["/once"]
    for each in pages:
        each.close()


# the browser's own Notification, watched: each one the page raises is recorded, then shown as usual
RECORD_NOTIFICATIONS = """
window.__notifications = [];
window.Notification = class extends window.Notification {
  constructor(title, options) {
    super(title, options);
    window.__notifications.push({ title, body: options.body, tag: options.tag });
  }
};
"""


def test_a_new_question_raises_a_notification_and_the_tab_title_counts_what_waits(page, world):
    world.invoke("web.fetch", {"url": world.site_url + "/before"})
    page.context.grant_permissions(["notifications"], origin=world.served.base_url)
    page.add_init_script(RECORD_NOTIFICATIONS)
    sign_in(page, world)
    expect(page.locator("#cards .card")).to_have_count(1)
    expect(page).to_have_title("(1) Steward")
    expect(page.get_by_role("button", name="Notify me of new questions")).to_be_hidden()  # allowed already
    assert page.evaluate("window.__notifications") == []  # on screen when the page opened: no news

    world.invoke("web.fetch", {"url": world.site_url + "/after"})
    expect(page).to_have_title("(2) Steward", timeout=2000)
    (notice,) = page.evaluate("window.__notifications")
    assert notice["title"] == "Steward: waiting for your yes"
    after = re.escape(f"Read the page {world.site_url}/after")
    assert re.fullmatch(rf"{after} \(for test-\d+\)\. It reads only and leaves this device\.", notice["body"])
    for _ in range(2):
        page.locator("#cards .card").first.get_by_role("button", name="Deny").click()
    expect(page).to_have_title("Steward", timeout=2000)
    assert len(page.evaluate("window.__notifications")) == 1


def test_notifications_are_offered_and_asked_for_by_a_click(page, world):
    sign_in(page, world)
    offer = page.get_by_role("button", name="Notify me of new questions")
    expect(offer).to_be_visible()
    page.context.grant_permissions(["notifications"], origin=world.served.base_url)
    offer.click()
    expect(page.locator("#status")).to_have_text("New questions will raise a notification while this page is open.")
    expect(offer).to_be_hidden()


def test_a_card_expires_on_screen_and_nothing_runs(page, tmp_path):
    for world in build_world(tmp_path, lifetime_seconds=3):
        sign_in(page, world)
        world.invoke("web.fetch", {"url": world.site_url + "/late"})
        card = page.locator("#cards .card")
        expect(card).to_have_count(1, timeout=2000)
        expect(card).to_have_count(0, timeout=6000)
        assert world.site.hits == []


def test_a_conversation_pauses_and_resumes_in_the_pane(page, world):
    sign_in(page, world)
    page.get_by_label("Message").fill(f"please fetch {world.site_url}/kettles")
    page.get_by_role("button", name="Send").click()
    inline = page.locator("#messages .card")
    expect(inline).to_have_count(1)
    expect(inline.locator(".arguments")).to_contain_text(f"{world.site_url}/kettles")
    with page.expect_response(lambda response: response.url.endswith("/api/v1/confirmations")):
        pass  # the list was fetched again after the inline card was shown
    expect(page.locator("#cards .card")).to_have_count(0)  # its own question shows once, inline
    inline.get_by_role("button", name="Approve").click()
    expect(inline.locator(".countdown")).to_have_text("Approved.")
    expect(inline.locator(".countdown")).to_have_css("color", "rgb(30, 107, 53)")
    expect(page.locator("#messages li.assistant").last).to_contain_text("Descale with vinegar")
    expect(page.locator("#cards .card")).to_have_count(0, timeout=2000)
    assert world.site.hits == ["/kettles"]


def test_a_switch_turned_off_refuses_the_pending_approval(page, world):
    sign_in(page, world)
    world.invoke("web.fetch", {"url": world.site_url + "/off"})
    expect(page.locator("#cards .card")).to_have_count(1, timeout=2000)
    page.get_by_label("Web search and pages").uncheck()  # the switch's label, its flag's name on hover
    expect(page.locator("#status")).to_have_text("Web search and pages is now off.")
    page.locator("#cards .card").get_by_role("button", name="Approve").click()
    refused = f"Read the page {world.site_url}/off: The household switched it off (its policy flag is off)."
    expect(page.locator("#status")).to_have_text(refused)
    assert world.site.hits == []


def test_home_assistant_settings_wait_for_the_saved_ones_before_they_can_be_typed(page, world):
    held = []

    def hold_the_first_load(route):
        if route.request.method == "GET" and not held:
            held.append(route)
        else:
            route.continue_()

    page.route("**/api/v1/conversation/home-assistant", hold_the_first_load)
    sign_in(page, world)
    url = page.get_by_label("Home Assistant URL")
    save = page.get_by_role("button", name="Save Home Assistant settings")
    expect(url).to_be_disabled()
    expect(page.get_by_label("Access token")).to_be_disabled()
    expect(save).to_be_disabled()
    assert len(held) == 1, "what was typed before the saved settings arrive would be overwritten by them"
    held[0].continue_()
    expect(url).to_be_enabled()
    url.fill(world.ha_url)
    page.get_by_label("Access token").fill(TOKEN)
    save.click()
    expect(page.locator("#status")).to_have_text("Home Assistant settings saved.")
    page.get_by_role("button", name="Test connection").click()
    expect(page.locator("#ha-connection")).to_contain_text("Connected")


def test_home_assistant_settings_save_and_the_token_never_comes_back(page, world):
    sign_in(page, world)
    page.get_by_label("Home Assistant URL").fill(world.ha_url)
    page.get_by_label("Access token").fill(TOKEN)
    page.get_by_role("button", name="Save Home Assistant settings").click()
    expect(page.locator("#status")).to_have_text("Home Assistant settings saved.")
    expect(page.locator("#ha-token-state")).to_contain_text("A token is set")
    page.get_by_role("button", name="Test connection").click()
    expect(page.locator("#ha-connection")).to_contain_text("Connected")
    page.get_by_label("Find entities").fill("temperature")
    boxes = page.locator("#ha-entities input")
    expect(boxes).not_to_have_count(0)
    boxes.first.check()
    chosen = boxes.first.get_attribute("value")
    page.get_by_role("button", name="Save allowlist").click()
    expect(page.locator("#status")).to_contain_text("Allowlist saved: 1 entities.")
    assert chosen in world.served.client().get("/api/v1/conversation/home-assistant").json()["allowlisted_entities"]
    assert TOKEN not in page.content()
    assert page.get_by_label("Access token").input_value() == ""
    client = world.served.client()
    for path in (
        "/api/v1/conversation/home-assistant",
        "/api/v1/conversation/home-assistant/entities",
        "/api/v1/capabilities",
        "/api/v1/plugins",
        "/api/v1/policy",
        "/api/v1/confirmations",
        "/api/v1/audit?limit=500",
        "/openapi.json",
    ):
        assert TOKEN not in client.get(path).text, path


def test_an_argument_that_looks_like_html_is_shown_as_text_and_runs_no_script(page, world):
    world.served.set_policy("sample_enabled", True)
    attack = "<img src=x onerror=alert(1)>"
    sign_in(page, world)
    world.invoke("sample.send", {"text": attack})
    card = page.locator("#cards .card")
    expect(card).to_have_count(1, timeout=2000)
    card.get_by_text("Exactly what would run").click()
    assert json.loads(card.locator(".arguments").inner_text())["text"] == attack
    assert page.locator("#cards img").count() == 0
    page.wait_for_timeout(500)  # time for an injected handler to have fired, had there been one
    assert page.evaluate("window.__violations") == []
    assert page.dialogs == []


def test_characters_that_reorder_or_hide_text_are_shown_escaped_on_the_card(page, world):
    world.served.set_policy("sample_enabled", True)
    sign_in(page, world)
    world.invoke("sample.send", {"text": "invoice\u202egpj.exe and a\u200bb"})
    card = page.locator("#cards .card")
    expect(card).to_have_count(1, timeout=2000)
    card.get_by_text("Exactly what would run").click()
    shown = card.locator(".arguments").inner_text()
    assert "\u202e" not in shown
    assert "\u200b" not in shown
    assert "invoice\\u202egpj.exe and a\\u200bb" in shown
    assert json.loads(shown)["text"] == "invoice\u202egpj.exe and a\u200bb", "still the exact arguments"


def test_a_card_can_be_approved_with_the_keyboard_alone(page, world):
    sign_in(page, world)
    world.invoke("web.fetch", {"url": world.site_url + "/keys"})
    expect(page.locator("#cards .card")).to_have_count(1, timeout=2000)
    for _ in range(80):
        page.keyboard.press("Tab")
        if (page.evaluate("document.activeElement.getAttribute('aria-label') || ''")).startswith(
            "Approve: Read the page"
        ):
            break
    else:
        pytest.fail("Tab never reached the Approve button")
    focus_ring = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert focus_ring != "none"
    page.keyboard.press("Enter")
    expect(page.locator("#status")).to_have_text(f"Read the page {world.site_url}/keys: done.")
    assert world.site.hits == ["/keys"]


def test_a_newcomer_starts_steward_opens_the_printed_url_signs_in_and_approves_a_fetch(page, tmp_path, screenshots):
    """What the README promises for `make run`: the real command, its printed URL and its first key.

    The README's picture of the console is taken here, of this first run with its real card
    (``make screenshots`` puts it in docs/images)."""
    site = Site()
    with serve_app(site.app()) as site_url:
        port = int(site_url.rsplit(":", 1)[1])
        config = tmp_path / "steward.toml"
        config.write_text(f'[plugins.websearch]\nallowed_networks = ["127.0.0.0/8"]\nallowed_ports = [{port}]\n')
        data = tmp_path / "data"
        env = operator_environment(STEWARD_DATA_DIR=str(data), STEWARD_CONFIG=str(config))
        server, output = start_serve(free_port(), env)
        try:
            (console_url,) = re.findall(r"The household console: (\S+)", output)
            key = (data / "first-admin-key").read_text().strip()
            assert (
                subprocess.run(
                    [STEWARD, "policy", "set", "web_search_enabled", "true"], env=env, capture_output=True
                ).returncode
                == 0
            )
            page.goto(console_url)
            page.get_by_label("Key").fill(key)
            page.get_by_role("button", name="Sign in").click()
            asked = httpx.post(
                console_url.replace("/console", "/api/v1/capabilities/web.fetch/invoke"),
                json={"arguments": {"url": site_url + "/first"}},
                headers={"Authorization": f"Bearer {key}"},
            )
            assert asked.status_code == 202
            expect(page.locator("#cards .card")).to_have_count(1)
            expect(page.locator("#audit-rows tr")).not_to_have_count(0)
            page.screenshot(path=screenshots / "first-run-desktop.png", full_page=True)
            page.set_viewport_size(PHONE)
            page.screenshot(path=screenshots / "first-run-phone.png", full_page=True)
            page.set_viewport_size({"width": 1280, "height": 900})
            publish_readme_screenshots(screenshots)
            page.locator("#cards .card").get_by_role("button", name="Approve").click()
            expect(page.locator("#status")).to_have_text(f"Read the page {site_url}/first: done.")
        finally:
            server.terminate()
            server.communicate(timeout=30)
    assert site.hits == ["/first"]


def test_the_readmes_picture_of_the_console_shows_the_console_as_it_is():
    recorded = README_SCREENSHOT.with_name(README_SCREENSHOT.name + ".source").read_text().split()[0]
    assert recorded == console_digest(), (
        "the console changed since docs/images/console-desktop.png was taken: `make screenshots` takes it again"
    )
