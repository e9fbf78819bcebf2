// The household console: a client of Steward's public HTTP API and nothing else (docs/console.md).
// Every value from the server is put on the page as text (textContent), never parsed as HTML.
// Every word it shows comes from strings.js (t), in the browser's language where there is a catalogue.
"use strict";

const KEY_STORAGE = "steward.key";
const CARDS_EVERY_MS = 1000;
const AUDIT_EVERY_MS = 5000;

const state = {
  key: sessionStorage.getItem(KEY_STORAGE),
  who: null,
  history: [],
  expiries: new Map(), // confirmation id -> when it expires, by this page's clock
  inline: new Map(), // confirmation id -> the conversation's own card for it
  waiting: null, // ids of the questions the last listing held; null until the first
  codes: new Map(), // outcome code -> its sentence (GET /api/v1/codes)
  timers: [],
};

const $ = (id) => document.getElementById(id);

function el(tag, options = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(options)) {
    if (name === "text") node.textContent = value;
    else if (name === "class") node.className = value;
    else node.setAttribute(name, value);
  }
  node.append(...children);
  return node;
}

class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function call(method, path, body) {
  const headers = { Authorization: `Bearer ${state.key}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: "no-store",
    credentials: "omit",
  });
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  return { status: response.status, ok: response.ok, data };
}

async function api(method, path, body) {
  const { status, ok, data } = await call(method, path, body);
  if (!ok) {
    const error = (data && data.error) || {};
    throw new ApiError(status, error.code || String(status), error.message || `HTTP ${status}`);
  }
  return data;
}

function say(message) {
  $("status").textContent = message;
}

function has(scope) {
  return state.who !== null && (state.who.scopes.includes(scope) || state.who.scopes.includes("admin"));
}

function requireScope(sectionId, scope) {
  const section = $(sectionId);
  const missing = section.querySelector(".scope-missing");
  const allowed = has(scope);
  missing.hidden = allowed;
  missing.textContent = allowed ? "" : t("lacksScope", { scope });
  for (const child of section.children) {
    if (child.tagName !== "H2" && child !== missing) child.hidden = !allowed;
  }
  return allowed;
}

// signing in
async function signIn(key) {
  state.key = key;
  try {
    state.who = await api("GET", "/api/v1/whoami");
  } catch (error) {
    state.key = null;
    $("sign-in-error").textContent =
      error.status === 401 ? t("wrongKey") : t("cannotSignIn", { reason: error.message });
    return;
  }
  sessionStorage.setItem(KEY_STORAGE, key);
  $("sign-in-error").textContent = "";
  $("sign-in").hidden = true;
  $("console").hidden = false;
  $("signed-in-as").hidden = false;
  $("signed-in-as").textContent = t("signedInAs", { name: state.who.name, scopes: state.who.scopes.join(", ") });
  $("sign-out").hidden = false;
  start();
}

function signOut() {
  sessionStorage.removeItem(KEY_STORAGE);
  for (const timer of state.timers) clearInterval(timer);
  location.reload();
}

function start() {
  if (requireScope("confirmations", "settings")) {
    offerNotifications();
    refreshCards();
    state.timers.push(setInterval(refreshCards, CARDS_EVERY_MS));
  }
  state.timers.push(setInterval(tickCountdowns, 250));
  requireScope("conversation", "conversation");
  if (requireScope("policy", "settings")) refreshPolicy();
  if (requireScope("audit", "settings")) {
    refreshAudit();
    state.timers.push(setInterval(refreshAudit, AUDIT_EVERY_MS));
  }
  loadPanels();
  refreshCapabilities();
  loadCodes();
}

// what each outcome code means, in a sentence a person reads (the codes' own descriptions)
async function loadCodes() {
  try {
    for (const code of (await api("GET", "/api/v1/codes")).codes) state.codes.set(code.code, code.description);
  } catch {
    // the codes themselves are shown then
  }
}

function outcomeSays(status, code, message) {
  if (status === "ok") return t("done");
  if (status === "pending") return t("waitingOutcome");
  if (code === "CONFIRMATION_DENIED") return t("declinedOutcome");
  return (code && state.codes.get(code)) || message || code || status;
}

// confirmation cards: the words of the CLI's prompt and of MCP elicitation (steward/surfaces/prompts.py)
function touches(classification) {
  if (!classification) return "";
  return t("touches", { mutating: classification.side_effect === "mutating", external: classification.network === "external" });
}

// Characters that are invisible or reorder the text around them (U+202E, zero-width spaces, line
// separators) are shown as their \uXXXX escapes, so what a person reads is what will run.
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}]/gu;

function readable(text) {
  return text.replace(HIDDEN, (char) =>
    char === "\n"
      ? char
      : Array.from({ length: char.length }, (_, i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, "0")}`).join(""),
  );
}

