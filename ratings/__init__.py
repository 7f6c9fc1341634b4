"""cardarena's ledger: bots, leagues, matches and their event logs, with TrueSkill ratings per game.

    from cardarena.ratings import Ledger, MatchPlan, format_ratings
    led = Ledger("./cardarena.db")
    bot, token = led.add_bot("alice")
    print(format_ratings(led.ratings("sixth-card"), "table"))

:mod:`~cardarena.ratings.ledger` is the ledger (how matches are scheduled, claimed, recorded,
and how several processes share one database), :mod:`~cardarena.ratings.rating` the rating rules,
:mod:`~cardarena.ratings.models` the tables, :mod:`~cardarena.ratings.report` the output formats,
:mod:`~cardarena.ratings.standings` the standings inside one league.
"""
from .ledger import Ledger, LedgerError, LedgerStorageError, LedgerUnreachable, LedgerVersionError, hash_token
from .models import (
    FAILED, FINISHED, RUNNING, SCHEDULED, STATUSES, BotInfo, LeagueInfo, MatchDetail, MatchInfo, MatchPlan,
    RatingChange, RatingRow, SeatResults,
)
from .rating import update
from .report import FORMATS, format_ratings, rich_table
from .standings import LeagueStandings, standings

__all__ = [
    "Ledger", "LedgerError", "LedgerStorageError", "LedgerUnreachable", "LedgerVersionError", "hash_token", "BotInfo", "LeagueInfo", "MatchDetail", "MatchInfo", "MatchPlan",
    "RatingChange", "RatingRow", "SCHEDULED", "RUNNING", "FINISHED", "FAILED", "STATUSES", "update",
    "FORMATS", "format_ratings", "rich_table", "SeatResults", "LeagueStandings", "standings",
]
