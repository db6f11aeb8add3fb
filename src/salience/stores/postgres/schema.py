"""PostgreSQL schema migrations: the same named steps as the SQLite store's, run once each.

Each step runs inside one transaction that holds an advisory lock, so two processes starting
at once against a new database migrate it once. Never edit a step that has shipped; add one.

What PostgreSQL keeps beyond SQLite's tables, and why (see :mod:`.memories` for the ranking):

- ``memories.fts`` (content, title with weight A, tags B, entities C) and ``memories.dated``
  (the creation date in words), ``tsvector`` columns with GIN indexes, filled by a trigger
  from the row itself, so every write path indexes the same way. The text search
  configuration ``salience_english`` is PostgreSQL's English (Snowball) stemmer *without*
  stop words: FTS5's porter tokenizer keeps every word, and BM25 needs every token counted.
- ``memories.doc_len``: the row's token count (FTS5's document length).
- ``fts_terms`` (rows holding each lexeme) and ``fts_totals`` (rows and tokens): BM25's
  document frequencies and average length, read in one lookup per search. A trigger only
  *appends* each row's counts to ``fts_term_deltas`` / ``fts_total_deltas``, which are folded
  into the totals every 2,000 rows: updating the same counter rows once per inserted memory
  made a 20,000-row import transaction quadratic (every update walks the row's versions
  that the transaction itself left behind). Readers add the pending deltas.
- ``store_version``: bumped by every write transaction; other processes compare it to know
  whether anything changed (SQLite's ``data_version``).
"""

from __future__ import annotations

import re

from salience.stores.migrations import SHARED
from salience.stores.traces import TRACES

_FTS_FUNCTIONS = """
CREATE FUNCTION salience_token_count(doc tsvector) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(sum(cardinality(positions)), 0)::integer FROM unnest(doc)
$$;
CREATE FUNCTION salience_index_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' OR NEW.content IS DISTINCT FROM OLD.content
        OR NEW.title IS DISTINCT FROM OLD.title OR NEW.tags IS DISTINCT FROM OLD.tags
        OR NEW.entities IS DISTINCT FROM OLD.entities
        OR NEW.dated_words IS DISTINCT FROM OLD.dated_words THEN
        NEW.fts := setweight(to_tsvector('salience_english', NEW.content), 'D')
            || setweight(to_tsvector('salience_english', coalesce(NEW.title, '')), 'A')
            || setweight(to_tsvector('salience_english', NEW.tags), 'B')
            || setweight(to_tsvector('salience_english', NEW.entities), 'C');
        NEW.dated := to_tsvector('salience_english', NEW.dated_words);
        NEW.doc_len := salience_token_count(NEW.fts) + salience_token_count(NEW.dated);
    END IF;
    RETURN NEW;
END $$;
CREATE FUNCTION salience_fold_counts() RETURNS void LANGUAGE sql AS $$
    INSERT INTO fts_terms AS t (lexeme, text_rows, all_rows)
    SELECT lexeme, sum(text_rows), sum(all_rows) FROM fts_term_deltas GROUP BY lexeme
    ON CONFLICT (lexeme) DO UPDATE
        SET text_rows = t.text_rows + excluded.text_rows,
            all_rows = t.all_rows + excluded.all_rows;
    DELETE FROM fts_term_deltas;
    UPDATE fts_totals SET
        rows = rows + (SELECT coalesce(sum(rows), 0) FROM fts_total_deltas),
        tokens = tokens + (SELECT coalesce(sum(tokens), 0) FROM fts_total_deltas);
    DELETE FROM fts_total_deltas;
$$;
CREATE FUNCTION salience_count_terms(doc tsvector, dated tsvector, doc_len integer,
                                     sign integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO fts_term_deltas (lexeme, text_rows, all_rows)
    SELECT lexeme, sum(in_text) * sign, sign FROM (
        SELECT lexeme, 1 AS in_text FROM unnest(doc)
        UNION ALL
        SELECT lexeme, 0 FROM unnest(dated)
    ) AS found GROUP BY lexeme;
    INSERT INTO fts_total_deltas VALUES (sign, sign * doc_len);
    IF nextval('fts_delta_count') % 2000 = 0 THEN
        PERFORM salience_fold_counts();
    END IF;
END $$;
CREATE FUNCTION salience_count_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM salience_count_terms(OLD.fts, OLD.dated, OLD.doc_len, -1);
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        PERFORM salience_count_terms(NEW.fts, NEW.dated, NEW.doc_len, 1);
    END IF;
    RETURN NULL;
END $$;
"""

