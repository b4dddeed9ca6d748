// agents inbox: answer without leaving the page, and keep the lists fresh by polling.
// Server-rendered HTML only (every model text escaped there); no framework, no build step.
"use strict";

const CARDS_PER_FETCH = 50; // web.py's CARDS_PER_FETCH

function fragment(html) {
  const template = document.createElement("template");
  template.innerHTML = html;
  return template.content;
}

async function send(form) {
  const card = form.closest(".card");
  const problem = form.querySelector(".problem");
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  problem.textContent = "";
  try {
    const reply = await fetch(form.action, {
      method: "POST",
      body: new URLSearchParams(new FormData(form)),
      headers: { "X-Inbox-Fetch": "1" },
      credentials: "same-origin",
    });
    const text = await reply.text();
    const fresh = (reply.headers.get("content-type") || "").startsWith("text/html")
      ? fragment(text).querySelector(".card")
      : null;
    if (fresh) {
      card.replaceWith(fresh);
    } else {
      problem.textContent = text.trim();
    }
  } catch (err) {
    problem.textContent = "the inbox did not answer: " + err;
  } finally {
    button.disabled = false;
  }
}

async function refresh() {
  // the lists, each waiting question as a stub; then the whole cards this page lacks
  const trouble = document.getElementById("trouble");
  let reply;
  try {
    reply = await fetch("/questions", { credentials: "same-origin" });
  } catch (err) {
    trouble.textContent = "the inbox does not answer (" + err + "); this page keeps trying";
    trouble.hidden = false;
    return;
  }
  if (!reply.ok) {
    trouble.textContent = (await reply.text()).trim() || "the inbox answered " + reply.status;
    trouble.hidden = false;
    return;
  }
  trouble.hidden = true;
  const fresh = fragment(await reply.text());
  const waiting = document.getElementById("waiting");
  const stubs = [...fresh.querySelectorAll("#waiting > .card")];
  const listed = new Set(stubs.map((c) => c.id));
  for (const card of waiting.querySelectorAll(":scope > .card:not(.answered)")) {
    if (!listed.has(card.id)) card.remove(); // answered elsewhere, or closed
  }
  const wanted = stubs.filter((stub) => {
    const shown = document.getElementById(stub.id);
    // a new question, or one read since this page showed it loading
    return !shown || (shown.classList.contains("pending") && !stub.classList.contains("pending"));
  });
  for (let start = 0; start < wanted.length; start += CARDS_PER_FETCH) {
    const ids = wanted.slice(start, start + CARDS_PER_FETCH).map((stub) => stub.dataset.id);
    const query = new URLSearchParams(ids.map((id) => ["id", id]));
    const cards = await fetch("/cards?" + query, { credentials: "same-origin" });
    if (!cards.ok) break;
    for (const card of [...fragment(await cards.text()).querySelectorAll(".card")].reverse()) {
      const shown = document.getElementById(card.id);
      if (shown) shown.replaceWith(card);
      else waiting.prepend(card); // newest first
    }
  }
  document.getElementById("none-waiting").hidden = waiting.querySelector(".card") !== null;
  document.getElementById("more-waiting").replaceWith(fresh.getElementById("more-waiting"));
  document.getElementById("answered").replaceWith(fresh.getElementById("answered"));
}

document.addEventListener("submit", (event) => {
  const form = event.target.closest("form.answer");
  if (!form) return;
  event.preventDefault();
  send(form);
});

document.addEventListener("input", (event) => {
  // typing your own approach chooses CUSTOM
  if (!event.target.matches("input.custom")) return;
  const custom = event.target.closest("fieldset").querySelector("input[type=radio][value=CUSTOM]");
  if (custom) custom.checked = true;
});

const pollMs = Number(document.body.dataset.pollMs) || 1000;
async function poll() {
  const started = Date.now();
  await refresh().catch(() => {});
  // every pollMs, and never two at once: a slow refresh delays the next one
  setTimeout(poll, Math.max(0, pollMs - (Date.now() - started)));
}
setTimeout(poll, pollMs);
