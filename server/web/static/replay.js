// The replay stepper: first/back/forward/last buttons, the arrow keys (Home, End), a slider and a
// seat switcher step the page in place. Each step is fetched as an HTML fragment drawn by the
// server (/matches/{id}/replay/steps/{k}?seat=N, the same drawing as the page's own) and the URL
// (?step=k&seat=N) is kept in sync, so any step can be linked. Without JavaScript the buttons and
// the seat switcher are plain links to the same URLs.
"use strict";
(() => {
  const nav = document.getElementById("replay");
  const holder = document.getElementById("step-holder");
  if (!nav || !holder) return;
  const match = nav.dataset.match;
  const total = Number(nav.dataset.steps);
  const slider = document.getElementById("slider");
  const current = () => holder.querySelector("#replay-step");
  // the step and seat asked for last (shown once their answer arrives); moves are relative to them
  let step = Number(current().dataset.step);
  let seat = current().dataset.seat;  // "" for omniscient
  let asked = 0;  // the latest request; an older answer arriving late is dropped

  const query = (k, s) => `?step=${k}` + (s === "" ? "" : `&seat=${s}`);

  function show(k, s) {
    slider.value = String(k);
    document.getElementById("first").href = query(0, s);
    document.getElementById("back").href = query(Math.max(k - 1, 0), s);
    document.getElementById("forward").href = query(Math.min(k + 1, total), s);
    document.getElementById("last").href = query(total, s);
    document.getElementById("link").href = query(k, s);
    const api = document.getElementById("api-link");
    api.href = `/api/v1/matches/${match}/steps/${k}` + (s === "" ? "" : `?seat=${s}`);
    api.textContent = `/api/v1/matches/${match}/steps/${k}`;
    for (const a of document.querySelectorAll("#seat-switch a")) {
      const on = a.dataset.seat === s;
      a.href = query(k, a.dataset.seat);
      a.classList.toggle("current", on);
      if (on) a.setAttribute("aria-current", "true"); else a.removeAttribute("aria-current");
    }
    history.replaceState(null, "", query(k, s));
  }

  async function go(k, s = seat) {
    k = Math.max(0, Math.min(total, k));
    if (k === step && s === seat) return;
    step = k;
    seat = s;
    const ticket = ++asked;
    const url = `/matches/${match}/replay/steps/${k}` + (s === "" ? "" : `?seat=${s}`);
    let text;
    try {
      const answer = await fetch(url, {headers: {Accept: "text/html"}});
      if (!answer.ok) throw new Error(`${answer.status} ${await answer.text()}`);
      text = await answer.text();
    } catch (e) {
      if (ticket === asked) {  // back to the step the page shows
        holder.dataset.error = String(e);
        step = Number(current().dataset.step);
        seat = current().dataset.seat;
      }
      return;
    }
    if (ticket !== asked) return;
    delete holder.dataset.error;
    holder.innerHTML = text;
    show(k, s);
  }

  const buttons = {first: () => 0, back: () => step - 1, forward: () => step + 1, last: () => total};
  for (const [id, to] of Object.entries(buttons)) {
    document.getElementById(id).addEventListener("click", (e) => { e.preventDefault(); go(to()); });
  }
  for (const a of document.querySelectorAll("#seat-switch a")) {
    a.addEventListener("click", (e) => { e.preventDefault(); go(step, a.dataset.seat); });
  }
  slider.hidden = false;
  slider.addEventListener("input", () => go(Number(slider.value)));
  const keys = {ArrowLeft: () => step - 1, ArrowRight: () => step + 1, Home: () => 0, End: () => total};
  document.addEventListener("keydown", (e) => {
    if (e.target === slider || e.altKey || e.ctrlKey || e.metaKey || !(e.key in keys)) return;
    e.preventDefault();
    go(keys[e.key]());
  });
  document.documentElement.dataset.replay = "ready";
})();
