"""``make image`` builds an appliance that boots under systemd and serves what was chosen, safely.

Two images per run, one Debian step between them: every plugin (booted twice, to see that state
survives a reboot) and ``PLUGINS=system``.
"""

from __future__ import annotations

import re
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from appliance import ROOT, Container, build

pytestmark = pytest.mark.requires("appliance-image")

ALL_PLUGINS = ["homeassistant", "system", "websearch"]
SOURCES = [ROOT / "core", ROOT / "plugins" / "websearch"]
SITE_PORT = 8000
STATE = Path("var/lib/private/steward")
# systemd's range for DynamicUser= (systemd.exec(5))
DYNAMIC_UIDS = range(61184, 65520)
ARTICLE = """<!doctype html><html><head><title>Descaling a kettle</title></head><body>
<nav><a href="/">Home</a> <a href="/kettles">Kettles</a> <a href="/about">About us</a></nav>
<article><h1>Descaling a kettle</h1>
<p>Limescale builds up wherever hard water is boiled, and a kettle boils more of it than anything
else in the kitchen. A thin grey crust on the element is the first sign.</p>
<p>Fill the kettle halfway with equal parts of white vinegar and water, bring it to the boil, and
leave it to stand for an hour before pouring it away.</p>
<p>Rinse it twice with clean water and boil a full kettle once more, so the next cup of tea tastes
of tea rather than of vinegar.</p>
</article><footer>Copyright Kettle World</footer></body></html>"""


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    path = tmp_path_factory.mktemp("image")
    yield path
    shutil.rmtree(path, ignore_errors=True)  # two root file systems and their tarballs: ~1.3 GB


@pytest.fixture(scope="module")
def full_image(workspace) -> Path:
    image = workspace / "all"
    build(image, ALL_PLUGINS, workspace / "base.tar")
    # docs/websearch.md's loopback recipe, for the page the test serves on the container's loopback
    config = image / "etc/steward/steward.toml"
    text = config.read_text()
    recipe = text.replace("allowed_networks = []", 'allowed_networks = ["127.0.0.1/32"]', 1)
    recipe = recipe.replace("allowed_ports = [80, 443]", f"allowed_ports = [80, 443, {SITE_PORT}]", 1)
    assert recipe.count("127.0.0.1/32") == 1
    assert f"443, {SITE_PORT}]" in recipe
    config.write_text(recipe)
    return image


@pytest.fixture(scope="module")
def appliance(full_image, workspace):
    container = Container(full_image, "steward-all", workspace / "console-all.log")
    container.start()
    yield container
    container.poweroff()


@pytest.fixture(scope="module")
def admin_key(appliance, full_image) -> str:
    return (full_image / STATE / "first-admin-key").read_text().strip()


@pytest.fixture(scope="module")
def service_uid(appliance) -> int:
    main_pid = appliance.run("systemctl", "show", "--property=MainPID", "--value", "steward").stdout.strip()
    status = appliance.run("cat", f"/proc/{main_pid}/status").stdout
    (uid,) = set(re.search(r"^Uid:\s+(.*)$", status, re.M).group(1).split())
    return int(uid)


@pytest.fixture(scope="module")
def fleet_key(appliance) -> str:
    """A service key made by root's CLI inside the image, as docs/operations.md says."""
    added = appliance.run(
        "env",
        "STEWARD_DATA_DIR=/var/lib/steward",
        "/opt/steward/.venv/bin/steward",
        "keys",
        "add",
        "fleet",
        "--scope",
        "service",
        "--preapprove",
        "web.fetch",
    )
    appliance.run(
        "env",
        "STEWARD_DATA_DIR=/var/lib/steward",
        "/opt/steward/.venv/bin/steward",
        "policy",
        "set",
        "web_search_enabled",
        "true",
    )
    return added.stdout.strip().splitlines()[-1]


def test_the_service_is_active_and_answers_on_loopback_as_a_dynamic_user(appliance, service_uid):
    assert appliance.run("systemctl", "is-active", "steward").stdout.strip() == "active"
    health = appliance.get("/healthz")
    assert health.status_code == 200
    assert set(health.json()) == {"status"}
    assert service_uid in DYNAMIC_UIDS
    unit_user = appliance.run("systemctl", "show", "--property=DynamicUser", "--value", "steward").stdout
    assert unit_user.strip() == "yes"