function readableArguments(value) {
  return readable(JSON.stringify(value, null, 2));
}

// a card says what would happen in words ("Read the page example.org/recipes"), and keeps exactly
// what would run (capability, version, arguments) one click away
function actionOf(confirmation) {
  return readable(confirmation.action || confirmation.title || confirmation.capability);
}

// a card in the list of questions is an item of it; one inside a conversation's message is a block
function card(confirmation, answer, tag = "li") {
  const item = el(tag, { class: "card", "data-id": confirmation.id });
  const action = actionOf(confirmation);
  item.append(el("h3", { class: "action", text: action }));
  item.append(el("p", { class: "touches", text: touches(confirmation.classification) }));
  if (confirmation.caller) {
    const reference = el("span", { class: "reference", text: confirmation.reference });
    item.append(el("p", {}, `${t("askedBy", { caller: confirmation.caller })} · `, reference));
  }
  const details = el("details", { class: "exact" }, el("summary", { text: t("exactDetails") }));
  const runsAs = { capability: confirmation.capability, version: confirmation.version, surface: confirmation.surface || "conversation" };
  details.append(el("p", { class: "runs-as", text: t("runsAs", runsAs) }));
  if (confirmation.description) details.append(el("p", { text: confirmation.description }));
  details.append(el("p", { text: t("exactArguments") }));
  details.append(el("pre", { class: "arguments", text: readableArguments(confirmation.arguments) }));
  item.append(details);
  item.append(el("p", { class: "countdown", "aria-live": "off" }));
  const approve = el("button", { type: "button", class: "approve", "aria-label": t("approveLabel", { action }), text: t("approve") });
  const deny = el("button", { type: "button", class: "deny", "aria-label": t("denyLabel", { action }), text: t("deny") });
  approve.addEventListener("click", () => answer(true, item));
  deny.addEventListener("click", () => answer(false, item));
  item.append(approve, deny);
  return item;
}

async function refreshCards() {
  let listed;
  try {
    listed = (await api("GET", "/api/v1/confirmations")).confirmations;
  } catch (error) {
    say(t("cannotList", { reason: error.message }));
    return;
  }
  const list = $("cards");
  const present = new Set(listed.map((confirmation) => confirmation.id));
  for (const node of [...list.children]) {
    if (!present.has(node.dataset.id)) {
      // the other device shows what happened too: a question answered there, or expired, goes with
      // a word (one being answered here, its buttons off, is said by answerCard)
      if (!node.querySelector("button.approve").disabled) {
        say(t("goneElsewhere", { action: node.querySelector(".action").textContent }));
      }
      forget(node);
    } else if (state.inline.has(node.dataset.id)) node.remove();
  }
  for (const [id, node] of state.inline) {
    if (!present.has(id)) settleInline(node, t("answeredElsewhere"), "neutral");
    else {
      const news = listed.find((confirmation) => confirmation.id === id);
      if (news) node.querySelector(".action").textContent = actionOf(news);
    }
  }
  for (const confirmation of listed) {
    // what was waiting when the page opened is on screen already; only what comes later is news
    if (state.waiting !== null && !state.waiting.has(confirmation.id) && !state.inline.has(confirmation.id)) {
      notify(confirmation);
    }
    const expires = Date.now() + confirmation.expires_in_seconds * 1000;
    const known = state.expiries.get(confirmation.id);
    if (known === undefined || Math.abs(known - expires) > 2000) state.expiries.set(confirmation.id, expires);
    // a question of this page's own conversation is answered where it was asked: one card, inline
    if (!state.inline.has(confirmation.id) && !list.querySelector(`[data-id="${CSS.escape(confirmation.id)}"]`)) {
      list.append(card(confirmation, (approve, node) => answerCard(confirmation, approve, node)));
    }
  }
  state.waiting = present;
  document.title = present.size ? `(${present.size}) ${TITLE}` : TITLE;
  $("confirmations").querySelector(".empty").hidden = list.children.length > 0;
  tickCountdowns();
}

