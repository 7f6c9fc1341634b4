"""Ratings that explain themselves (``cardarena ratings --explain BOT``): what
each recent rated match did to a bot's rating, and why, in plain words.

:func:`read` takes a bot's last rated matches from the ledger, newest first in the rating order
(``match_log.seq``), each with every seat's place and rating before and after
(``rating_history``); SQLAlchemy Core over the models' tables, so SQLite and PostgreSQL alike.
:func:`explain` is pure over those rows: one :class:`Explanation` per match, and
:func:`format_text` prints them.

The reason is told the way TrueSkill reasons (:mod:`.rating`, rules 2 and 3): the result
opponent by opponent; the expectation (the chance of finishing ahead of each rated opponent,
summed into an expected score); the neighbours in place order when μ goes the other way; σ and
the shown rating μ − 3σ; and the matches TrueSkill could not compute (rule 7) or did not rate
(rules 4 and 5: an absent seat, self-play).

Design notes and measurements: docs/ledger.md (explain).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from statistics import NormalDist

from .rating import absent_seats, conservative, settings

_N = NormalDist()


@dataclass(frozen=True)
class SeatRow:
    """One seat of a match as the ledger holds it: its bot, place and rating before and after."""

    seat: int
    bot: str
    place: int
    rated: bool
    mu_before: float
    sigma_before: float
    mu: float
    sigma: float
    absent: bool = False  # its bot never connected during the match (not rated: rule 4)


@dataclass(frozen=True)
class MatchRows:
    """One rated match of the explained bot, every seat of it."""

    match_id: int
    game: str
    finished_at: datetime | None
    seats: list[SeatRow]


@dataclass(frozen=True)
class Opponent:
    """Another seat of the match, as the explained bot met it."""

    bot: str
    place: int
    mu: float          # before the match
    sigma: float
    rated: bool        # False: absent, or a seat of a bot that held several seats (not counted)
    result: str        # "beat", "drew with" or "lost to": what the explained bot did
    expected: float | None  # the bot's chance of finishing ahead of it (a draw ½); None if not rated
    absent: bool = False  # its bot never connected during the match (rule 4)

    @property
    def conservative(self) -> float:
        return conservative(self.mu, self.sigma)


@dataclass(frozen=True)
class Explanation:
    """What one match did to the explained bot's rating, and why."""

    match_id: int
    game: str
    finished_at: datetime | None
    bot: str
    seat: int
    place: int
    seats: int
    mu_before: float
    sigma_before: float
    mu: float
    sigma: float
    opponents: list[Opponent] = field(default_factory=list)
    score: float = 0.0      # against the rated opponents: a win 1, a draw ½
    expected: float = 0.0   # what TrueSkill expected of that score
    reason: str = ""

    @property
    def conservative_before(self) -> float:
        return conservative(self.mu_before, self.sigma_before)

    @property
    def conservative(self) -> float:
        return conservative(self.mu, self.sigma)

    @property
    def change(self) -> float:
        """The change of the shown (conservative) rating, μ − 3σ."""
        return self.conservative - self.conservative_before

    def to_json(self) -> dict:
        d = asdict(self)
        d["finished_at"] = self.finished_at.isoformat() if self.finished_at else None
        d.update(conservative_before=self.conservative_before, conservative=self.conservative, change=self.change)
        for o, obj in zip(d["opponents"], self.opponents):
            o["conservative"] = obj.conservative
        return d


# --------------------------------------------------------------------------------- reading


