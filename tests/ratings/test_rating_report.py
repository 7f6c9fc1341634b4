"""The rating table formats (cardarena.ratings.report)."""
from __future__ import annotations

import csv
import io
import json

import pytest

from cardarena.ratings import FORMATS, RatingRow, format_ratings, rich_table

ROWS = [RatingRow(1, "alice", "scout", 30.123456, 1.5, 25.623456, 40, 22, 1.6),
        RatingRow(2, "bob", "scout", 25.0, 2.25, 18.25, 39, 10, 2.41666666)]
TWO_GAMES = ROWS + [RatingRow(1, "bob", "sixth-card", 27.0, 3.0, 18.0, 5, 2, 2.0)]


def test_the_table_is_aligned_text_with_two_decimals():
    text = format_ratings(ROWS, "table")
    lines = text.splitlines()
    assert lines[0].split() == ["rank", "bot", "μ", "σ", "μ", "−", "3σ", "matches", "wins", "mean", "place"]
    assert lines[2].split() == ["1", "alice", "30.12", "1.50", "25.62", "40", "22", "1.60"]
    assert lines[3].split() == ["2", "bob", "25.00", "2.25", "18.25", "39", "10", "2.42"]
    assert len(lines[2]) == len(lines[3]) == len(lines[0])  # right-aligned numbers end together
    assert "game" not in lines[0]


def test_a_game_column_appears_when_several_games_are_listed():
    for fmt in ("table", "markdown"):
        text = format_ratings(TWO_GAMES, fmt)
        assert "game" in text.splitlines()[0] and "sixth-card" in text
        assert "game" not in format_ratings(ROWS, fmt).splitlines()[0]


def test_markdown():
    lines = format_ratings(ROWS, "markdown").splitlines()
    assert lines[0] == "| rank | bot | μ | σ | μ − 3σ | matches | wins | mean place |"
    assert lines[1] == "|---:|:---|---:|---:|---:|---:|---:|---:|"
    assert lines[2] == "| 1 | alice | 30.12 | 1.50 | 25.62 | 40 | 22 | 1.60 |"
    assert len(lines) == 4


def test_json_keeps_full_precision_and_the_game():
    data = json.loads(format_ratings(ROWS, "json"))
    assert data[1] == {"rank": 2, "bot": "bob", "game": "scout", "mu": 25.0, "sigma": 2.25, "conservative": 18.25,
                       "matches": 39, "wins": 10, "mean_place": 2.41666666, "absent": 0}
    assert json.loads(format_ratings([], "json")) == []


def test_csv_keeps_full_precision_and_the_game():
    rows = list(csv.DictReader(io.StringIO(format_ratings(ROWS, "csv"))))
    assert list(rows[0]) == ["rank", "bot", "game", "mu", "sigma", "conservative", "matches", "wins", "mean_place",
                             "absent"]
    assert float(rows[0]["mu"]) == 30.123456 and float(rows[1]["mean_place"]) == 2.41666666
    assert rows[1]["bot"] == "bob" and rows[1]["game"] == "scout"


def test_empty_tables_and_unknown_formats():
    assert "no rated matches" in format_ratings([], "table")
    assert format_ratings([], "csv").strip() == "rank,bot,game,mu,sigma,conservative,matches,wins,mean_place,absent"
    assert set(FORMATS) == {"table", "json", "csv", "markdown"}
    with pytest.raises(ValueError, match="unknown format 'xml'"):
        format_ratings(ROWS, "xml")


def test_the_rich_table_has_the_same_columns():
    table = rich_table(TWO_GAMES, title="ratings")
    assert [c.header for c in table.columns] == ["rank", "bot", "game", "μ", "σ", "μ − 3σ", "matches", "wins",
                                                 "mean place"]
    assert table.row_count == 3


def test_an_absent_column_appears_when_a_bot_was_absent():
    """A bot absent from matches (not rated: rating rule 4) is marked with their count; the
    column is there only when some bot was absent, and the machine formats always have it."""
    rows = [ROWS[0], RatingRow(2, "bob", "scout", 25.0, 2.25, 18.25, 39, 10, 2.41666666, 3)]
    lines = format_ratings(rows, "table").splitlines()
    assert lines[0].split()[-1] == "absent" and lines[3].split()[-1] == "3"
    assert lines[2].split()[-1] == "1.60", "a bot never absent has no mark"
    assert format_ratings(rows, "markdown").splitlines()[3].endswith("| 2.42 | 3 |")
    assert "absent" not in format_ratings(ROWS, "table")
    assert json.loads(format_ratings(rows, "json"))[1]["absent"] == 3
    assert list(csv.DictReader(io.StringIO(format_ratings(rows, "csv"))))[1]["absent"] == "3"
