"""Retention: a match whose step and event logs were pruned (``cardarena ledger prune``, ``serve
--keep-logs``) says when (``pruned_at``, UTC; NULL: its logs are whole, as every match recorded
before this version), and the index ``ix_match_prune (pruned_at, finished_at)`` finds the
matches still to prune without reading those pruned already.

The column and the index are added only if missing (a ledger of a development build upgrades too).

Revision ID: 0006
Revises: 0005
"""
import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None
INDEX = "ix_match_prune"


def upgrade() -> None:
    bind = op.get_bind()
    if "pruned_at" not in {c["name"] for c in sa.inspect(bind).get_columns("match")}:
        op.add_column("match", sa.Column("pruned_at", sa.DateTime(), nullable=True))
    if INDEX not in {i["name"] for i in sa.inspect(bind).get_indexes("match")}:
        op.create_index(INDEX, "match", ["pruned_at", "finished_at"])


def downgrade() -> None:
    op.drop_index(INDEX, table_name="match")
    with op.batch_alter_table("match") as batch:
        batch.drop_column("pruned_at")
