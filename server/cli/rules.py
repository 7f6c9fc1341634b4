"""``cardarena games`` and ``cardarena rules GAME``: the games and their rules texts."""

import json
import sys
from typing import Annotated

import typer

from .app import app, out
from .common import check_game


@app.command()
def games(fmt: Annotated[str, typer.Option("--format", help="table or json")] = "table"):
    """The games: ids, player ranges, options and default actions."""
    from ..games import games as all_games
    rows = []
    for gid, cls in all_games().items():
        rows.append({"id": gid, "title": cls.title, "players": [cls.min_players, cls.max_players],
                     "summary": cls.summary, "options": [o.describe() for o in cls.option_specs],
                     "default": cls.default_policy, "rules": sorted(cls.rules_texts)})
    if fmt == "json":
        out.print_json(json.dumps(rows, ensure_ascii=False))
        return
    if fmt != "table":
        raise typer.BadParameter("use table or json", param_hint="--format")
    for r in rows:
        out.print(f"[bold]{r['id']}[/bold]  {r['title']}  ({r['players'][0]}–{r['players'][1]} players)")
        if r["summary"]:
            out.print(f"  {r['summary']}")
        for o in r["options"]:
            extra = f" ({', '.join(map(str, o['choices']))})" if "choices" in o else ""
            out.print(f"  option {o['name']}={o['default']!r}{extra}: {o['help']}")
        out.print(f"  default action: {r['default']}")


@app.command()
def rules(game: Annotated[str, typer.Argument(help="Game id (see `cardarena games`).")],
          lang: Annotated[str, typer.Option("--lang", help="Language of the rules text: en, or de (unsorted, scouting).")] = "en"):
    """Print a game's rules text."""
    cls = check_game(game)
    texts = cls.rules_texts
    if lang not in texts:
        raise typer.BadParameter(f"{game} has rules in {', '.join(sorted(texts))}, not {lang!r}", param_hint="--lang")
    text = cls.rules_text(lang).rstrip()
    first = text.lstrip().split("\n", 1)[0]
    if cls.title.lower() not in first.lower():  # a text copied as published, under its page's heading
        text = f"{cls.title} (rules text: {texts[lang]}, as published)\n\n{text}"
    sys.stdout.write(text + "\n")
