"""The ledger's ratings: the TrueSkill update of a recorded match (its rows locked in bot
order), the rating tables and histories, and ``recompute`` / ``check``, which rebuild or
replay them from the finished matches to the same floats. Design notes: docs/ledger.md.
"""
from __future__ import annotations

import functools
import json
from collections import defaultdict
from collections.abc import Collection, Iterable

from sqlalchemy import Integer, bindparam, case, delete, func, insert, null, text, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select


from . import rating as rules
from . import summary
from .table import ranked, ratings_query
from .models import (
    FINISHED, Bot, BotSummary, Match, MatchLog, Rating, RatingChange, RatingHistory, RatingRow, Seat,
)
from .ledger_base import (
    PROGRESS_EVERY, LedgerError, Progress, _bot, _game_lock_key, _rating,
)


_RATINGS = (select(_rating.bot_id, _rating.mu, _rating.sigma, _rating.matches, _rating.wins, _rating.place_sum)
            .where(_rating.game == bindparam("game"), _rating.bot_id.in_(bindparam("bot_ids", expanding=True)))
            .order_by(_rating.bot_id))


_RATING_UPDATE = (update(Rating.__table__)
                  .where(_rating.bot_id == bindparam("b"), _rating.game == bindparam("g"))
                  .values(mu=bindparam("mu"), sigma=bindparam("sigma"), matches=bindparam("matches"),
                          wins=bindparam("wins"), place_sum=bindparam("place_sum")))


_RATING_INSERT = insert(Rating.__table__)


_HISTORY_INSERT = insert(RatingHistory.__table__)


@functools.cache
def _line_statement(by_game: bool, by_bots: bool):
    """``Ledger.rating_lines``'s statement, built once for each filter (building it is a good
    part of a small query's time); parameters ``game``, ``bots`` (expanding) and ``points``.

    A rated row's place back from the bot's last rated match is ``matches − rated_n + 1``
    (``rating.matches`` counts the same rated matches), so the thinning is a filter on the index
    ``(bot_id, game, rated_n, mu, sigma)``: no window, no sort, no ``match_log`` row."""
    rh = RatingHistory.__table__.c
    points = bindparam("points", type_=Integer)
    back = _rating.matches - rh.rated_n + 1
    step = (_rating.matches + points - 1) // points
    q = (select(_bot.name, rh.game, back.label("back"), rh.mu, rh.sigma)
         .join_from(RatingHistory.__table__, Bot.__table__, _bot.id == rh.bot_id)
         .join(Rating.__table__, (_rating.bot_id == rh.bot_id) & (_rating.game == rh.game))
         .where(rh.rated_n.is_not(None), (back - 1) % step == 0))
    if by_game:
        q = q.where(rh.game == bindparam("game"))
    if by_bots:
        q = q.where(_bot.name.in_(bindparam("bots", expanding=True)))
    return q



def _fault_log(details, sqlite: bool):
    """A match's fault log from the replay's column: on SQLite the log as JSON text, else the
    whole details."""
    if sqlite:
        return json.loads(details) if isinstance(details, str) else None
    return details.get("faults") if isinstance(details, dict) else None