// while the page is open, a new question raises a notification, if the person allowed them; the
// browser shows it (no service of anyone else's is involved) and the tab's title counts what waits
const TITLE = t("title");

function offerNotifications() {
  const button = $("notify");
  button.hidden = true;
  if (!("Notification" in window) || Notification.permission !== "default") return;
  button.hidden = false;
  button.addEventListener("click", async () => {
    const answer = await Notification.requestPermission();
    button.hidden = answer !== "default";
    say(answer === "granted" ? t("notificationsOn") : t("notificationsOff"));
  });
}

function notify(confirmation) {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  const body = { action: actionOf(confirmation), caller: confirmation.caller, touches: touches(confirmation.classification) };
  const notice = new Notification(t("notificationTitle"), {
    body: t("notificationBody", body),
    tag: confirmation.id,
  });
  notice.addEventListener("click", () => {
    window.focus();
    const node = $("cards").querySelector(`[data-id="${CSS.escape(confirmation.id)}"] button.approve`);
    if (node) node.focus();
    notice.close();
  });
}

function forget(node) {
  const focused = node.contains(document.activeElement);
  state.expiries.delete(node.dataset.id);
  node.remove();
  if (focused) $("confirmations-title").focus();
}

function tickCountdowns() {
  const now = Date.now();
  for (const node of document.querySelectorAll(".card[data-id]")) {
    const expires = state.expiries.get(node.dataset.id);
    if (expires === undefined) continue;
    const seconds = Math.ceil((expires - now) / 1000);
    const countdown = node.querySelector(".countdown");
    if (seconds <= 0) {
      if (node.parentElement === $("cards")) forget(node);
      else settleInline(node, t("expired"), "refused");
    } else if (countdown) {
      countdown.textContent = t("expiresIn", { seconds });
    }
  }
}

async function answerCard(confirmation, approve, node) {
  for (const button of node.querySelectorAll("button")) button.disabled = true;
  const { status, data } = await call("POST", `/api/v1/confirmations/${encodeURIComponent(confirmation.id)}`, {
    approve,
  });
  const action = actionOf(confirmation);
  if (data && data.conversation) {
    say(t("turnWentOn", { action, approve }));
    showReply(data.conversation);
  } else if (data && data.outcome) {
    const outcome = data.outcome;
    say(t("outcome", { action, says: outcomeSays(outcome.status, outcome.code, outcome.message) }));
  } else {
    say(t("outcome", { action, says: (data && data.error && data.error.message) || `HTTP ${status}` }));
  }
  forget(node);
  refreshAudit();
}

// conversation
function showMessage(role, text, extra) {
  const item = el("li", { class: role });
  item.append(el("span", { class: "who", text: role === "user" ? t("you") : t("steward") }));
  item.append(el("p", { text }));
  if (extra) item.append(extra);
  $("messages").append(item);
  return item;
}

async function send(body) {
  try {
    const reply = await api("POST", "/api/v1/conversation/message", body);
    showReply(reply);
  } catch (error) {
    say(t("conversationStopped", { reason: error.message }));
  }
}

