"""The bots' summaries: a table ``bot_summary`` derived from the finished seats (per bot and game:
seats, wins, places, faults by kind, forfeits, the merged decision-latency histogram), so that a
bot's web page reads a few rows instead of all its matches. It is created here and filled from
the facts (:func:`cardarena.ratings.summary.rebuild`, what ``ratings recompute`` runs too).

The table is created only if it is missing (a ledger made by a development build between the
releases upgrades too); it is filled again either way.

Revision ID: 0004
Revises: 0003
"""
import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


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


def downgrade() -> None:
    op.drop_table("bot_summary")
