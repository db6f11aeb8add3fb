"""SQLite schema migrations: named, ordered, each run once inside a transaction.

Never edit a migration that has shipped; add a new one. A database that records a migration
this list does not know was written by a newer salience and is refused.
"""

from __future__ import annotations

from salience.stores.spaces import SPACES
from salience.stores.traces import ERASED, JOB_CANCEL, TRACES
from salience.stores.updates import UPDATE_LINKS

SHARED: tuple[tuple[str, str], ...] = (
    ("0015_erased", ERASED),  # purged ids: a trace queued elsewhere is not written after
    ("0016_job_cancel", JOB_CANCEL),  # a cancel asked from any process of the store
    ("0017_update_links", UPDATE_LINKS),  # newer memories found to change older ones
    ("0018_spaces", SPACES),  # spaces and grants; a memory's author and agent
)
"""The last steps, the same SQL in both stores (PostgreSQL's schema takes them from here)."""

MIGRATIONS: tuple[tuple[str, str], ...] = (
    (
        "0001_memories",
        """
        CREATE TABLE memories (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            content TEXT NOT NULL,
            type TEXT NOT NULL,
            title TEXT,
            tags TEXT NOT NULL DEFAULT '[]',
            user TEXT NOT NULL,
            project TEXT,
            topic_key TEXT,
            source TEXT NOT NULL,
            importance REAL NOT NULL,
            confidence REAL NOT NULL,
            priority REAL NOT NULL DEFAULT 0,
            access_count INTEGER NOT NULL DEFAULT 0,
            revision_count INTEGER NOT NULL DEFAULT 1,
            echo_count INTEGER NOT NULL DEFAULT 0,
            fizzle_count INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            last_accessed_at TEXT,
            valid_until TEXT,
            parent_id TEXT,
            forget_reason TEXT,
            layer TEXT NOT NULL DEFAULT 'local',
            session_id TEXT,
            entities TEXT NOT NULL DEFAULT '[]',
            derived_from TEXT NOT NULL DEFAULT '[]',
            enabled INTEGER NOT NULL DEFAULT 1,
            content_hash TEXT NOT NULL
        );
        CREATE INDEX memories_user_created ON memories (user, created_at);
        -- Partial indexes: most memories have no project, parent, topic or session, and a
        -- NULL entry would cost a page write on every insert for no lookup.
        CREATE INDEX memories_project ON memories (project) WHERE project IS NOT NULL;
        CREATE INDEX memories_parent ON memories (parent_id) WHERE parent_id IS NOT NULL;
        CREATE INDEX memories_topic ON memories (user, topic_key) WHERE topic_key IS NOT NULL;
        CREATE INDEX memories_session ON memories (session_id) WHERE session_id IS NOT NULL;
        CREATE INDEX memories_hash ON memories (user, content_hash);
        CREATE TABLE memory_tags (
            seq INTEGER NOT NULL REFERENCES memories (seq) ON DELETE CASCADE,
            tag TEXT NOT NULL,
            PRIMARY KEY (tag, seq)
        ) WITHOUT ROWID;
        CREATE INDEX memory_tags_seq ON memory_tags (seq);
        CREATE TABLE memory_entities (
            seq INTEGER NOT NULL REFERENCES memories (seq) ON DELETE CASCADE,
            entity_key TEXT NOT NULL,
            name TEXT NOT NULL,
            PRIMARY KEY (entity_key, seq)
        ) WITHOUT ROWID;
        CREATE INDEX memory_entities_seq ON memory_entities (seq);
        -- "dated" holds the creation date in words (2023 May 7 Sunday) for time-aware recall.
        CREATE VIRTUAL TABLE memory_fts USING fts5 (
            content, title, tags, entities, dated, tokenize = 'porter unicode61'
        );
        INSERT INTO memory_fts (memory_fts, rank)
            VALUES ('rank', 'bm25(1.0, 2.0, 1.0, 1.0, 1.0)');
        """,
    ),
    (
        "0002_sessions",
        """
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            user TEXT NOT NULL,
            started_at TEXT NOT NULL,
            last_active_at TEXT NOT NULL,
            ended_at TEXT,
            summary_id TEXT
        );
        CREATE INDEX sessions_open ON sessions (user, last_active_at) WHERE ended_at IS NULL;
        """,
    ),
    (
        "0003_vectors",
        """
        -- One embedding per memory, float32 little-endian. vseq grows with every write so a
        -- process can load only the vectors written since it last looked.
        CREATE TABLE memory_vectors (
            vseq INTEGER PRIMARY KEY AUTOINCREMENT,
            memory_id TEXT NOT NULL UNIQUE REFERENCES memories (id) ON DELETE CASCADE,
            vector BLOB NOT NULL
        );
        CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """,
    ),
    (
        "0004_importance_base",
        """
        -- The importance a memory had when a person or feedback last set it, and when: decay
        -- maintenance always starts from here, so running it twice never compounds.
        CREATE TABLE importance_base (
            memory_id TEXT PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
            importance REAL NOT NULL,
            set_at TEXT NOT NULL
        );
        """,
    ),
    (
        "0005_audit_log",
        """
        -- Every change, append-only. Not tied to memories by a foreign key: a purged memory's
        -- history stays. ``detail`` is JSON naming what changed; content itself is never
        -- copied here (only that it changed).
        CREATE TABLE audit_log (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            at TEXT NOT NULL,
            memory_id TEXT,
            action TEXT NOT NULL,
            actor TEXT NOT NULL,
            detail TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX audit_log_memory ON audit_log (memory_id, seq) WHERE memory_id IS NOT NULL;
        """,
    ),
    (
        "0006_layers",
        """
        -- Read-only stores mounted beside this one (eidet's shared and base layers): recall
        -- and briefings search them too; writes never go there.
        CREATE TABLE layers (
            name TEXT PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('shared', 'base')),
            path TEXT NOT NULL UNIQUE,
            mounted_at TEXT NOT NULL
        );
        """,
    ),
    (
        "0007_memory_changes",
        """
        -- Rows updated or deleted, in order, so that a process holding memories in memory
        -- (briefing columns) catches up by re-reading only those. A new row needs no entry:
        -- its seq is above every seq seen before (a reused seq was first logged as deleted).
        -- Only the newest 100,000 entries are kept; a reader further behind reloads.
        CREATE TABLE memory_changes (
            cseq INTEGER PRIMARY KEY AUTOINCREMENT,
            mseq INTEGER NOT NULL
        );
        CREATE TRIGGER memories_updated AFTER UPDATE ON memories BEGIN
            INSERT INTO memory_changes (mseq) VALUES (old.seq);
        END;
        CREATE TRIGGER memories_deleted AFTER DELETE ON memories BEGIN
            INSERT INTO memory_changes (mseq) VALUES (old.seq);
        END;
        CREATE TRIGGER memory_changes_pruned AFTER INSERT ON memory_changes
        WHEN new.cseq % 1000 = 0 BEGIN
            DELETE FROM memory_changes WHERE cseq <= new.cseq - 100000;
        END;
        """,
    ),
    (
        "0008_audit_user",
        """
        -- Whose memory each entry concerns, so a user reads only their own part of the log.
        -- Entries written before know it only through their memory, if it still exists.
        ALTER TABLE audit_log ADD COLUMN user TEXT;
        UPDATE audit_log
        SET user = (SELECT m.user FROM memories m WHERE m.id = audit_log.memory_id);
        CREATE INDEX audit_log_by_user ON audit_log (user, seq);
        """,
    ),
    (
        "0009_api_keys",
        """
        -- Keys of the HTTP server: a public id and the SHA-256 of the secret, never the key.
        CREATE TABLE api_keys (
            id TEXT PRIMARY KEY,
            secret_hash TEXT NOT NULL,
            user TEXT NOT NULL,
            read_only INTEGER NOT NULL,
            admin INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            revoked_at TEXT,
            label TEXT
        );
        """,
    ),
    (
        "0010_jobs",
        """
        -- Long work run beside requests: its progress, heartbeat and outcome (no text).
        CREATE TABLE jobs (
            id TEXT PRIMARY KEY,
            user TEXT NOT NULL,
            kind TEXT NOT NULL,
            state TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            done INTEGER NOT NULL,
            total INTEGER NOT NULL,
            finished_at TEXT,
            result TEXT,
            error TEXT,
            owner TEXT NOT NULL
        );
        CREATE INDEX jobs_by_user ON jobs (user, created_at);
        """,
    ),
    (
        "0011_key_source",
        """
        -- The highest source a key's writes may claim (an agent's key: agent).
        ALTER TABLE api_keys ADD COLUMN source TEXT NOT NULL DEFAULT 'user';
        """,
    ),
    ("0012_traces", TRACES),  # the record of recalls and briefings (stores/traces.py)
    (
        "0013_row_counts",
        """
        -- How many vectors the store holds, kept by triggers: count(*) reads every row
        -- (160-250 ms for a million), and every process checks the count before it trusts the
        -- vectors it holds (search/rows.py), after every write too. (Memories are not counted
        -- so: any trigger on inserting into memories, even one that does nothing, made each
        -- insert ~50 us slower, half again; a vector's trigger costs ~10-20 us.)
        CREATE TABLE row_counts (name TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
        INSERT INTO row_counts VALUES ('vectors', (SELECT count(*) FROM memory_vectors));
        CREATE TRIGGER vectors_counted_in AFTER INSERT ON memory_vectors BEGIN
            UPDATE row_counts SET n = n + 1 WHERE name = 'vectors';
        END;
        CREATE TRIGGER vectors_counted_out AFTER DELETE ON memory_vectors BEGIN
            UPDATE row_counts SET n = n - 1 WHERE name = 'vectors';
        END;
        """,
    ),
    (
        "0014_vector_sessions",
        """
        -- PostgreSQL keeps each vector's session beside it, for a search that reads only its
        -- candidates; a SQLite store's vectors are searched in memory, sessions and all, so
        -- nothing changes here (the two stores keep one list of migrations).
        SELECT 1;
        """,
    ),
    *SHARED,
)

MIGRATION_NAMES = tuple(name for name, _ in MIGRATIONS)

READABLE_WITHOUT = frozenset(
    {
        "0007_memory_changes",
        "0008_audit_user",
        "0009_api_keys",
        "0010_jobs",
        "0011_key_source",
        "0012_traces",
        "0013_row_counts",
        "0014_vector_sessions",
        "0015_erased",
        "0016_job_cancel",
        "0017_update_links",
    }
)
"""Migrations a store opened read-only (a mounted layer) may lack: nothing it reads needs
them (without a change log, a reader reloads instead of catching up)."""
