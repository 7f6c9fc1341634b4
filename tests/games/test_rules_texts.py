"""The rules texts as `cardarena rules` prints them (server/games/rules/): nothing lost, nothing extra.

The transcribed texts lost three lists and one section body; the packaged texts print each where
it stood, rebuilt from its ruling and marked so: Sixth Card's penalty table (RULINGS C1), the
Unsorted cards and kinds (U1, U2; English and German), SCOUT's "Show, Scout, or do both" (O3).
`rules scouting` prints only the Scouting variant at the end of the Unsorted texts (S1–S8 say the
game is that variant). Every test drives the CLI in-process (the ``cli`` fixture).
"""
from __future__ import annotations

import re

import pytest

from cardarena.server.games import games
from cardarena.server.games.cards import parse_card
from cardarena.server.games.sixth_card import PENALTY
from cardarena.server.games.unsorted import KIND_NAME

REBUILT = {"en": ("[rebuilt from RULINGS {tag}: ", "[end of the rebuilt "),
           "de": ("[wiederhergestellt nach RULINGS {tag}: ", "[Ende der wiederhergestellten ")}


def rules(cli, *argv) -> str:
    code, out, err = cli("rules", *argv)
    assert code == 0, err
    return out


def rebuilt(text: str, after: str, tag: str, lang: str = "en") -> list[str]:
    """The lines of the rebuilt block that stands right after the line ``after`` (blank lines
    between them only), without its two marker lines."""
    lines = text.splitlines()
    i = lines.index(after) + 1
    while not lines[i].strip():
        i += 1
    start, end = REBUILT[lang]
    assert lines[i].startswith(start.format(tag=tag)), f"no rebuilt {tag} after {after!r}: {lines[i]!r}"
    j = next(k for k in range(i, len(lines)) if lines[k].startswith(end))
    return lines[i + 1:j]


def test_C1_sixth_card_prints_the_rebuilt_penalty_table_that_matches_the_engine(cli):
    """C1: after "Every card is worth penalty points – most only 1:" the text lost its table; it
    is printed rebuilt and marked, and it gives every card of the deck exactly the points the
    engine counts (79 a deck); the rest of the section follows it."""
    out = rules(cli, "sixth-card")
    table = rebuilt(out, "Every card is worth penalty points – most only 1:", "C1")
    points: dict[int, int] = {}
    for line in table:
        m = re.fullmatch(r"• (\d+) points?: (.*)", line)
        if not m:
            assert line == "One deck holds 79 penalty points in all." and sum(PENALTY) == 79
            continue
        for rank, suit in re.findall(r"(10|[2-9AJQK])([♣♦♥♠]?)", m[2]):
            for s in suit or "♣♦♥♠":
                card = parse_card(rank + s)
                assert card not in points, f"{rank}{s} is listed twice"
                points[card] = int(m[1])
    assert points == dict(enumerate(PENALTY))
    assert out.index("[end of the rebuilt table]") < out.index("Easy to remember: number cards 1")


UNSORTED = {
    "en": ("All 54 cards are used:",
           "A combination is one, two or three cards that sit side by side in your hand. From weakest "
           "to strongest:",
           ("J = 11", "Q = 12", "• 2 jokers: any number from 1 to 12"),
           [KIND_NAME[k] for k in range(1, 6)]),
    "de": ("Alle 54 Karten kommen ins Spiel:",
           "Eine Kombination besteht aus einer, zwei oder drei Karten, die nebeneinander in deiner "
           "Hand stecken. Von schwach nach stark:",
           ("B (Bube) = 11", "D (Dame) = 12", "• 2 Joker: jede Zahl von 1 bis 12"),
           ["Einzelkarte", "Zweierfolge", "Paar", "Dreierfolge", "Drilling"]),
}


@pytest.mark.parametrize("lang", UNSORTED)
def test_U1_U2_unsorted_prints_the_rebuilt_cards_and_kinds(cli, lang):
    """U1: the lost list of the 54 cards (A = 1 … Q = 12, four of each; K♠ K♣ Stop, K♥ K♦ Draw;
    2 jokers 1–12); U2: the lost list of kinds, weakest first, in the engine's order (single <
    two-run < pair < three-run < three of a kind); both printed rebuilt and marked, in English and
    in German."""
    cards_line, kinds_line, (jack, queen, jokers), kinds = UNSORTED[lang]
    out = rules(cli, "unsorted", "--lang", lang)
    cards = rebuilt(out, cards_line, "U1", lang)
    assert len(cards) == 4 and "(48 " in cards[0] and "A = 1" in cards[0]
    assert jack in cards[0] and queen in cards[0] and cards[3] == jokers
    assert cards[1].endswith(": K♠ K♣") and cards[2].endswith(": K♥ K♦")
    listed = rebuilt(out, kinds_line, "U2", lang)
    assert [re.fullmatch(r"\d\. ([^:]+): .*", line)[1] for line in listed] == kinds


def test_O3_scout_prints_the_rebuilt_show_scout_or_do_both(cli):
    """O3 (with S4–S6): the body of "Show, Scout, or do both" is printed rebuilt and marked: the
    three choices of a turn and the two ways a round ends; the next section follows it."""
    out = rules(cli, "scout")
    body = rebuilt(out, "Show, Scout, or do both", "O3 (with S4–S6)")
    assert [line.split(":")[0] for line in body if line.startswith("•")] == ["• Show", "• Scout", "• Scout & Show"]
    assert "turn it round if you like" in body[2] and "only that card may turn" in body[2]
    assert body[-1].startswith("The round ends at once when a player's hand is empty after a Show")
    assert out.index("[end of the rebuilt section]") < out.index("Count points, then rotate the start")


@pytest.mark.parametrize("lang,first,last,unsorted_only", [
    ("en", "• Scouting (after SCOUT): a different game", "an ordinary deck can't do that.",
     ("Krass Kariert", "K♠", "Stop card", "Joker")),
    ("de", "• Scouting (nach Scout): ein anderes Spiel", "mit einem normalen Blatt geht das nicht.",
     ("Krass Kariert", "K♠", "Stoppkarte", "Ziehkarte")),
])
def test_S1_rules_scouting_prints_only_the_scouting_variant(cli, lang, first, last, unsorted_only):
    """S1–S8 play the "Scouting" variant at the end of the Unsorted text: `rules scouting` prints
    a heading and that variant alone (its Show, Scout and Scout & Show), word for word as the
    Unsorted text ends, in English and German; nothing of Unsorted itself."""
    out = rules(cli, "scouting", "--lang", lang)
    lines = out.splitlines()
    assert lines[0].startswith("Scouting (") and lines[1] == "" and lines[2].startswith(first)
    assert lines[-1].endswith(last)
    assert [line.split(":")[0] for line in lines[3:]] == ["• Show", "• Scout", "• Scout & Show"]
    whole = rules(cli, "unsorted", "--lang", lang)
    assert whole.endswith(out[out.index(first):])
    for words in unsorted_only:
        assert words in whole and words not in out, words


def test_every_game_prints_every_language_it_lists(cli):
    """`cardarena games` lists each game's rules languages; each of them prints (Scouting: en, de)."""
    for gid, cls in games().items():
        for lang in cls.rules_texts:
            assert rules(cli, gid, "--lang", lang).strip(), (gid, lang)
    assert sorted(games()["scouting"].rules_texts) == ["de", "en"]