MIGRATIONS: tuple[tuple[str, str], ...] = (
    (
        "0001_memories",
        """
        CREATE EXTENSION IF NOT EXISTS vector;
        CREATE TEXT SEARCH DICTIONARY salience_stem (TEMPLATE = snowball, Language = english);
        CREATE TEXT SEARCH CONFIGURATION salience_english (COPY = english);
        ALTER TEXT SEARCH CONFIGURATION salience_english
            ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
            WITH salience_stem;
        CREATE TABLE memories (
            seq BIGSERIAL PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            content TEXT NOT NULL,
            type TEXT NOT NULL,
            title TEXT,
            tags TEXT NOT NULL DEFAULT '[]',
            "user" TEXT NOT NULL,
            project TEXT,
            topic_key TEXT,
            source TEXT NOT NULL,
            importance DOUBLE PRECISION NOT NULL,
            confidence DOUBLE PRECISION NOT NULL,
            priority DOUBLE PRECISION NOT NULL DEFAULT 0,
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
            content_hash TEXT NOT NULL,
            dated_words TEXT NOT NULL DEFAULT '',
            fts tsvector NOT NULL DEFAULT ''::tsvector,
            dated tsvector NOT NULL DEFAULT ''::tsvector,
            doc_len INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX memories_user_created ON memories ("user", created_at);
        CREATE INDEX memories_project ON memories (project) WHERE project IS NOT NULL;
        CREATE INDEX memories_parent ON memories (parent_id) WHERE parent_id IS NOT NULL;
        CREATE INDEX memories_topic ON memories ("user", topic_key) WHERE topic_key IS NOT NULL;
        CREATE INDEX memories_session ON memories (session_id) WHERE session_id IS NOT NULL;
        CREATE INDEX memories_hash ON memories ("user", content_hash);
        CREATE INDEX memories_fts ON memories USING gin (fts);
        CREATE INDEX memories_dated ON memories USING gin (dated);
        CREATE TABLE memory_tags (
            seq BIGINT NOT NULL REFERENCES memories (seq) ON DELETE CASCADE,
            tag TEXT NOT NULL,
            PRIMARY KEY (tag, seq)
        );
        CREATE INDEX memory_tags_seq ON memory_tags (seq);
        CREATE TABLE memory_entities (
            seq BIGINT NOT NULL REFERENCES memories (seq) ON DELETE CASCADE,
            entity_key TEXT NOT NULL,
            name TEXT NOT NULL,
            PRIMARY KEY (entity_key, seq)
        );
        CREATE INDEX memory_entities_seq ON memory_entities (seq);
        CREATE TABLE fts_terms (
            lexeme TEXT PRIMARY KEY,
            text_rows BIGINT NOT NULL,
            all_rows BIGINT NOT NULL
        );
        CREATE TABLE fts_totals (rows BIGINT NOT NULL, tokens BIGINT NOT NULL);
        INSERT INTO fts_totals VALUES (0, 0);
        CREATE TABLE fts_term_deltas (
            lexeme TEXT NOT NULL,
            text_rows BIGINT NOT NULL,
            all_rows BIGINT NOT NULL
        );
        CREATE INDEX fts_term_deltas_lexeme ON fts_term_deltas (lexeme);
        CREATE TABLE fts_total_deltas (rows BIGINT NOT NULL, tokens BIGINT NOT NULL);
        CREATE SEQUENCE fts_delta_count;
        CREATE TABLE store_version (version BIGINT NOT NULL);
        INSERT INTO store_version VALUES (0);
        """
        + _FTS_FUNCTIONS
        + """
        CREATE TRIGGER memories_index BEFORE INSERT OR UPDATE ON memories
            FOR EACH ROW EXECUTE FUNCTION salience_index_row();
        CREATE TRIGGER memories_count AFTER INSERT OR DELETE ON memories
            FOR EACH ROW EXECUTE FUNCTION salience_count_row();
        CREATE TRIGGER memories_recount AFTER UPDATE ON memories
            FOR EACH ROW WHEN (OLD.fts IS DISTINCT FROM NEW.fts
                               OR OLD.dated IS DISTINCT FROM NEW.dated)
            EXECUTE FUNCTION salience_count_row();
        """,
    ),
    (
        "0002_sessions",
        """
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            "user" TEXT NOT NULL,
            started_at TEXT NOT NULL,
            last_active_at TEXT NOT NULL,
            ended_at TEXT,
            summary_id TEXT
        );
        CREATE INDEX sessions_open ON sessions ("user", last_active_at) WHERE ended_at IS NULL;
        """,
    ),
    (
        "0003_vectors",
        """
        -- One embedding per memory (pgvector); vseq grows with every write so a process can
        -- load only the vectors written since it last looked. The HNSW index is made when the
        -- first vector fixes the dimension (see store.py).
        CREATE TABLE memory_vectors (
            vseq BIGSERIAL PRIMARY KEY,
            memory_id TEXT NOT NULL UNIQUE REFERENCES memories (id) ON DELETE CASCADE,
            embedding vector NOT NULL
        );
        CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """,
    ),
    (
        "0004_importance_base",
        """
        CREATE TABLE importance_base (
            memory_id TEXT PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
            importance DOUBLE PRECISION NOT NULL,
            set_at TEXT NOT NULL
        );
        """,
    ),
    (
        "0005_audit_log",
        """
        CREATE TABLE audit_log (
            seq BIGSERIAL PRIMARY KEY,
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
        -- Rows updated or deleted, in order (see the SQLite migration of the same name). Writes
        -- hold the store's write lock, so change numbers are in commit order.
        CREATE TABLE memory_changes (cseq BIGSERIAL PRIMARY KEY, mseq BIGINT NOT NULL);
        CREATE FUNCTION salience_log_change() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            logged BIGINT;
        BEGIN
            INSERT INTO memory_changes (mseq) VALUES (OLD.seq) RETURNING cseq INTO logged;
            IF logged % 1000 = 0 THEN
                DELETE FROM memory_changes WHERE cseq <= logged - 100000;
            END IF;
            RETURN NULL;
        END $$;
        CREATE TRIGGER memories_changed AFTER UPDATE OR DELETE ON memories
            FOR EACH ROW EXECUTE FUNCTION salience_log_change();
        """,
    ),
    (
        "0008_audit_user",
        """
        ALTER TABLE audit_log ADD COLUMN "user" TEXT;
        CREATE INDEX audit_log_by_user ON audit_log ("user", seq);
        """,
    ),
    (
        "0009_api_keys",
        """
        CREATE TABLE api_keys (
            id TEXT PRIMARY KEY,
            secret_hash TEXT NOT NULL,
            "user" TEXT NOT NULL,
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
        CREATE TABLE jobs (
            id TEXT PRIMARY KEY,
            "user" TEXT NOT NULL,
            kind TEXT NOT NULL,
            state TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            done BIGINT NOT NULL,
            total BIGINT NOT NULL,
            finished_at TEXT,
            result TEXT,
            error TEXT,
            owner TEXT NOT NULL
        );
        CREATE INDEX jobs_by_user ON jobs ("user", created_at);
        """,
    ),
    (
        "0011_key_source",
        """
        ALTER TABLE api_keys ADD COLUMN source TEXT NOT NULL DEFAULT 'user';
        """,
    ),
    ("0012_traces", TRACES),
    (
        "0013_row_counts",
        """
        -- How many vectors the store holds, kept by triggers (see the SQLite migration of the
        -- same name); one statement's rows are counted at once.
        CREATE TABLE row_counts (name TEXT PRIMARY KEY, n BIGINT NOT NULL);
        INSERT INTO row_counts VALUES ('vectors', (SELECT count(*) FROM memory_vectors));
        CREATE FUNCTION salience_count_rows() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                UPDATE row_counts SET n = n + (SELECT count(*) FROM added)
                    WHERE name = TG_ARGV[0];
            ELSE
                UPDATE row_counts SET n = n - (SELECT count(*) FROM removed)
                    WHERE name = TG_ARGV[0];
            END IF;
            RETURN NULL;
        END $$;
        CREATE TRIGGER vectors_counted_in AFTER INSERT ON memory_vectors
            REFERENCING NEW TABLE AS added FOR EACH STATEMENT
            EXECUTE FUNCTION salience_count_rows('vectors');
        CREATE TRIGGER vectors_counted_out AFTER DELETE ON memory_vectors
            REFERENCING OLD TABLE AS removed FOR EACH STATEMENT
            EXECUTE FUNCTION salience_count_rows('vectors');
        """,
    ),
    (
        "0014_vector_sessions",
        """
        -- Each vector's session, in a narrow table by (session, vseq): the search that reads
        -- only its candidates (search/pgvector.py) finds each one's session neighbours with
        -- two index lookups, where a join through memories took 16,000 (57 ms for 400
        -- candidates at 100k). Not a column of memory_vectors: filling one rewrote every
        -- vector's row and its HNSW entry (3 minutes at 100k). Kept by triggers: a vector
        -- written takes its memory's session, one deleted takes its row along, and a memory
        -- whose session changes moves its row (and is counted: a process that holds
        -- neighbours it read knows to read them again).
        CREATE TABLE vector_sessions (
            vseq BIGINT PRIMARY KEY REFERENCES memory_vectors (vseq) ON DELETE CASCADE,
            memory_id TEXT NOT NULL,
            session_id TEXT NOT NULL
        );
        CREATE INDEX vector_sessions_order ON vector_sessions (session_id, vseq)
            INCLUDE (memory_id);
        CREATE INDEX vector_sessions_memory ON vector_sessions (memory_id);
        INSERT INTO vector_sessions
            SELECT v.vseq, v.memory_id, m.session_id FROM memory_vectors v
            JOIN memories m ON m.id = v.memory_id WHERE m.session_id IS NOT NULL;
        CREATE FUNCTION salience_vector_sessions() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO vector_sessions
                SELECT a.vseq, a.memory_id, m.session_id FROM added a
                JOIN memories m ON m.id = a.memory_id WHERE m.session_id IS NOT NULL;
            RETURN NULL;
        END $$;
        CREATE TRIGGER vector_sessions_in AFTER INSERT ON memory_vectors
            REFERENCING NEW TABLE AS added FOR EACH STATEMENT
            EXECUTE FUNCTION salience_vector_sessions();
        INSERT INTO row_counts VALUES ('sessions_moved', 0);
        CREATE FUNCTION salience_session_moved() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE row_counts SET n = n + 1 WHERE name = 'sessions_moved';
            DELETE FROM vector_sessions WHERE memory_id = NEW.id;
            INSERT INTO vector_sessions
                SELECT v.vseq, v.memory_id, NEW.session_id FROM memory_vectors v
                WHERE v.memory_id = NEW.id AND NEW.session_id IS NOT NULL;
            RETURN NULL;
        END $$;
        CREATE TRIGGER session_moved AFTER UPDATE OF session_id ON memories
            FOR EACH ROW WHEN (OLD.session_id IS DISTINCT FROM NEW.session_id)
            EXECUTE FUNCTION salience_session_moved();
        """,
    ),
    *SHARED,  # (the same SQL as SQLite's last steps)
)

# Text compares and sorts byte by byte, as in SQLite, whatever the database's locale: ids,
# canonical times and keys then order the same way in both stores.
MIGRATIONS = tuple(
    (name, re.sub(r"\bTEXT\b(?! SEARCH)", 'TEXT COLLATE "C"', script))
    for name, script in MIGRATIONS
)
