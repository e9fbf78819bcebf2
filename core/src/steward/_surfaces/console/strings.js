// Every word the household console shows, by language: English first. A translation is one more
// entry of CATALOGUES with the same keys; the page takes the first of the browser's languages
// that has one (navigator.languages, "de-AT" falling back to "de"), else English, and says which
// in <html lang>. Values are text or functions of the few values a sentence needs.
"use strict";

const CATALOGUES = {
  en: {
    title: "Steward",
    signIn: "Sign in",
    key: "Key",
    keyHint: "The key stays in this tab only; closing it signs you out.",
    signOut: "Sign out",
    waiting: "Waiting for your yes",
    nothingWaiting: "Nothing is waiting.",
    notifyOffer: "Notify me of new questions",
    conversation: "Conversation",
    message: "Message",
    send: "Send",
    switches: "Household switches",
    capabilities: "Capabilities and plugins",
    capabilitiesCaption: "What this Steward can do",
    columnCapability: "Capability",
    columnPlugin: "Plugin",
    columnTouches: "How it touches the world",
    activity: "Recent activity",
    activityCaption: "The newest audit records: names and outcomes, never what was said",
    columnTime: "Time",
    columnFrom: "From",
    columnOutcome: "Outcome",
    columnMilliseconds: "ms",

    wrongKey: "Wrong key: this Steward does not know it.",
    cannotSignIn: ({ reason }) => `Cannot sign in: ${reason}`,
    signedInAs: ({ name, scopes }) => `Signed in as ${name} (${scopes})`,
    lacksScope: ({ scope }) => `This key lacks the scope "${scope}", which this part needs.`,
    touches: ({ mutating, external }) =>
      `It ${mutating ? "changes something" : "reads only"} and ${external ? "leaves this device" : "stays on this device"}.`,
    askedBy: ({ caller }) => `Asked by ${caller}`,
    exactDetails: "Exactly what would run",
    runsAs: ({ capability, version, surface }) => `${capability}, version ${version}, asked on the ${surface} surface`,
    exactArguments: "It would run once with exactly these arguments:",
    approve: "Approve",
    deny: "Deny",
    approveLabel: ({ action }) => `Approve: ${action}`,
    denyLabel: ({ action }) => `Deny: ${action}`,
    expiresIn: ({ seconds }) => `Expires in ${seconds} s`,
    expired: "Expired: it did not run.",
    approved: "Approved.",
    declined: "Declined.",
    answeredElsewhere: "Answered elsewhere, or expired.",
    goneElsewhere: ({ action }) => `"${action}" was answered on another device, or expired.`,
    cannotList: ({ reason }) => `Cannot list the questions: ${reason}`,
    turnWentOn: ({ action, approve }) => `${action}: ${approve ? "approved" : "declined"}; the conversation went on.`,
    outcome: ({ action, says }) => `${action}: ${says}`,
    done: "done.",
    waitingOutcome: "waiting for a yes.",
    declinedOutcome: "declined; it did not run.",
    notificationsOn: "New questions will raise a notification while this page is open.",
    notificationsOff: "No notifications.",
    notificationTitle: "Steward: waiting for your yes",
    notificationBody: ({ action, caller, touches }) => `${action}${caller ? ` (for ${caller})` : ""}. ${touches}`,
    you: "You",
    steward: "Steward",
    stewardAsks: "Steward asks",
    conversationStopped: ({ reason }) => `The conversation stopped: ${reason}`,
    cannotReadSwitches: ({ reason }) => `Cannot read the switches: ${reason}`,
    switchedOn: ({ label }) => `${label} is now on.`,
    switchedOff: ({ label }) => `${label} is now off.`,
    switchNotChanged: ({ label, reason }) => `${label} not changed: ${reason}`,
    panelFailed: ({ name, reason }) => `The ${name} panel failed: ${reason}`,
    cannotListPanels: ({ reason }) => `Cannot list the plugins' panels: ${reason}`,
    cannotListCapabilities: ({ reason }) => `Cannot list capabilities: ${reason}`,
    confirmation: ({ required }) => (required ? "Asks for a yes every time." : "Runs without asking."),
    cannotReadAudit: ({ reason }) => `Cannot read the audit log: ${reason}`,
    via: ({ caller, surface }) => `${caller} (${surface})`,
  },
};

const LANGUAGE =
  [...(navigator.languages || [navigator.language || "en"])]
    .flatMap((tag) => [tag, tag.split("-")[0]])
    .find((tag) => Object.hasOwn(CATALOGUES, tag)) || "en";

// the sentence `key` of the page's language, English where its catalogue lacks one
function t(key, values = {}) {
  const entry = CATALOGUES[LANGUAGE][key] ?? CATALOGUES.en[key];
  if (entry === undefined) throw new Error(`no string "${key}" in the console's catalogue`);
  return typeof entry === "function" ? entry(values) : entry;
}

// the page's own words: each element with data-text="key" (or data-placeholder) gets it
function translatePage() {
  document.documentElement.lang = LANGUAGE;
  for (const node of document.querySelectorAll("[data-text]")) node.textContent = t(node.dataset.text);
  document.title = t("title");
}
