// The live page: follows the match's server-sent events (the holder's data-stream,
// /api/v1/matches/{id}/live with its pace) and, after each frame, puts in the table drawn by the
// server (/matches/{id}/live/table, the same drawing as the page's own) without reloading. At a
// pace (data-pace above 0) each frame's own step is drawn (?step=K), as the stream plays it;
// as it is played (pace 0) the latest table is what counts, so at most one fetch is in flight
// and frames that come meanwhile are folded into one more. At the end the stream is closed and
// the table shows the links to the match page and its replay.
"use strict";
(() => {
  const holder = document.getElementById("live-holder");
  const status = document.getElementById("live-status");
  if (!holder || !window.EventSource) return;
  const match = holder.dataset.match;
  const pace = holder.dataset.pace || "0";
  const paced = Number(pace) > 0;
  const table = `/matches/${match}/live/table?pace=${pace}`;
  let busy = false;
  let again = null;  // the URL still to fetch once the fetch in flight is done

  async function refresh(url) {
    if (busy) { again = url; return; }
    busy = true;
    try {
      while (url) {
        again = null;
        const r = await fetch(url, { headers: { Accept: "text/html" } });
        if (r.ok) {
          holder.innerHTML = await r.text();
          delete holder.dataset.error;
        } else {
          holder.dataset.error = `${r.status}`;
        }
        url = again;
      }
    } catch (e) {
      holder.dataset.error = String(e);
    } finally {
      busy = false;
    }
  }

  const source = new EventSource(holder.dataset.stream || `/api/v1/matches/${match}/live?pace=${pace}`);
  source.addEventListener("frame", (e) => {
    const step = JSON.parse(e.data).step;
    status.textContent = paced ? `step ${step}, ${pace} s a step` : `playing now: step ${step}`;
    refresh(paced ? `${table}&step=${step}` : table);
  });
  source.addEventListener("end", (e) => {
    source.close();
    const end = JSON.parse(e.data);
    status.textContent = `ended (${end.status}) after ${end.steps} steps`;
    refresh(paced ? `${table}&step=${end.steps}` : table);
  });
  source.onerror = () => { status.textContent = "connection lost; trying again"; };
  document.documentElement.dataset.live = "following";
})();