def test_the_first_key_is_0600_in_the_state_directory_and_never_in_the_journal(
    appliance, full_image, admin_key, service_uid
):
    key_file = (full_image / STATE / "first-admin-key").stat()
    assert stat.S_IMODE(key_file.st_mode) == 0o600
    assert key_file.st_uid == service_uid
    journal = appliance.run("journalctl", "--boot", "--no-pager", "--output=cat").stdout
    assert "/var/lib/steward/first-admin-key" in journal
    assert len(admin_key) > 20
    assert admin_key not in journal


def test_the_key_works_and_exactly_the_chosen_plugins_are_served(appliance, admin_key):
    assert appliance.get("/api/v1/plugins").status_code == 401
    plugins = appliance.get("/api/v1/plugins", admin_key)
    assert plugins.status_code == 200
    assert sorted(plugin["name"] for plugin in plugins.json()["plugins"]) == ALL_PLUGINS
    assert plugins.json()["load_errors"] == []
    details = appliance.get("/healthz", admin_key).json()
    # "degraded" is honest here: the image has no SearXNG and no Home Assistant to reach
    assert (details["plugins"], details["load_errors"], details["problems"]) == (ALL_PLUGINS, [], [])


def test_a_key_root_adds_inside_the_image_is_honoured(appliance, fleet_key, full_image, service_uid):
    # the service looks at keys.toml again at most once a second (FileKeyTable.recheck_seconds):
    # a key added just after a request is honoured within that second, not at once
    deadline = time.monotonic() + 3
    while (status := appliance.get("/api/v1/plugins", fleet_key).status_code) != 200 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert status == 200
    assert appliance.get("/api/v1/plugins", fleet_key[:-1] + "x").status_code == 401
    keys_file = (full_image / STATE / "keys.toml").stat()
    assert (keys_file.st_uid, stat.S_IMODE(keys_file.st_mode)) == (service_uid, 0o600)


