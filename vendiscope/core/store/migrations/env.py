"""Alembic environment: Vendiscope always runs migrations on a connection it opened itself."""

from alembic import context

from vendiscope.core.store.schema import Base

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
