"""The project schema (SQLAlchemy 2.x ORM). Changes here need an Alembic migration.

The same tables serve SQLite project files and PostgreSQL catalogs.
"""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import (
    JSON,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Dataset(Base):
    """An imported dataset: where it came from and how its columns map to roles."""

    __tablename__ = "datasets"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    source_uri: Mapped[str] = mapped_column(Text)
    format: Mapped[str] = mapped_column(String(64))
    field_mapping: Mapped[dict] = mapped_column(JSON)
    source_schema: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    row_count: Mapped[int] = mapped_column(Integer, default=0)
    duplicate_count: Mapped[int] = mapped_column(Integer, default=0)
    skipped_count: Mapped[int] = mapped_column(Integer, default=0)
    fingerprint: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Record(Base):
    """One example. ``seq`` is its dense 0-based position inside the dataset (paging key);
    ``row_index`` is where it stood in the source (provenance)."""

    __tablename__ = "records"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    dataset_id: Mapped[int] = mapped_column(ForeignKey("datasets.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    row_index: Mapped[int] = mapped_column(Integer)
    prompt: Mapped[str | None] = mapped_column(Text, nullable=True)
    response: Mapped[str | None] = mapped_column(Text, nullable=True)
    text: Mapped[str | None] = mapped_column(Text, nullable=True)
    label: Mapped[str | None] = mapped_column(Text, nullable=True)
    source: Mapped[str | None] = mapped_column(Text, nullable=True)
    ext_id: Mapped[str | None] = mapped_column(Text, nullable=True)
    raw: Mapped[str] = mapped_column(Text)
    content_hash: Mapped[str] = mapped_column(String(32))
    quality: Mapped[float | None] = mapped_column(Float, nullable=True)

    __table_args__ = (
        UniqueConstraint("dataset_id", "seq", name="uq_records_dataset_seq"),
        Index("ix_records_content_hash", "dataset_id", "content_hash"),
    )


class VectorSet(Base):
    """A named matrix of one row per record (embedding, gradient or projection)."""

    __tablename__ = "vector_sets"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    dataset_id: Mapped[int] = mapped_column(ForeignKey("datasets.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(32))
    model: Mapped[str | None] = mapped_column(Text, nullable=True)
    params: Mapped[dict] = mapped_column(JSON, default=dict)
    dim: Mapped[int] = mapped_column(Integer)
    dtype: Mapped[str] = mapped_column(String(16))
    n_rows: Mapped[int] = mapped_column(Integer)
    chunk_rows: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default="running")
    run_id: Mapped[int | None] = mapped_column(
        ForeignKey("runs.id", ondelete="SET NULL"), nullable=True
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    __table_args__ = (UniqueConstraint("dataset_id", "name", name="uq_vector_sets_dataset_name"),)


class VectorChunk(Base):
    """``n_rows`` consecutive rows of a vector set, starting at ``row_start``, as raw bytes."""

    __tablename__ = "vector_chunks"

    vector_set_id: Mapped[int] = mapped_column(
        ForeignKey("vector_sets.id", ondelete="CASCADE"), primary_key=True
    )
    chunk_index: Mapped[int] = mapped_column(Integer, primary_key=True)
    row_start: Mapped[int] = mapped_column(Integer)
    n_rows: Mapped[int] = mapped_column(Integer)
    data: Mapped[bytes] = mapped_column(LargeBinary)


class Run(Base):
    """A recorded computation: what ran, with which parameters and versions, and its result."""

    __tablename__ = "runs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(32))
    plugin: Mapped[str] = mapped_column(String(200))
    dataset_id: Mapped[int | None] = mapped_column(
        ForeignKey("datasets.id", ondelete="CASCADE"), nullable=True
    )
    params: Mapped[dict] = mapped_column(JSON, default=dict)
    versions: Mapped[dict] = mapped_column(JSON, default=dict)
    seed: Mapped[int | None] = mapped_column(Integer, nullable=True)
    status: Mapped[str] = mapped_column(String(16), default="running")
    result: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    timings: Mapped[dict] = mapped_column(JSON, default=dict)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # who runs it while it is running: {"pid", "host", "created"} (see core.jobs.this_process);
    # a running vector set whose owner is gone was interrupted (killed), not still running
    owner: Mapped[dict | None] = mapped_column(JSON, nullable=True)


class Subset(Base):
    """A named selection of records of one dataset."""

    __tablename__ = "subsets"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    dataset_id: Mapped[int] = mapped_column(ForeignKey("datasets.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str | None] = mapped_column(Text, nullable=True)
    run_id: Mapped[int | None] = mapped_column(
        ForeignKey("runs.id", ondelete="SET NULL"), nullable=True
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    __table_args__ = (UniqueConstraint("dataset_id", "name", name="uq_subsets_dataset_name"),)


class SubsetMember(Base):
    """A record in a subset, with its selection rank and marginal gain when a selector made it."""

    __tablename__ = "subset_members"

    subset_id: Mapped[int] = mapped_column(
        ForeignKey("subsets.id", ondelete="CASCADE"), primary_key=True
    )
    record_id: Mapped[int] = mapped_column(
        ForeignKey("records.id", ondelete="CASCADE"), primary_key=True
    )
    rank: Mapped[int] = mapped_column(Integer)
    gain: Mapped[float | None] = mapped_column(Float, nullable=True)


class SignalText(Base):
    """A short text of one record in a signal's vector set (the LLM judge's reason): the
    vectors are float32, so a signal's text columns live here, written in the same
    transaction as their chunk (:func:`vendiscope.core.store.vectors.write_chunk`)."""

    __tablename__ = "signal_texts"

    vector_set_id: Mapped[int] = mapped_column(
        ForeignKey("vector_sets.id", ondelete="CASCADE"), primary_key=True
    )
    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    """The text column's name (``reason``)."""
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    """The record's row in the dataset (and the vector set)."""
    text: Mapped[str] = mapped_column(Text)
