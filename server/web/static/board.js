// A leaderboard that follows its ladder: while this server runs a ladder of the game, the page's
// #board carries data-follow (the URL of the same table as an HTML fragment) and data-poll (the
// seconds between fetches). The table is fetched again that often, while the tab is visible, and
// put in when it changed, so ranks, ratings and states move as matches finish, without a reload.
// Without JavaScript the page is the table as of its load.
"use strict";
(() => {
  const board = document.getElementById("board");
  if (!board || !board.dataset.follow) return;
  const every = 1000 * Math.max(1, Number(board.dataset.poll) || 3);
  let shown = "";  // the last table fetched (the first fetch is put in as it comes)
  let updates = 0;

  async function poll() {
    if (!document.hidden) {
      try {
        const r = await fetch(board.dataset.follow, { headers: { Accept: "text/html" } });
        if (r.ok) {
          const html = await r.text();
          if (html !== shown) {
            board.innerHTML = shown = html;
            board.dataset.updates = String(++updates);
          }
          delete board.dataset.error;
        } else {
          board.dataset.error = `${r.status}`;
        }
      } catch (e) {
        board.dataset.error = String(e);
      }
    }
    setTimeout(poll, every);
  }

  for (const note of document.querySelectorAll(".ladder .follow")) note.hidden = false;
  document.documentElement.dataset.board = "following";
  setTimeout(poll, every);
})();
