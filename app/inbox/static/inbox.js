// agents inbox: answer without leaving the page, and keep the lists fresh by polling.
// Server-rendered HTML only (every model text escaped there); no framework, no build step.
"use strict";

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
  const reply = await fetch("/questions", { credentials: "same-origin" });
  if (!reply.ok) return;
  const fresh = fragment(await reply.text());
  const waiting = document.getElementById("waiting");
  const listed = new Set([...fresh.querySelectorAll("#waiting > .card")].map((c) => c.id));
  for (const card of waiting.querySelectorAll(":scope > .card:not(.answered)")) {
    if (!listed.has(card.id)) card.remove(); // answered elsewhere, or closed
  }
  for (const card of [...fresh.querySelectorAll("#waiting > .card")].reverse()) {
    if (!document.getElementById(card.id)) waiting.prepend(card); // a new question: newest first
  }
  document.getElementById("none-waiting").hidden = waiting.querySelector(".card") !== null;
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

const pollMs = Number(document.body.dataset.pollMs) || 2000;
setInterval(() => refresh().catch(() => {}), pollMs);
