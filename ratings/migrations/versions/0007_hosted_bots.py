"""Hosted bots: ``bot_version`` (each submission of a bot's code: its files, commands, state and
the bot row ``NAME@K`` it plays as) and ``bot_log`` (the tail of a hosted bot's output a match).

Revision ID: 0007
Revises: 0006
"""
import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    tables = set(sa.inspect(op.get_bind()).get_table_names())
    if "bot_version" not in tables:
        op.create_table(
            "bot_version",
            sa.Column("id", sa.Integer(), primary_key=True),
            sa.Column("bot_id", sa.Integer(), sa.ForeignKey("bot.id"), nullable=False),
            sa.Column("number", sa.Integer(), nullable=False),
            sa.Column("player_id", sa.Integer(), sa.ForeignKey("bot.id"), nullable=False),
            sa.Column("sha256", sa.String(), nullable=False),
            sa.Column("size", sa.Integer(), nullable=False),
            sa.Column("created_at", sa.DateTime(), nullable=False),
            sa.Column("run", sa.String(), nullable=False),
            sa.Column("build", sa.String(), nullable=True),
            sa.Column("state", sa.String(), nullable=False),
            sa.Column("built_at", sa.DateTime(), nullable=True),
            sa.Column("build_log", sa.String(), nullable=True),
            sa.Column("files", sa.LargeBinary(), nullable=False),
            sa.UniqueConstraint("bot_id", "number"),
            sa.UniqueConstraint("player_id"),
        )
        op.create_index("ix_bot_version_bot_id", "bot_version", ["bot_id"])
    if "bot_log" not in tables:
        op.create_table(
            "bot_log",
            sa.Column("id", sa.Integer(), primary_key=True),
            sa.Column("match_id", sa.Integer(), sa.ForeignKey("match.id"), nullable=True),
            sa.Column("bot_id", sa.Integer(), sa.ForeignKey("bot.id"), nullable=False),
            sa.Column("created_at", sa.DateTime(), nullable=False),
            sa.Column("text", sa.String(), nullable=False),
        )
        op.create_index("ix_bot_log_match_id", "bot_log", ["match_id"])
        op.create_index("ix_bot_log_bot_id", "bot_log", ["bot_id"])


def downgrade() -> None:
    op.drop_table("bot_log")
    op.drop_table("bot_version")
