// The live page: follows the match's server-sent events (/api/v1/matches/{id}/live) and, after
// each frame, puts in the table drawn by the server (/matches/{id}/live/table, the same drawing as
// the page's own) without reloading. At most one fetch is in flight; frames that come meanwhile
// are folded into one more fetch (the latest table is what counts). At the end the stream is
// closed and the table shows the links to the match page and its replay.
"use strict";
(() => {
  const holder = document.getElementById("live-holder");
  const status = document.getElementById("live-status");
  if (!holder || !window.EventSource) return;
  const match = holder.dataset.match;
  let busy = false;
  let again = false;

  async function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      do {
        again = false;
        const r = await fetch(`/matches/${match}/live/table`, { headers: { Accept: "text/html" } });
        if (r.ok) {
          holder.innerHTML = await r.text();
          delete holder.dataset.error;
        } else {
          holder.dataset.error = `${r.status}`;
        }
      } while (again);
    } catch (e) {
      holder.dataset.error = String(e);
    } finally {
      busy = false;
    }
  }

  const source = new EventSource(`/api/v1/matches/${match}/live`);
  source.addEventListener("frame", (e) => {
    const step = JSON.parse(e.data).step;
    status.textContent = `playing now: step ${step}`;
    refresh();
  });
  source.addEventListener("end", (e) => {
    source.close();
    const end = JSON.parse(e.data);
    status.textContent = `ended (${end.status}) after ${end.steps} steps`;
    refresh();
  });
  source.onerror = () => { status.textContent = "connection lost; trying again"; };
  document.documentElement.dataset.live = "following";
})();
