"""The bots' summaries: a table ``bot_summary`` derived from the finished seats (per bot and game:
seats, wins, places, faults by kind, forfeits, the merged decision-latency histogram), so that a
bot's web page reads a few rows instead of all its matches. It is created here and filled from
the facts (:func:`cardarena.ratings.summary.rebuild`, what ``ratings recompute`` runs too).

And each rated row of ``rating_history`` gets ``rated_n``, its bot's count of rated matches of
the game so far (in recording order, ``match_log.seq``: what ``record_match`` and ``recompute``
write), with the index ``(bot_id, game, rated_n, mu, sigma)``, so that a rating line is thinned
from the index alone.

The table, the column and the index are created only if missing (a ledger made by a development
build between the releases upgrades too); they are filled again either way.

Revision ID: 0004
Revises: 0003
"""
import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None
INDEX = "ix_rating_history_points"


def upgrade() -> None:
    from cardarena.ratings import summary
    bind = op.get_bind()
    if "bot_summary" not in sa.inspect(bind).get_table_names():
        def count(name):
            return sa.Column(name, sa.Integer(), nullable=False)
        op.create_table("bot_summary",  # the columns in the order of models.BotSummary
                        sa.Column("bot_id", sa.Integer(), sa.ForeignKey("bot.id"), primary_key=True),
                        sa.Column("game", sa.String(), primary_key=True),
                        *map(count, ("seats", "wins", "place_sum", "faults", "forfeits")),
                        sa.Column("fault_kinds", sa.JSON(), nullable=False),
                        sa.Column("latency", sa.JSON(), nullable=False),
                        count("latency_seats"))
    summary.rebuild(bind)
    if "rated_n" not in {c["name"] for c in sa.inspect(bind).get_columns("rating_history")}:
        op.add_column("rating_history", sa.Column("rated_n", sa.Integer(), nullable=True))
    op.execute("UPDATE rating_history SET rated_n = counted.n FROM ("
               " SELECT h.id AS id, row_number() OVER (PARTITION BY h.bot_id, h.game ORDER BY l.seq) AS n"
               " FROM rating_history h JOIN match_log l ON l.match_id = h.match_id WHERE h.rated) AS counted"
               " WHERE counted.id = rating_history.id")
    if INDEX not in {i["name"] for i in sa.inspect(bind).get_indexes("rating_history")}:
        op.create_index(INDEX, "rating_history", ["bot_id", "game", "rated_n", "mu", "sigma"])


def downgrade() -> None:
    op.drop_index(INDEX, table_name="rating_history")
    with op.batch_alter_table("rating_history") as batch:
        batch.drop_column("rated_n")
    op.drop_table("bot_summary")
