"""A SQLite (WAL) cache of model calls: a call asked twice is paid for once."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from verstehen.errors import UserError

SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    kind TEXT NOT NULL,
    response TEXT NOT NULL,
    created REAL NOT NULL
)
"""


def default_cache_path() -> Path:
    """$VERSTEHEN_CACHE, else ~/.cache/verstehen/calls.sqlite (XDG_CACHE_HOME honoured)."""
    if env := os.environ.get("VERSTEHEN_CACHE"):
        return Path(env).expanduser()
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "verstehen" / "calls.sqlite"


def call_key(identity: dict[str, str], kind: str, request: dict[str, Any]) -> str:
    """SHA-256 of the model's identity, the kind of call and the full request."""
    payload = json.dumps(
        {"model": identity, "kind": kind, "request": request},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class Cache:
    """One SQLite file in WAL mode; each result is committed the moment it arrives."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path).expanduser() if path else default_cache_path()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise UserError(
                f"cannot open the cache {self.path} ({exc}): pass --cache or set VERSTEHEN_CACHE"
            ) from None

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored response for a key, or None."""
        row = self._db.execute("SELECT response FROM calls WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, model: str, kind: str, response: dict[str, Any]) -> None:
        """Store a response (autocommit: durable once this returns, even if killed after)."""
        self._db.execute(
            "INSERT OR REPLACE INTO calls (key, model, kind, response, created) "
            "VALUES (?, ?, ?, ?, ?)",
            (key, model, kind, json.dumps(response, ensure_ascii=False), time.time()),
        )

    def stats(self) -> dict[str, Any]:
        """Entries per model and kind, and the file's size."""
        rows = self._db.execute(
            "SELECT model, kind, COUNT(*) FROM calls GROUP BY model, kind ORDER BY model, kind"
        ).fetchall()
        size = sum(
            p.stat().st_size
            for p in (self.path, Path(f"{self.path}-wal"))
            if p.exists()
        )
        return {
            "path": str(self.path),
            "bytes": size,
            "entries": sum(count for _, _, count in rows),
            "by_model": [{"model": m, "kind": k, "entries": c} for m, k, c in rows],
        }

    def clear(self, model: str | None = None) -> int:
        """Delete every entry, or those of one model; return how many went."""
        if model is None:
            deleted = self._db.execute("DELETE FROM calls").rowcount
        else:
            deleted = self._db.execute("DELETE FROM calls WHERE model = ?", (model,)).rowcount
        self._db.execute("VACUUM")
        return deleted

    def close(self) -> None:
        """Close the connection."""
        self._db.close()