def read(ledger, bot: str, game: str | None = None, last: int = 10) -> list[MatchRows]:
    """The last ``last`` rated matches of ``bot`` (of ``game``, or of every game), newest first
    in the rating order, with every seat's rows. An unknown bot is the ledger's ``LedgerError``."""
    from sqlalchemy import bindparam, select

    from .models import Bot, Match, MatchLog, RatingHistory, Seat

    h, log, m, s, b = (RatingHistory.__table__.c, MatchLog.__table__.c, Match.__table__.c, Seat.__table__.c,
                       Bot.__table__.c)
    bot_id = ledger.bot(bot).id
    recent = (select(h.match_id, h.game, m.finished_at)
              .join_from(RatingHistory.__table__, MatchLog.__table__, log.match_id == h.match_id)
              .join(Match.__table__, m.id == h.match_id)
              .where(h.bot_id == bot_id, h.rated.is_(True))
              .order_by(log.seq.desc()).limit(max(0, last)))
    if game is not None:
        recent = recent.where(h.game == game)
    seats = (select(h.match_id, h.seat, b.name, s.place, h.rated, h.mu_before, h.sigma_before, h.mu, h.sigma)
             .join_from(RatingHistory.__table__, Seat.__table__, (s.match_id == h.match_id) & (s.seat == h.seat))
             .join(Bot.__table__, b.id == h.bot_id)
             .where(h.match_id.in_(bindparam("ids", expanding=True))).order_by(h.match_id, h.seat))
    forfeits = (select(m.id, m.result_details)  # the fault logs that may name absent seats
                .where(m.id.in_(bindparam("ids", expanding=True)),
                       m.id.in_(select(s.match_id).where(s.forfeited.is_(True)))))
    with ledger.engine.connect() as conn:
        matches = conn.execute(recent).all()
        ids = {"ids": [r[0] for r in matches]}
        absent = {match_id: absent_seats((details or {}).get("faults"))
                  for match_id, details in conn.execute(forfeits, ids)}
        by_match: dict[int, list[SeatRow]] = {}
        for match_id, *row in conn.execute(seats, ids):
            by_match.setdefault(match_id, []).append(SeatRow(*row, absent=row[0] in absent.get(match_id, ())))
    return [MatchRows(match_id, g, finished_at, by_match.get(match_id, [])) for match_id, g, finished_at in matches]


# --------------------------------------------------------------------------------- explaining