async function idOf(token) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

async function showReply(reply) {
  if (reply.text) {
    let citations;
    if (reply.citations && reply.citations.length) {
      citations = el("ul", { class: "citations" });
      for (const citation of reply.citations) citations.append(el("li", { text: `${citation.title} — ${citation.url}` }));
    }
    showMessage("assistant", reply.text, citations);
    state.history.push({ role: "assistant", content: reply.text });
  }
  const pending = reply.pending_confirmation;
  if (!pending) return;
  const id = await idOf(pending.token);
  const invocation = (reply.invocations || []).find((item) => item.capability === pending.capability);
  const confirmation = {
    id,
    capability: pending.capability,
    version: pending.version,
    arguments: pending.arguments,
    classification: invocation ? invocation.classification : null,
    expires_in_seconds: pending.expires_in_seconds,
  };
  state.expiries.set(id, Date.now() + pending.expires_in_seconds * 1000);
  const answer = async (approve, item) => {
    state.inline.delete(id);
    settleInline(item, approve ? t("approved") : t("declined"), approve ? "done" : "refused");
    await send({ confirmation: { token: pending.token, approve } });
    refreshAudit();
  };
  const node = card(confirmation, answer, "div");
  state.inline.set(id, node);
  const item = el("li", { class: "assistant" }, el("span", { class: "who", text: t("stewardAsks") }), node);
  $("messages").append(item);
  tickCountdowns();
}

// how a card ended, one colour each: done (green), refused (red: declined or expired), neutral
function settleInline(node, message, how) {
  state.inline.delete(node.dataset.id);
  state.expiries.delete(node.dataset.id);
  const focused = node.contains(document.activeElement);
  for (const button of node.querySelectorAll("button")) button.remove();
  const line = node.querySelector(".countdown");
  line.textContent = message;
  line.classList.add(how);
  node.removeAttribute("data-id");
  if (focused) $("message").focus();
}

// settings
async function refreshPolicy() {
  let flags;
  try {
    flags = (await api("GET", "/api/v1/policy")).flags;
  } catch (error) {
    say(t("cannotReadSwitches", { reason: error.message }));
    return;
  }
  const list = $("flags");
  list.replaceChildren();
  for (const flag of flags) {
    const box = el("input", { type: "checkbox", id: `flag-${flag.name}` });
    box.checked = flag.enabled;
    box.addEventListener("change", () => setFlag(flag, box));
    const name = el("span", { class: "name", title: flag.name, text: flag.label || flag.name });
    const label = el("label", { for: `flag-${flag.name}` }, box, name);
    label.append(el("span", { class: "description", text: flag.description }));
    list.append(el("li", {}, label));
  }
}

async function setFlag(flag, box) {
  const label = flag.label || flag.name;
  try {
    await api("POST", "/api/v1/conversation/policy", { [flag.name]: box.checked });
    say(box.checked ? t("switchedOn", { label }) : t("switchedOff", { label }));
  } catch (error) {
    box.checked = !box.checked;
    say(t("switchNotChanged", { label, reason: error.message }));
  }
}

// plugins' panels (register_console_panels): each script draws into its own section
const panelDraws = new Map(); // panel name -> its section, until its script registers

window.stewardConsole = Object.freeze({
  api,
  el,
  say,
  panel(name, draw) {
    const section = panelDraws.get(name);
    if (!section) return;
    panelDraws.delete(name);
    try {
      draw(section, window.stewardConsole);
    } catch (error) {
      say(t("panelFailed", { name, reason: error.message }));
    }
  },
});

async function loadPanels() {
  let listed;
  try {
    listed = await api("GET", "/api/v1/console/panels");
  } catch (error) {
    say(t("cannotListPanels", { reason: error.message }));
    return;
  }
  for (const panel of listed.panels) {
    const section = el("section", { id: panel.name, class: "panel", "aria-labelledby": `${panel.name}-title` });
    section.append(el("h2", { id: `${panel.name}-title`, text: panel.title }), el("p", { class: "scope-missing", hidden: "" }));
    $("panels").append(section);
    if (!requireScope(panel.name, panel.scope)) continue;
    panelDraws.set(panel.name, section);
    document.head.append(el("script", { src: panel.script }));
  }
}

