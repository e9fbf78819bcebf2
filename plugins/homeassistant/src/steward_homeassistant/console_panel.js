// The Home Assistant panel of the household console (register_console_panels): where Home
// Assistant is, its access token (never shown back), and which entities the model may read.
"use strict";

stewardConsole.panel("home-assistant", (section, { api, el, say }) => {
  const HA = "/api/v1/conversation/home-assistant";
  let entities = [];
  let allowlisted = [];

  const field = (id, label, attributes) => [el("label", { for: id, text: label }), el("input", { id, ...attributes })];
  // The form waits, disabled, for the saved settings: filled in before they arrive, it would
  // have what was typed overwritten by them (a slow first load), and save a URL nobody chose.
  const [urlLabel, url] = field("ha-url", "Home Assistant URL", { type: "url", placeholder: "http://homeassistant.local:8123", disabled: "" });
  const [tokenLabel, token] = field("ha-token", "Access token", { type: "password", autocomplete: "off", spellcheck: "false", disabled: "" });
  const tokenState = el("p", { id: "ha-token-state", class: "hint" });
  const submit = el("button", { type: "submit", text: "Save Home Assistant settings", disabled: "" });
  const test = el("button", { type: "button", id: "ha-test", class: "secondary", text: "Test connection" });
  const form = el("form", { id: "ha-form" }, urlLabel, url, tokenLabel, token, tokenState);
  form.append(submit, test);
  const connection = el("p", { id: "ha-connection", role: "status" });
  const [searchLabel, search] = field("ha-search", "Find entities", { type: "search" });
  const list = el("ul", { id: "ha-entities", class: "entities" });
  const saveList = el("button", { type: "button", id: "ha-save-allowlist", text: "Save allowlist" });
  section.append(form, connection, searchLabel, search, list, saveList);

  async function refresh() {
    let settings;
    try {
      settings = await api("GET", HA);
    } catch (error) {
      say(`Home Assistant settings: ${error.message}`);
      return;
    } finally {
      for (const control of [url, token, submit]) control.disabled = false;
    }
    url.value = settings.base_url || "";
    token.value = "";
    tokenState.textContent = settings.has_access_token
      ? "A token is set. It is never shown; type a new one to replace it."
      : "No token yet.";
    allowlisted = settings.allowlisted_entities;
  }

  async function save(event) {
    event.preventDefault();
    const change = { base_url: url.value.trim() };
    if (token.value.trim()) change.access_token = token.value.trim();
    try {
      await api("POST", HA, change);
      say("Home Assistant settings saved.");
    } catch (error) {
      say(`Home Assistant settings not saved: ${error.message}`);
    }
    await refresh();
  }

  async function browse() {
    connection.textContent = "Testing…";
    try {
      const found = await api("GET", `${HA}/entities`);
      connection.textContent = `${found.connection.ok ? "Connected" : "Not connected"}: ${found.connection.message}`;
      entities = found.entities;
    } catch (error) {
      connection.textContent = `Not connected: ${error.message}`;
      entities = [];
    }
    show();
  }

  function show() {
    const needle = search.value.trim().toLowerCase();
    const checked = new Set([...list.querySelectorAll("input:checked")].map((box) => box.value));
    const shown = new Set([...list.querySelectorAll("input")].map((box) => box.value));
    list.replaceChildren();
    for (const entity of entities) {
      const text = `${entity.entity_id} ${entity.name}`.toLowerCase();
      if (needle && !text.includes(needle)) continue;
      const box = el("input", { type: "checkbox", id: `entity-${entity.entity_id}`, value: entity.entity_id });
      box.checked = shown.has(entity.entity_id) ? checked.has(entity.entity_id) : entity.allowlisted;
      const label = el("label", { for: box.id }, box, el("span", { text: `${entity.name} (${entity.entity_id}): ${entity.state}` }));
      list.append(el("li", {}, label));
    }
  }

  async function saveAllowlist() {
    const chosen = new Set(allowlisted);
    for (const box of list.querySelectorAll("input")) {
      if (box.checked) chosen.add(box.value);
      else chosen.delete(box.value);
    }
    try {
      await api("POST", HA, { allowlisted_entities: [...chosen].sort() });
      say(`Allowlist saved: ${chosen.size} entities.`);
    } catch (error) {
      say(`Allowlist not saved: ${error.message}`);
    }
    await refresh();
  }

  form.addEventListener("submit", save);
  test.addEventListener("click", browse);
  search.addEventListener("input", show);
  saveList.addEventListener("click", saveAllowlist);
  refresh();
});