@pytest.fixture(scope="module")
def site(appliance, workspace):
    """A page and a JSON document, served on the container's own loopback."""
    pages = workspace / "site"
    pages.mkdir()
    (pages / "descaling.html").write_text(ARTICLE)
    (pages / "kettles.json").write_text('{"kettles": [{"name": "Brew 1"}, {"name": "Brew 2"}]}')
    server = appliance.in_network(
        sys.executable,
        "-u",
        "-m",
        "http.server",
        str(SITE_PORT),
        "--bind",
        "127.0.0.1",
        "--directory",
        str(pages),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert "Serving HTTP" in server.stdout.readline()
    yield f"http://127.0.0.1:{SITE_PORT}"
    server.terminate()
    server.wait()


def test_extraction_and_jq_run_in_isolated_workers_under_the_unit(appliance, fleet_key, site, service_uid):
    page = appliance.post("/v1/fetch", fleet_key, {"url": f"{site}/descaling.html"})
    assert page.status_code == 200, page.text
    content = page.json()["content"]
    assert "equal parts of white vinegar and water" in content
    assert "About us" not in content
    assert "Copyright" not in content
    names = appliance.post("/v1/fetch", fleet_key, {"url": f"{site}/kettles.json", "jq": "[.kettles[].name]"})
    assert names.status_code == 200, names.text
    assert '"Brew 2"' in names.json()["content"]

    main_pid = appliance.run("systemctl", "show", "--property=MainPID", "--value", "steward").stdout.strip()
    # started from the server's threads: each thread's children, all together
    workers = appliance.run("sh", "-c", f"cat /proc/{main_pid}/task/*/children").stdout.split()
    assert workers
    unit_cgroup = appliance.run("cat", f"/proc/{main_pid}/cgroup").stdout
    assert "steward.service" in unit_cgroup
    for pid in workers:
        assert appliance.run("cat", f"/proc/{pid}/cgroup").stdout == unit_cgroup
        command = appliance.run("cat", f"/proc/{pid}/cmdline").stdout.split("\0")
        assert command[1:3] == ["-I", "-c"], command
        status = appliance.run("cat", f"/proc/{pid}/status").stdout
        assert f"\t{service_uid}\t" in re.search(r"^Uid:.*$", status, re.M).group(0)
        limits = appliance.run("cat", f"/proc/{pid}/limits").stdout
        # the worker's own setrlimit, allowed by the unit's syscall filter: isolation.memory_mb
        address_space = re.search(r"^Max address space\s+(\S+)", limits, re.M).group(1)
        assert address_space == str(1024 * 1024 * 1024)


def test_the_units_exposure_stays_low(appliance):
    report = appliance.run("systemd-analyze", "security", "steward.service", "--no-pager").stdout
    exposure = float(re.search(r"Overall exposure level for steward\.service: ([\d.]+)", report).group(1))
    assert exposure <= 2.0, report


def test_the_lock_installs_on_debian_12s_own_python(appliance):
    python = "/opt/steward/.venv/bin/python"
    version = appliance.run(python, "-c", "import platform; print(platform.python_version())").stdout.strip()
    assert version.startswith("3.11.")
    # redis needs async-timeout below 3.11.3 (bookworm has 3.11.2): the lock must carry it
    appliance.run(python, "-c", "import redis.asyncio, steward, steward_websearch, steward_system")
    assert "No broken requirements" in appliance.run(python, "-m", "pip", "check").stdout


def test_an_update_in_place_keeps_keys_and_policy(appliance, full_image, admin_key, fleet_key):
    """docs/operations.md's update: new wheels, pip install --no-deps --force-reinstall, restart."""
    wheels = full_image / "opt/steward/update"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", wheels, *SOURCES],
        check=True,
        capture_output=True,
    )
    python = "/opt/steward/.venv/bin/python"
    installed_at = "import steward, os; print(os.stat(steward.__file__).st_mtime_ns)"
    before = appliance.run(python, "-c", installed_at).stdout
    pip = "/opt/steward/.venv/bin/pip install --quiet --no-index --no-deps --force-reinstall /opt/steward/update/*.whl"
    appliance.run("sh", "-c", pip)
    assert appliance.run(python, "-c", installed_at).stdout != before
    old_pid = appliance.run("systemctl", "show", "--property=MainPID", "--value", "steward").stdout
    appliance.run("systemctl", "restart", "steward")
    appliance.wait_until_serving()
    assert appliance.run("systemctl", "show", "--property=MainPID", "--value", "steward").stdout != old_pid
    assert appliance.get("/api/v1/plugins", admin_key).status_code == 200
    assert appliance.get("/api/v1/plugins", fleet_key).status_code == 200
    flags = {flag["name"]: flag["enabled"] for flag in appliance.get("/api/v1/policy", admin_key).json()["flags"]}
    assert flags["web_search_enabled"] is True
    shutil.rmtree(wheels)


def test_keys_survive_a_reboot(appliance, admin_key, fleet_key):
    appliance.poweroff()
    appliance.start()
    assert appliance.get("/api/v1/plugins", admin_key).status_code == 200
    assert appliance.get("/api/v1/plugins", fleet_key).status_code == 200
    assert appliance.run("systemctl", "is-active", "steward").stdout.strip() == "active"


def test_an_image_with_only_the_system_plugin_serves_no_web_capability(full_image, workspace):
    image = workspace / "system"
    build(image, ["system"], workspace / "base.tar")
    assert (workspace / "system.tar").stat().st_size > 100_000_000
    container = Container(image, "steward-system", workspace / "console-system.log")
    container.start()
    try:
        key = (image / STATE / "first-admin-key").read_text().strip()
        plugins = container.get("/api/v1/plugins", key).json()
        assert [plugin["name"] for plugin in plugins["plugins"]] == ["system"]
        names = [capability["name"] for capability in container.get("/api/v1/capabilities", key).json()["capabilities"]]
        assert names
        assert all(name.startswith("system.") for name in names), names
        for left_out in ("steward_websearch", "pypdfium2", "selectolax", "jq"):  # websearch and its dependencies
            assert container.run("/opt/steward/.venv/bin/python", "-c", f"import {left_out}", check=False).returncode
        assert container.run("/opt/steward/.venv/bin/python", "-c", "import redis.asyncio, httpx").returncode == 0
    finally:
        container.poweroff()
