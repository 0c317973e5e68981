"""Per-record quality weight (used by selectors) and a content-hash index (duplicate lookups).

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("records") as batch:
        batch.add_column(sa.Column("quality", sa.Float(), nullable=True))
    op.create_index("ix_records_content_hash", "records", ["dataset_id", "content_hash"])


def downgrade() -> None:
    op.drop_index("ix_records_content_hash", table_name="records")
    with op.batch_alter_table("records") as batch:
        batch.drop_column("quality")
