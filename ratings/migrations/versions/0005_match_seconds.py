"""A bot's match seconds from an index: ``match (id, status, duration_s)``, so that the durations
of a bot's finished matches (its web page and API answer, ``Ledger._durations``) are read from
this index alone, one entry per seat of the bot, and never from the ``match`` rows themselves
(each holds its result details, and a bot's are scattered over the whole file).

The index is created only if missing (a ledger made by a development build between the
releases upgrades too).

Revision ID: 0005
Revises: 0004
"""
import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None
INDEX = "ix_match_seconds"


def upgrade() -> None:
    if INDEX not in {i["name"] for i in sa.inspect(op.get_bind()).get_indexes("match")}:
        op.create_index(INDEX, "match", ["id", "status", "duration_s"])


def downgrade() -> None:
    op.drop_index(INDEX, table_name="match")
