// agents inbox: a compact list that opens a question, filters, answers without leaving the
// page, and a list kept fresh by polling (a banner when the inbox or Temporal does not answer).
// Server-rendered HTML only (every model text escaped or sanitized there); no framework.
"use strict";

const CARDS_PER_FETCH = 50; // web.py's CARDS_PER_FETCH

function fragment(html) {
  const template = document.createElement("template");
  template.innerHTML = html;
  return template.content;
}

function banner(text) {
  const trouble = document.getElementById("trouble");
  trouble.textContent = text;
  trouble.hidden = !text;
}

async function send(form, submitter) {
  const card = form.closest(".card");
  const problem = form.querySelector(".problem");
  const body = new URLSearchParams(new FormData(form, submitter)); // before the buttons are disabled
  const buttons = form.querySelectorAll("button[type=submit]");
  for (const b of buttons) b.disabled = true;
  problem.textContent = "";
  try {
    const reply = await fetch(form.action, {
      method: "POST",
      body,
      headers: { "X-Inbox-Fetch": "1" },
      credentials: "same-origin",
    });
    const text = await reply.text();
    if (form.matches("form.ignore")) {
      if (reply.ok) {
        card.remove();
        await refresh();
      } else {
        problem.textContent = text.trim();
      }
      return;
    }
    const fresh = (reply.headers.get("content-type") || "").startsWith("text/html")
      ? fragment(text).querySelector(".card")
      : null;
    if (fresh) {
      fresh.open = true;
      card.replaceWith(fresh);
    } else {
      problem.textContent = text.trim();
    }
  } catch (err) {
    problem.textContent = "the inbox did not answer: " + err;
  } finally {
    for (const b of buttons) b.disabled = false;
  }
}

function ago(iso, due) {
  // web view.py's age(): "45 s", "12 min", "3 h", "2 d"; "in ..." ahead
  let seconds = Math.round((Date.now() - Date.parse(iso)) / 1000);
  const ahead = seconds < 0;
  seconds = Math.abs(seconds);
  let shown = seconds + " s";
  for (const [unit, size] of [["d", 86400], ["h", 3600], ["min", 60]]) {
    if (seconds >= size) {
      shown = Math.floor(seconds / size) + " " + unit;
      break;
    }
  }
  if (ahead) return "in " + shown;
  return due ? shown + " ago" : shown;
}

function tick() {
  for (const time of document.querySelectorAll(".line time[datetime]")) {
    time.textContent = ago(time.dateTime, time.hasAttribute("data-due"));
  }
}

async function refresh() {
  // the lists, each waiting question as a stub; then the whole cards this page lacks
  let reply;
  try {
    reply = await fetch("/questions" + location.search, { credentials: "same-origin" });
  } catch (err) {
    banner("the inbox does not answer (" + err + "); this page keeps trying");
    return;
  }
  if (!reply.ok) {
    banner((await reply.text()).trim() || "the inbox answered " + reply.status);
    return;
  }
  const fresh = fragment(await reply.text());
  const waiting = document.getElementById("waiting");
  const stubs = [...fresh.querySelectorAll("#waiting > .card")];
  const listed = new Set(stubs.map((c) => c.id));
  for (const card of waiting.querySelectorAll(":scope > .card:not(.answered)")) {
    if (!listed.has(card.id)) card.remove(); // answered elsewhere, closed, ignored or filtered
  }
  const wanted = stubs.filter((stub) => {
    const shown = document.getElementById(stub.id);
    // a new question, or one read since this page showed it loading
    return !shown || (shown.classList.contains("pending") && !stub.classList.contains("pending"));
  });
  for (let start = 0; start < wanted.length; start += CARDS_PER_FETCH) {
    const ids = wanted.slice(start, start + CARDS_PER_FETCH).map((stub) => stub.dataset.id);
    const query = new URLSearchParams(ids.map((id) => ["id", id]));
    let cards;
    try {
      cards = await fetch("/cards?" + query, { credentials: "same-origin" });
    } catch (err) {
      banner("the inbox does not answer (" + err + "); this page keeps trying");
      return;
    }
    if (!cards.ok) break;
    for (const card of [...fragment(await cards.text()).querySelectorAll(".card")].reverse()) {
      const shown = document.getElementById(card.id);
      if (shown) {
        card.open = shown.open;
        shown.replaceWith(card);
      } else {
        card.open = location.hash === "#" + card.id;
        waiting.prepend(card); // newest first
      }
    }
  }
  banner("");
  document.getElementById("list-meta").replaceWith(fresh.getElementById("list-meta"));
  document.getElementById("none-waiting").hidden = waiting.querySelector(".card") !== null;
  document.getElementById("answered").replaceWith(fresh.getElementById("answered"));
  tick();
}

document.addEventListener("submit", (event) => {
  const form = event.target.closest("form.answer, form.ignore");
  if (!form) return;
  event.preventDefault();
  send(form, event.submitter);
});

document.addEventListener("input", (event) => {
  // typing your own approach chooses CUSTOM
  if (!event.target.matches("input.custom")) return;
  const custom = event.target.closest("fieldset").querySelector("input[type=radio][value=CUSTOM]");
  if (custom) custom.checked = true;
});

let filtering;
function filter() {
  // the filters live in the address (a link or a reload keeps them); the list follows at once
  const params = new URLSearchParams(new FormData(document.getElementById("filters")));
  for (const [name, value] of [...params]) if (!value) params.delete(name);
  const search = params.toString();
  history.replaceState(null, "", search ? "?" + search : location.pathname);
  clearTimeout(filtering);
  filtering = setTimeout(() => refresh().catch(() => {}), 150);
}
const filters = document.getElementById("filters");
if (filters) {
  filters.addEventListener("input", filter);
  filters.addEventListener("change", filter);
  filters.addEventListener("submit", (event) => {
    event.preventDefault();
    filter();
  });
}

const pollMs = Number(document.body.dataset.pollMs) || 1000;
async function poll() {
  const started = Date.now();
  await refresh().catch(() => {});
  // every pollMs, and never two at once: a slow refresh delays the next one
  setTimeout(poll, Math.max(0, pollMs - (Date.now() - started)));
}
if (location.hash) {
  const opened = document.getElementById(location.hash.slice(1));
  if (opened && opened.matches("details.card")) opened.open = true;
}
setTimeout(poll, pollMs);
