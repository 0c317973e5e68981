"""Signal texts: a short text per record of a signal's vector set (the LLM judge's reason).

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
    op.create_table(
        "signal_texts",
        sa.Column("vector_set_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["vector_set_id"],
            ["vector_sets.id"],
            name="fk_signal_texts_vector_set_id_vector_sets",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("vector_set_id", "name", "position", name="pk_signal_texts"),
    )


def downgrade() -> None:
    op.drop_table("signal_texts")
