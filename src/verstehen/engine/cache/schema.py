"""The cache file's format: the `calls` table, its migration, and what its errors mean."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

from verstehen.errors import UserError

# sha256 is NULL in rows written before the column existed: those are accepted unchecked
SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    kind TEXT NOT NULL,
    response TEXT NOT NULL,
    created REAL NOT NULL,
    sha256 TEXT
)
"""

REQUIRED_COLUMNS = {"key", "model", "kind", "response", "created"}


def columns(db: sqlite3.Connection) -> set[str]:
    """The columns of the file's `calls` table (empty when it has none)."""
    return {row[1] for row in db.execute("PRAGMA table_info(calls)")}


def migrate(db: sqlite3.Connection, *, in_transaction: bool = False) -> None:
    """Create the table, or add the checksum column to a file written before it had one;
    refuse a file whose `calls` table is some other program's."""
    present = columns(db)
    if present and not present >= REQUIRED_COLUMNS:
        raise sqlite3.DatabaseError(
            "its table 'calls' is not a verstehen cache's (no column "
            f"{', '.join(sorted(REQUIRED_COLUMNS - present))})")
    if "sha256" in present:
        return
    if not in_transaction:
        db.execute("BEGIN IMMEDIATE")
    try:
        present = columns(db)  # again under the lock: another process may have done it
        if not present:
            db.execute(SCHEMA)
        elif "sha256" not in present:
            db.execute("ALTER TABLE calls ADD COLUMN sha256 TEXT")
        if not in_transaction:
            db.execute("COMMIT")
    except BaseException:
        if not in_transaction and db.in_transaction:
            db.execute("ROLLBACK")
        raise


def is_busy(exc: BaseException) -> bool:
    """True for SQLITE_BUSY / SQLITE_LOCKED: another connection holds the lock."""
    return isinstance(exc, sqlite3.OperationalError) and (
        "locked" in str(exc) or "busy" in str(exc))


def user_error(path: Path, exc: sqlite3.Error) -> UserError:
    """The one line a user sees when the cache file cannot be used."""
    if is_busy(exc):
        return UserError(f"cache {path} is locked by another process: try again when "
                         "it is done, or pass --cache NEW")
    if isinstance(exc, sqlite3.OperationalError):
        return UserError(f"cannot use the cache {path} ({exc}): pass --cache or set "
                         "VERSTEHEN_CACHE")
    return UserError(f"cache {path} is damaged ({exc}): move it away or pass --cache NEW")


def warn(message: str) -> None:
    """One warning line about the cache on stderr."""
    print(f"verstehen: warning: {message}", file=sys.stderr, flush=True)
