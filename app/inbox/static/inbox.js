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

const carried = new Map();
// run id -> what a person gave the other agents of a combined question they answered one agent
// of alone ({after: the answered card's id, values: [name, value] pairs}), for the question
// that asks those agents again

function others(form, submitter) {
  // "Answer KEY alone": every field of the form but that agent's part
  if (!submitter || !submitter.matches("button.part-only")) return null;
  const own = ["choice.", "custom.", "confirm."].map((kind) => kind + submitter.value + "/");
  const values = [...new FormData(form)].filter(
    ([name]) => name !== "csrf" && name !== "interrupt" && !own.some((p) => name.startsWith(p)),
  );
  return { after: form.closest(".card").id, values };
}

function carryOver(card) {
  // a combined question asked again after one agent was answered alone: it opens under that
  // answer with what the person gave its agents; false when nothing was carried for it
  const kept = carried.get(card.dataset.run);
  const form = card.querySelector("form.answer");
  if (!kept || !form || !form.querySelector(".part")) return false;
  carried.delete(card.dataset.run);
  for (const [name, value] of kept.values) {
    const field = form.elements.namedItem(name); // a radio group's value checks its radio
    if (field) field.value = value;
  }
  card.open = true;
  card.dataset.touched = "1";
  const answered = document.getElementById(kept.after);
  if (!answered) return false;
  answered.after(card);
  return true;
}

function gone(card, fresh) {
  // a question a person was answering no longer waits (answered elsewhere, closed, filtered
  // out): what they gave stays, nothing of it can be sent, and the note says who answered
  card.classList.add("gone");
  for (const b of card.querySelectorAll("form.answer button[type=submit]")) b.disabled = true;
  let note = card.querySelector(".gone-note");
  if (!note) {
    note = document.createElement("div");
    note.className = "gone-note warning";
    note.setAttribute("role", "alert");
    note.append(document.createElement("span"), " ");
    const dismiss = document.createElement("button");
    dismiss.type = "button";
    dismiss.className = "secondary dismiss";
    dismiss.textContent = "Dismiss";
    note.append(dismiss);
    (card.querySelector(".body") || card).prepend(note);
  }
  const answer = fresh.getElementById("a-" + card.dataset.id);
  const who = answer && answer.querySelector(".who");
  const at = answer && answer.querySelector(".at");
  note.firstChild.textContent = who
    ? "Answered elsewhere by " + who.textContent + " at " + at.textContent +
      ": nothing you gave here was sent; it stays here to copy."
    : "This question no longer waits here (answered elsewhere, closed or filtered out): " +
      "nothing you gave here was sent; it stays here to copy.";
}

function back(card) {
  // a question kept by gone() is listed again (a filter cleared): it can be answered again
  card.classList.remove("gone");
  for (const b of card.querySelectorAll("form.answer button[type=submit]")) b.disabled = false;
  const note = card.querySelector(".gone-note");
  if (note) note.remove();
}

async function send(form, submitter) {
  const card = form.closest(".card");
  const problem = form.querySelector(".problem");
  const body = new URLSearchParams(new FormData(form, submitter)); // before the buttons are disabled
  const kept = others(form, submitter);
  if (kept) carried.set(card.dataset.run, kept); // the question asked again may come first
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
    if (kept && !(fresh && fresh.classList.contains("answered"))) carried.delete(card.dataset.run);
  } catch (err) {
    if (kept) carried.delete(card.dataset.run);
    problem.textContent = "the inbox did not answer: " + err;
  } finally {
    for (const b of buttons) b.disabled = card.classList.contains("gone");
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
    if (listed.has(card.id)) {
      if (card.classList.contains("gone")) back(card);
    } else if (card.open && card.dataset.touched) {
      gone(card, fresh); // what a person gave is never lost
    } else {
      card.remove(); // answered elsewhere, closed, ignored or filtered
    }
  }
  const wanted = stubs.filter((stub) => {
    const shown = document.getElementById(stub.id);
    // a new question, or one read since this page showed it loading or from its card (unless
    // a person started answering it: what they gave is never lost)
    if (!shown || shown.classList.contains("lazy")) return true; // lazy: its line alone
    const read = !stub.classList.contains("pending") && !stub.classList.contains("early");
    if (shown.classList.contains("pending")) return !stub.classList.contains("pending");
    return shown.classList.contains("early") && read && !shown.dataset.touched;
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
        if (!carryOver(card)) waiting.prepend(card); // newest first
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
  const form = event.target.closest("form.answer");
  if (form) form.closest(".card").dataset.touched = "1"; // refresh() keeps what a person gave
  // typing your own approach chooses CUSTOM: a choice's radio, or a grid row's select
  if (!event.target.matches("input.custom")) return;
  const holder = event.target.closest("fieldset.choice, td");
  const radio = holder && holder.querySelector("input[type=radio][value=CUSTOM]");
  if (radio) radio.checked = true;
  const select = holder && holder.querySelector("select");
  if (select && [...select.options].some((o) => o.value === "CUSTOM")) select.value = "CUSTOM";
});

document.addEventListener("click", (event) => {
  if (event.target.matches(".gone-note button.dismiss")) event.target.closest(".card").remove();
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
async function fillLazy() {
  // the bodies of the cards a whole page rendered as their lines (web.py's WHOLE_CARDS), at once
  const ids = [...document.querySelectorAll("#waiting > .card.lazy")].map((c) => c.dataset.id);
  for (let start = 0; start < ids.length; start += CARDS_PER_FETCH) {
    const chunk = ids.slice(start, start + CARDS_PER_FETCH);
    const query = new URLSearchParams(chunk.map((id) => ["id", id]));
    const cards = await fetch("/cards?" + query, { credentials: "same-origin" });
    if (!cards.ok) return; // the refreshes fetch them
    for (const card of fragment(await cards.text()).querySelectorAll(".card")) {
      const shown = document.getElementById(card.id);
      if (!shown || !shown.classList.contains("lazy")) continue;
      card.open = shown.open;
      shown.replaceWith(card);
    }
  }
}
fillLazy().catch(() => {});
setTimeout(poll, pollMs);