class RatingsMixin:
    """Ratings: updated with each record, read, rebuilt and checked."""

    def _rate(self, session: Session, game: str, match_id: int, bot_ids: list[int],
              places: list[int], absent: Collection[int] = ()) -> list[tuple[int, bool, float, float, float, float]]:
        """Update the rating rows of one match (``absent``: its absent seats, not rated); returns
        (bot, rated, μ₀, σ₀, μ, σ) per seat."""
        rows = self._lock_ratings(session, game, set(bot_ids))
        start = rules.initial(game)
        current = [(rows[b][0], rows[b][1]) if b in rows else start for b in bot_ids]
        new = rules.rate_match(game, bot_ids, places, current, absent)
        out, history, updates, inserts = [], [], [], []
        for seat, (bot_id, before, after) in enumerate(zip(bot_ids, current, new)):
            rated = after is not None
            rated_n = None
            if rated:
                mu, sigma, matches, wins, place_sum = rows.get(bot_id, (*start, 0, 0, 0))
                rated_n = matches + 1
                row = {"mu": after[0], "sigma": after[1], "matches": matches + 1,
                       "wins": wins + (places[seat] == 1), "place_sum": place_sum + places[seat]}
                if bot_id in rows:
                    updates.append({"b": bot_id, "g": game, **row})
                else:
                    inserts.append({"bot_id": bot_id, "game": game, **row})
            else:
                after = before
            out.append((bot_id, rated, before[0], before[1], after[0], after[1]))
            history.append({"match_id": match_id, "seat": seat, "bot_id": bot_id, "game": game,
                            "rated": rated, "mu_before": before[0], "sigma_before": before[1],
                            "mu": after[0], "sigma": after[1], "rated_n": rated_n})
        if updates:
            session.execute(_RATING_UPDATE, updates)
        for row in inserts:
            self._insert_rating(session, row)
        session.execute(_HISTORY_INSERT, history)
        return out

    def _lock_ratings(self, session: Session, game: str, bot_ids: set[int]) -> dict[int, tuple]:
        """(μ, σ, matches, wins, place sum) of these bots, their rows locked.

        SQLite: ``BEGIN IMMEDIATE`` already serialises every writer. PostgreSQL: first a
        transaction-level advisory lock of the game (``pg_advisory_xact_lock``, released at commit),
        so two processes recording matches of one game take turns: no first rating can be
        inserted twice, and the log's ``seq`` (taken after it) follows the rating order of the game;
        then the rows themselves ``FOR UPDATE``."""
        if self._sqlite:
            q = _RATINGS
        else:
            session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _game_lock_key(game)})
            q = _RATINGS.with_for_update()
        return {bot_id: tuple(rest) for bot_id, *rest in session.execute(q, {"game": game, "bot_ids": sorted(bot_ids)})}

    def _insert_rating(self, session: Session, row: dict) -> None:
        """A bot's first rating in a game. Another process may have inserted it since we read
        (PostgreSQL only: SQLite serialises writers); then our update applies to the start
        values, which is wrong, so the whole record fails and can be retried."""
        try:
            if self._sqlite:
                session.execute(_RATING_INSERT, [row])
            else:
                with session.begin_nested():
                    session.execute(_RATING_INSERT, [row])
        except IntegrityError:
            raise LedgerError(f"the first rating of bot {row['bot_id']} in {row['game']} was written by "
                              "another process at the same moment; record the match again") from None

    def ratings(self, game: str | None = None) -> list[RatingRow]:
        """The rating table: bots with rated matches, by game, best conservative rating first
        (the query and the ranking of table.py, which ``cardarena ratings`` also reads with the
        plain SQLite driver)."""
        sql, params = ratings_query(game)
        with self._read() as session:  # columns, not table objects: a table of 1,000 bots is one fetch
            rows = [tuple(r) for r in session.execute(text(sql), params)]
        return ranked(rows)

    def rating_history(self, bot: str, game: str) -> list[RatingChange]:
        """One bot's rating after each of its matches of a game, in recording order."""
        with self._read() as session:
            b = self._bot_row(session, bot)
            q = (select(RatingHistory).join(MatchLog, MatchLog.match_id == RatingHistory.match_id)
                 .where(RatingHistory.bot_id == b.id, RatingHistory.game == game)
                 .order_by(MatchLog.seq, RatingHistory.seat))
            return [RatingChange(h.seat, bot, game, h.rated, h.mu_before, h.sigma_before, h.mu, h.sigma)
                    for h in session.exec(q)]

    def rating_histories(self, game: str) -> dict[str, list[RatingChange]]:
        """Every bot's :meth:`rating_history` in a game, in one query, every match of it (the
        web draws its charts from :meth:`rating_lines`, bounded)."""
        with self._read() as session:
            q = (select(RatingHistory, Bot.name).join(MatchLog, MatchLog.match_id == RatingHistory.match_id)
                 .join(Bot, Bot.id == RatingHistory.bot_id)
                 .where(RatingHistory.game == game).order_by(MatchLog.seq, RatingHistory.seat))
            out: dict[str, list[RatingChange]] = defaultdict(list)
            for h, name in session.exec(q):
                out[name].append(RatingChange(h.seat, name, game, h.rated, h.mu_before, h.sigma_before, h.mu, h.sigma))
            return dict(out)

    def rating_lines(self, game: str | None = None, bots: Iterable[str] | None = None,
                     points: int = 60) -> dict[tuple[str, str], list[tuple[float, float]]]:
        """Each bot's rating line, bounded: ``(bot, game)`` → (μ, σ) after its rated matches,
        oldest first, at most ``points`` of them, in one query (the web's charts).

        A line longer than ``points`` is thinned in SQL, evenly: with ``n`` rated matches and
        ``k = ⌈n / points⌉``, it keeps every ``k``-th match counted back from the last one, so the
        last (the current rating) is always there, and a chart costs the same for a bot of ten
        matches and one of a hundred thousand. Self-play seats (not rated) are left out.
        ``game`` and ``bots`` (names) restrict it; unknown names have no line.
        """
        if points < 1:
            raise LedgerError(f"a rating line needs at least one point, not {points}")
        kept = _line_statement(game is not None, bots is not None)
        params = {"game": game, "bots": list(bots or ()), "points": points}
        found: dict[tuple[str, str], list[tuple[int, float, float]]] = defaultdict(list)
        with self._read() as session:
            for name, g, back, mu, sigma in session.connection().execute(kept, params).all():
                found[name, g].append((back, mu, sigma))
        # ordered here, not in SQL: sorting a few points per bot costs less than SQLite's sort
        return {key: [(mu, sigma) for _, mu, sigma in sorted(points, reverse=True)] for key, points in found.items()}

    def _replay(self, session: Session, game: str | None, progress: Progress | None = None):
        """Rate every complete finished match again, in recording order, in memory.

        Returns (ratings by (bot, game) as [μ, σ, matches, wins, place sum], history rows by
        (match, seat), the number of matches replayed). ``progress(done, total)`` is called now
        and then (every :data:`PROGRESS_EVERY` matches, and at the end).
        """
        # A forfeited seat's row brings its match's fault log (absent seats are not rated: rule 4),
        # cut out by SQLite itself (as summary.py does); no other row reads the details.
        if self._sqlite:
            log_of = func.json_extract(Match.result_details, "$.faults")
        else:
            log_of = Match.result_details
        q = (select(MatchLog.seq, Match.id, Match.game, Seat.seat, Seat.bot_id, Seat.place,
                    case((Seat.forfeited.is_(True), log_of), else_=null()))
             .join(Match, Match.id == MatchLog.match_id).join(Seat, Seat.match_id == Match.id)
             .where(Match.status == FINISHED))
        if game is not None:
            q = q.where(Match.game == game)
        state: dict[tuple[int, str], list] = {}
        history: dict[tuple[int, int], tuple] = {}
        replayed = 0

        def rate(match_id: int, g: str, seats: list[tuple[int, int, int | None]], fault_log) -> None:
            nonlocal replayed
            bot_ids = [b for _, b, _ in seats]
            places = [p for _, _, p in seats]
            if any(p is None for p in places):  # incomplete: check() reports it
                return
            replayed += 1
            start = rules.initial(g)
            current = [tuple(state[b, g][:2]) if (b, g) in state else start for b in bot_ids]
            new = rules.rate_match(g, bot_ids, places, current, rules.absent_seats(fault_log))
            for (seat, b, place), before, after in zip(seats, current, new):
                if after is not None:
                    row = state.setdefault((b, g), [start[0], start[1], 0, 0, 0])
                    row[0], row[1] = after
                    row[2] += 1
                    row[3] += place == 1
                    row[4] += place
                history[match_id, seat] = (b, g, after is not None, before[0], before[1],
                                           *(after if after is not None else before),
                                           state[b, g][2] if after is not None else None)

        total = 0
        if progress is not None:
            count = select(func.count()).select_from(MatchLog).join(Match, Match.id == MatchLog.match_id) \
                .where(Match.status == FINISHED)
            if game is not None:
                count = count.where(Match.game == game)
            total = session.execute(count).scalar() or 0
            progress(0, total)
        current_id, current_game, seats, fault_log, seen = None, None, [], None, 0
        for _seq, match_id, g, seat, bot_id, place, details in session.execute(q.order_by(MatchLog.seq, Seat.seat)):
            if match_id != current_id:
                if current_id is not None:
                    rate(current_id, current_game, seats, fault_log)
                    seen += 1
                    if progress is not None and seen % PROGRESS_EVERY == 0:
                        progress(seen, total)
                current_id, current_game, seats, fault_log = match_id, g, [], None
            seats.append((seat, bot_id, place))
            if details is not None and fault_log is None:
                fault_log = _fault_log(details, self._sqlite)
        if current_id is not None:
            rate(current_id, current_game, seats, fault_log)
            seen += 1
        if progress is not None:
            progress(seen, max(total, seen))
        return state, history, replayed

    def recompute(self, game: str | None = None, progress: Progress | None = None) -> int:
        """Rebuild ratings and rating history from the finished matches, in recording order.

        Returns the number of matches replayed. The numbers are exactly those stored by
        ``record_match`` (``check`` verifies it without writing). ``progress(done, total)``
        follows the replay (the writes that follow it are one bulk insert). The bots' summaries
        (of the game, or all) are rebuilt from the facts too (:func:`.summary.rebuild`).
        """
        with self._write() as session:
            state, history, replayed = self._replay(session, game, progress)
            hist_delete, rating_delete = delete(RatingHistory), delete(Rating)
            if game is not None:
                hist_delete = hist_delete.where(RatingHistory.game == game)
                rating_delete = rating_delete.where(Rating.game == game)
            session.execute(hist_delete)
            session.execute(rating_delete)
            if state:
                session.execute(insert(Rating), [
                    {"bot_id": b, "game": g, "mu": mu, "sigma": sigma, "matches": m, "wins": w, "place_sum": ps}
                    for (b, g), (mu, sigma, m, w, ps) in state.items()])
            if history:
                session.execute(insert(RatingHistory), [
                    {"match_id": match_id, "seat": seat, "bot_id": b, "game": g, "rated": rated,
                     "mu_before": mb, "sigma_before": sb, "mu": mu, "sigma": sigma, "rated_n": n}
                    for (match_id, seat), (b, g, rated, mb, sb, mu, sigma, n) in sorted(history.items())])
            summary.rebuild(session.connection(), game)
            return replayed

    def check(self, progress: Progress | None = None) -> list[str]:
        """Every problem found in the ledger; empty when it is healthy. Writes nothing.

        ``progress(done, total)`` follows the replay of the ratings, its long part."""
        problems: list[str] = []
        with self._read() as session:
            if self._sqlite:  # the file itself first: on a damaged one, nothing below is worth reading
                damage = [line for (row,) in session.execute(text("PRAGMA quick_check(20)"))
                          for line in str(row).splitlines() if not line.startswith("*** ")]
                if damage != ["ok"]:
                    return [f"the database file is damaged: {d}" for d in damage]
            # Every finished match is complete: all seats placed, a log; nothing else has one.
            for match_id, status, seat, place, score, fault, forfeit in session.execute(
                    select(Match.id, Match.status, Seat.seat, Seat.place, Seat.score, Seat.faults, Seat.forfeited)
                    .join(Seat, Seat.match_id == Match.id, isouter=True)
                    .where(Match.status == FINISHED).order_by(Match.id, Seat.seat)):
                if seat is None:
                    problems.append(f"match {match_id} is finished but has no seats")
                elif place is None or score is None or fault is None or forfeit is None:
                    problems.append(f"match {match_id} is finished but seat {seat} has no result")
            logged = select(MatchLog.match_id)
            for (match_id,) in session.execute(select(Match.id).where(Match.status == FINISHED,
                                                                      Match.id.not_in(logged))):
                problems.append(f"match {match_id} is finished but has no event log")
            for match_id, status in session.execute(select(Match.id, Match.status).where(
                    Match.status != FINISHED, Match.id.in_(logged))):
                problems.append(f"match {match_id} is {status} but has an event log")
            for match_id, status in session.execute(select(Match.id, Match.status).where(
                    Match.status != FINISHED, Match.id.in_(select(RatingHistory.match_id)))):
                problems.append(f"match {match_id} is {status} but has rating history")
            problems += self._pruned_problems(session)  # a pruned match keeps an empty log (ledger_prune)
            seat_counts = dict(session.execute(select(Seat.match_id, func.count()).group_by(Seat.match_id)).all())
            for match_id, n in session.execute(select(RatingHistory.match_id, func.count())
                                               .group_by(RatingHistory.match_id)):
                if n > seat_counts.get(match_id, 0):
                    problems.append(f"match {match_id} is counted {n} times for {seat_counts.get(match_id, 0)} seats")

            # The ratings and their history are what the finished matches give, to the last bit.
            state, history, _ = self._replay(session, None, progress)
            names = dict(session.execute(select(Bot.id, Bot.name)).all())
            stored = {(r.bot_id, r.game): r for r in session.exec(select(Rating))}
            for key in sorted(stored.keys() | state.keys(), key=lambda k: (k[1], names.get(k[0], ""))):
                bot_id, g = key
                who = f"{names.get(bot_id, bot_id)} in {g}"
                row, want = stored.get(key), state.get(key)
                if want is None:
                    if row.matches or (row.mu, row.sigma) != rules.initial(g):
                        problems.append(f"rating of {who} is stored but no finished match gives it")
                elif row is None:
                    problems.append(f"rating of {who} is missing (recompute would give μ={want[0]!r})")
                else:
                    have = [row.mu, row.sigma, row.matches, row.wins, row.place_sum]
                    if have != want:
                        diff = ", ".join(f"{k} {h!r} ≠ {w!r}" for k, h, w in
                                         zip(("μ", "σ", "matches", "wins", "place sum"), have, want) if h != w)
                        problems.append(f"rating of {who} differs from its recomputation: {diff}")
            stored_history = {(h.match_id, h.seat): (h.bot_id, h.game, h.rated, h.mu_before, h.sigma_before,
                                                     h.mu, h.sigma, h.rated_n)
                              for h in session.exec(select(RatingHistory))}
            wrong = sorted({m for m, _ in stored_history.keys() ^ history.keys()} |
                           {k[0] for k in stored_history.keys() & history.keys() if stored_history[k] != history[k]})
            for match_id in wrong:
                problems.append(f"rating history of match {match_id} differs from its recomputation")

            # The bots' summaries are what the finished seats add up to (ratings/summary.py).
            conn = session.connection()
            want_sums = summary.from_facts(conn)
            have_sums = {(r.bot_id, r.game): dict(r._mapping) for r in conn.execute(select(*BotSummary.__table__.c))}
            for key in sorted(have_sums.keys() | want_sums.keys(), key=lambda k: (k[1], names.get(k[0], ""))):
                if have_sums.get(key) != want_sums.get(key):
                    problems.append(f"summary of {names.get(key[0], key[0])} in {key[1]} differs from its "
                                    "finished seats (`ratings recompute` rebuilds it)")
        return problems
