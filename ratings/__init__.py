"""cardarena's ledger: bots, leagues, matches and their event logs, with TrueSkill ratings per game.

    from cardarena.ratings import Ledger, MatchPlan, format_ratings
    led = Ledger("./cardarena.db")
    bot, token = led.add_bot("alice")
    print(format_ratings(led.ratings("sixth-card"), "table"))

:mod:`~cardarena.ratings.ledger` is the ledger (how matches are scheduled, claimed, recorded,
and how several processes share one database), :mod:`~cardarena.ratings.rating` the rating rules,
:mod:`~cardarena.ratings.models` the tables, :mod:`~cardarena.ratings.report` the output formats,
:mod:`~cardarena.ratings.table` the rating table's rows and their light read,
:mod:`~cardarena.ratings.standings` the standings inside one league.

The names below are imported on first use (PEP 562), so that importing the package, or a light
module of it (``table``, ``report``, ``schema``), does not import SQLAlchemy and SQLModel: a
short command such as ``cardarena ratings`` would spend most of its time there. The package's
``standings`` is the function, as it always was, also once its module has been imported.
"""
import importlib
import sys
import types

#: Each exported name and the module it comes from.
_FROM = {
    **dict.fromkeys(("Ledger", "LedgerError", "LedgerStorageError", "LedgerUnreachable", "LedgerVersionError",
                     "hash_token"), "ledger"),
    **dict.fromkeys(("FAILED", "FINISHED", "RUNNING", "SCHEDULED", "STATUSES", "BotInfo", "LeagueInfo",
                     "MatchDetail", "MatchInfo", "MatchPlan", "RatingChange", "SeatResults"), "models"),
    "RatingRow": "table", "update": "rating",
    **dict.fromkeys(("FORMATS", "format_ratings", "rich_table"), "report"),
    **dict.fromkeys(("LeagueStandings", "standings"), "standings"),
}

__all__ = list(_FROM)


def __getattr__(name: str):
    module = _FROM.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


class _Package(types.ModuleType):
    """The package, whose ``standings`` stays the function when the import system binds the
    submodule of that name on it (``import cardarena.ratings.standings``)."""

    def __setattr__(self, name: str, value) -> None:
        if name == "standings" and isinstance(value, types.ModuleType):
            value = value.standings
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