async function refreshCapabilities() {
  try {
    const [listed, plugins] = await Promise.all([api("GET", "/api/v1/capabilities"), api("GET", "/api/v1/plugins")]);
    const rows = $("capability-rows");
    rows.replaceChildren();
    for (const capability of listed.capabilities) {
      const asks = t("confirmation", { required: capability.classification.confirmation === "required" });
      const what = el("span", {}, el("strong", { text: capability.title || capability.name }), ` — ${capability.description} `);
      what.append(el("code", { text: capability.name }));
      rows.append(
        row(
          [t("columnCapability"), what],
          [t("columnPlugin"), capability.plugin],
          [t("columnTouches"), `${touches(capability.classification)} ${asks}`],
        ),
      );
    }
    const errors = $("load-errors");
    errors.replaceChildren();
    for (const problem of plugins.load_errors) errors.append(el("li", { text: `${problem.plugin}: ${problem.message}` }));
  } catch (error) {
    say(t("cannotListCapabilities", { reason: error.message }));
  }
}

async function refreshAudit() {
  if (!has("settings")) return;
  let records;
  try {
    records = (await api("GET", "/api/v1/audit?limit=30")).records;
  } catch (error) {
    say(t("cannotReadAudit", { reason: error.message }));
    return;
  }
  const rows = $("audit-rows");
  rows.replaceChildren();
  for (const record of records) {
    const outcome = el("span", { text: outcomeSays(record.status, record.code) });
    if (record.code) outcome.title = record.code;
    rows.append(
      row(
        [t("columnTime"), when(record.time)],
        [t("columnCapability"), record.capability],
        [t("columnFrom"), t("via", { caller: record.caller, surface: record.surface })],
        [t("columnOutcome"), outcome],
        [t("columnMilliseconds"), record.duration_ms.toFixed(1)],
      ),
    );
  }
}

// A table row whose cells carry their column's name: below 40rem the rows are stacked and each
// cell says what it is, instead of columns too narrow for their words (console.css).
function row(...cells) {
  const tr = el("tr");
  for (const [label, content] of cells) tr.append(el("td", { "data-label": label }, content));
  return tr;
}

// "2 min. ago", in the page's language; the full time on hover and when focused
const RELATIVE = new Intl.RelativeTimeFormat(LANGUAGE, { numeric: "auto", style: "short" });
const FULL = new Intl.DateTimeFormat(LANGUAGE, { dateStyle: "medium", timeStyle: "medium" });

function when(iso) {
  const time = new Date(iso);
  const seconds = Math.round((time.getTime() - Date.now()) / 1000);
  const [amount, unit] =
    Math.abs(seconds) < 60 ? [seconds, "second"]
    : Math.abs(seconds) < 3600 ? [Math.round(seconds / 60), "minute"]
    : Math.abs(seconds) < 86400 ? [Math.round(seconds / 3600), "hour"]
    : [Math.round(seconds / 86400), "day"];
  const full = FULL.format(time);
  return el("time", { datetime: iso, title: full, "data-full": full, tabindex: "0", text: RELATIVE.format(amount, unit) });
}

// wiring
document.addEventListener("DOMContentLoaded", () => {
  translatePage();
  $("confirmations-title").tabIndex = -1;
  $("sign-in-form").addEventListener("submit", (event) => {
    event.preventDefault();
    signIn($("key").value.trim());
  });
  $("sign-out").addEventListener("click", signOut);
  $("message-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("message").value.trim();
    if (!text) return;
    $("message").value = "";
    state.history.push({ role: "user", content: text });
    showMessage("user", text);
    send({ messages: state.history });
  });
  if (state.key) signIn(state.key);
  else $("key").focus();
});