def chance_ahead(game: str, me: tuple[float, float], other: tuple[float, float]) -> float:
    """TrueSkill's chance that ``me`` (μ, σ) finishes ahead of ``other``, a draw counted ½
    (module docstring: performances N(μ, σ² + β²), draw margin of the game's draw probability)."""
    s = settings(game)
    beta = s["beta"]
    margin = _N.inv_cdf((s["draw_probability"] + 1) / 2) * math.sqrt(2) * beta
    spread = math.sqrt(2 * beta ** 2 + me[1] ** 2 + other[1] ** 2)
    gap = me[0] - other[0]
    win = 1 - _N.cdf((margin - gap) / spread)
    draw = _N.cdf((margin - gap) / spread) - _N.cdf((-margin - gap) / spread)
    return win + draw / 2


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _names(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _signed(delta: float) -> str:
    return f"{0.0 if abs(delta) < 0.005 else delta:+.2f}"  # never "-0.00"


def _moved(delta: float) -> str:
    return f"rose {delta:.2f}" if delta > 0 else f"fell {-delta:.2f}"


def explain(match: MatchRows, bot: str) -> Explanation:
    """The explanation of what ``match`` did to ``bot``'s rating (module docstring). Pure."""
    me = next(s for s in match.seats if s.bot == bot and s.rated)
    opponents = []
    for o in match.seats:
        if o.seat == me.seat:
            continue
        result = "beat" if me.place < o.place else "lost to" if me.place > o.place else "drew with"
        expected = (chance_ahead(match.game, (me.mu_before, me.sigma_before), (o.mu_before, o.sigma_before))
                    if o.rated else None)
        opponents.append(Opponent(o.bot, o.place, o.mu_before, o.sigma_before, o.rated, result, expected,
                                  o.absent))
    counted = [o for o in opponents if o.rated]
    score = sum(1.0 if o.result == "beat" else 0.5 if o.result == "drew with" else 0.0 for o in counted)
    expected = sum(o.expected for o in counted)
    base = Explanation(match.match_id, match.game, match.finished_at, bot, me.seat, me.place, len(match.seats),
                       me.mu_before, me.sigma_before, me.mu, me.sigma, opponents, score, expected)
    return replace(base, reason=_reason(base))


def _reason(e: Explanation) -> str:
    """The plain-words reason of an explanation (its every figure but the reason filled in)."""
    def compared(o: Opponent) -> str:
        if not o.rated:
            return f"{o.bot} ({'absent, ' if o.absent else ''}not rated)"
        return f"{o.bot} ({'higher' if o.mu > e.mu_before else 'lower' if o.mu < e.mu_before else 'equal'} μ)"

    tied = any(o.result == "drew with" for o in e.opponents)
    results = [f"{verb} {_names([compared(o) for o in e.opponents if o.result == verb])}"
               for verb in ("beat", "drew with", "lost to") if any(o.result == verb for o in e.opponents)]
    head = f"{'tied ' if tied else ''}{ordinal(e.place)} of {e.seats}: " + ", ".join(results)
    d_mu, d_sigma, d_shown = e.mu - e.mu_before, e.sigma - e.sigma_before, e.change
    if abs(d_mu) < 5e-7 and abs(d_sigma) < 5e-7:
        return head + "; TrueSkill could not compute so unlikely a result (rule 7): μ and σ stay as they were"
    n = sum(o.rated for o in e.opponents)
    expect = (f"it scored {e.score:g} of {n} against the table (a win 1, a draw ½) where TrueSkill expected "
              f"{e.expected:.2f}")
    better = e.score > e.expected
    if abs(d_mu) < 0.005 or not n:
        mu_words = "μ barely moved" if abs(d_mu) < 0.005 else f"μ {_moved(d_mu)}"
    elif (d_mu > 0) == better:
        mu_words = f"{'better' if better else 'worse'} than expected, so μ {_moved(d_mu)}"
    else:
        mu_words = (f"μ {_moved(d_mu)} all the same: TrueSkill compares a seat with those placed next to it, "
                    f"here {_names(_neighbours(e))}")
    shown = f"μ − 3σ {_moved(d_shown)}" if abs(d_shown) >= 0.005 else "μ − 3σ stayed"
    if d_sigma < 0:
        sigma_words = f"σ fell {-d_sigma:.2f} (more certain)"
    else:
        sigma_words = f"σ rose {d_sigma:.2f} (TrueSkill's τ adds a little uncertainty every match)"
    against = abs(d_shown) >= 0.005 and abs(d_mu) >= 0.005 and (d_shown > 0) != (d_mu > 0)
    tail = f"{sigma_words}, so the shown rating {shown}{' although μ ' + _moved(d_mu).split()[0] if against else ''}"
    return f"{head}; {expect}: {mu_words}; {tail}"


def _neighbours(e: Explanation) -> list[str]:
    """The rated seats placed next to the bot: the nearest place above, the nearest below, and
    its own place (a tie)."""
    rated = [o for o in e.opponents if o.rated]
    above = [o.place for o in rated if o.place < e.place]
    below = [o.place for o in rated if o.place > e.place]
    near = {max(above, default=None), min(below, default=None), e.place}
    return [f"{o.bot} ({'tied' if o.place == e.place else ordinal(o.place)})" for o in rated if o.place in near]


def explain_all(matches: Sequence[MatchRows], bot: str) -> list[Explanation]:
    return [explain(m, bot) for m in matches]


# --------------------------------------------------------------------------------- text


def format_text(explanations: Sequence[Explanation]) -> str:
    """Each match as a block: its id, game and time; the table's seats by place with their
    ratings before (the bot's own line before → after); the reason."""
    blocks = []
    for e in explanations:
        when = e.finished_at.strftime("%Y-%m-%d %H:%M UTC") if e.finished_at else "time unknown"
        tied = "tied " if any(o.place == e.place for o in e.opponents) else ""
        lines = [f"match {e.match_id} · {e.game} · {when} · {e.bot} {tied}{ordinal(e.place)} of {e.seats}: "
                 f"μ − 3σ {e.conservative_before:.2f} → {e.conservative:.2f} ({_signed(e.change)})"]
        width = max(len(o.bot) for o in [*e.opponents, e]) if e.opponents else len(e.bot)
        moved = f"(μ {_signed(e.mu - e.mu_before)}, σ {_signed(e.sigma - e.sigma_before)})"
        rows = [(e.place, 0, e.bot, e.mu_before, e.sigma_before, f"→ μ {e.mu:.2f}  σ {e.sigma:.2f}  {moved}")]
        rows += [(o.place, 1, o.bot, o.mu, o.sigma, "" if o.rated else "not rated: absent (never connected)"
                  if o.absent else "not rated: its bot held several seats") for o in e.opponents]
        for place, _, name, mu, sigma, note in sorted(rows, key=lambda r: (r[0], r[1], r[2])):
            lines.append(f"  {ordinal(place):>4}  {name:<{width}}  μ {mu:6.2f}  σ {sigma:5.2f}  "
                         f"μ − 3σ {conservative(mu, sigma):6.2f}  {note}".rstrip())
        lines.append("  " + e.reason[0].upper() + e.reason[1:] + ".")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
