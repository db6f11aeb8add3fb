"""Which query words FTS5's BM25 gives no weight: found in half of all rows or more.

FTS5's ``bm25`` weighs a term by ``idf = log((N - n + 0.5) / (n + 0.5))`` and clamps it to
1e-6 when that is not positive, i.e. when the term occurs in at least half of the N rows.
Such a word changes no ranking, but FTS5 still has to score every row it occurs in before
it can sort: at 100k memories a query naming the year most memories were written in took
~170 ms instead of ~1 ms. Leaving it out of the query changes scores by at most ~2e-6 and
drops only rows that matched nothing else (their full-text score was ~0). Only words in at
least 10,000 rows are left out: below that they cost little, and in a small store (where
every word is in half the rows of two) the rows they find are the only hits there are.

Counts come from the index itself (an ``fts5vocab`` table), are kept per word, and are
counted again once the table has grown or shrunk by more than 1 %. A connection that cannot
make TEMP tables (a read-only layer) keeps every word.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

_REUSE_WITHIN = 0.01  # a count taken at N rows is used until the table differs by this much
MIN_ROWS = 10_000  # a word in fewer rows is always searched for
_CACHE_LIMIT = 50_000  # counts kept at most (queries may bring any word): then start afresh
TEXT_COLUMNS = "{content title tags entities}"  # every column of memory_fts but the dates'
LAST_COLUMN = "dated"
_TOKENS: dict[str, tuple[str, ...]] = {}  # word -> its tokens (the tokenizer never changes)


class TermCounts:
    """Per connection: row counts of query words in ``memory_fts`` (callers hold its lock)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._usable: bool | None = None
        self._counts: dict[str, tuple[int, int]] = {}  # token -> (rows with it, rows then)

    def _prepare(self) -> bool:
        if self._usable is None:
            try:
                # The same tokenizer as memory_fts: a word's tokens as the index has them.
                self._conn.execute(
                    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.salience_words "
                    "USING fts5(word, tokenize = 'porter unicode61')"
                )
                self._conn.execute(
                    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.salience_word_tokens "
                    "USING fts5vocab(temp, salience_words, 'instance')"
                )
                self._conn.execute(
                    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.salience_index_terms "
                    "USING fts5vocab(main, memory_fts, 'row')"
                )
                self._conn.execute(
                    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.salience_index_columns "
                    "USING fts5vocab(main, memory_fts, 'col')"
                )
                self._usable = True
            except sqlite3.Error:
                self._usable = False
        return self._usable

    def total_rows(self) -> int | None:
        """FTS5's own row count N (the first varint of its averages record, id 1)."""
        row = self._conn.execute("SELECT block FROM memory_fts_data WHERE id = 1").fetchone()
        if row is None or not row[0]:
            return None
        return _varint(bytes(row[0]))

    def weightless(self, words: list[str], total: int | None = None) -> set[str]:
        """The words of ``words`` that are one token found in at least half of all rows
        (and in at least :data:`MIN_ROWS`); ``total``: :meth:`total_rows` if already read."""
        if not words:
            return set()
        total = self.total_rows() if total is None else total
        if total is None or total < 2 * MIN_ROWS:
            return set()
        for _ in range(2):
            if not self._prepare():
                break
            try:
                return self._weightless(words, total)
            except sqlite3.OperationalError:
                # TEMP tables made inside a transaction that was rolled back are gone with
                # it: make them again (once), else search for every word.
                self._usable = None
        return set()

    def phrases(self, words: list[str]) -> list[tuple[str, ...]] | None:
        """Each word's tokens as ``memory_fts`` indexes them (porter-stemmed, split at
        punctuation: "john's" is the phrase john s); None if this connection cannot say."""
        known = {word: _TOKENS.get(word) for word in words}
        new = [word for word, tokens in known.items() if tokens is None]
        if new:
            if not self._prepare():
                return None
            try:
                self._conn.executemany(
                    "INSERT INTO temp.salience_words (rowid, word) VALUES (?, ?)",
                    list(enumerate(new)),
                )
                try:
                    found = self._conn.execute(
                        "SELECT doc, offset, term FROM temp.salience_word_tokens"
                    ).fetchall()
                finally:
                    self._conn.execute("DELETE FROM temp.salience_words")
            except sqlite3.OperationalError:
                self._usable = None  # (as in weightless: made again next time)
                return None
            tokens: dict[int, list[tuple[int, str]]] = {}
            for doc, offset, term in found:
                tokens.setdefault(int(doc), []).append((int(offset), str(term)))
            if len(_TOKENS) + len(new) > _CACHE_LIMIT:
                _TOKENS.clear()
            for i, word in enumerate(new):
                known[word] = _TOKENS[word] = tuple(t for _, t in sorted(tokens.get(i, [])))
        return [known[word] or () for word in words]

    def rows_matching(self, word: str, tokens: Sequence[str], dated: bool) -> int | None:
        """How many rows of ``memory_fts`` the query word ``word`` (its ``tokens``, as
        :meth:`phrases` gives them) matches, in every column if ``dated``, else in all but
        the last (the dates'): the n of the idf FTS5's ``bm25`` gives it. A word of one token
        not found among the dates is counted by the index's vocabulary (one entry), any other
        by FTS5 itself (every row holding it is read); None if this connection cannot say."""
        if not self._prepare():
            return None
        try:
            if len(tokens) == 1:
                columns = dict(
                    self._conn.execute(
                        "SELECT col, doc FROM temp.salience_index_columns WHERE term = ?",
                        (tokens[0],),
                    ).fetchall()
                )
                if not columns:
                    return 0
                if dated or LAST_COLUMN not in columns:
                    if len(columns) == 1:
                        return int(next(iter(columns.values())))
                    return self._rows_now(tokens[0])
            phrase = '"' + word.replace('"', '""') + '"'
            expression = phrase if dated else f"{TEXT_COLUMNS} : {phrase}"
            row = self._conn.execute(
                "SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?", (expression,)
            ).fetchone()
            return int(row[0])
        except sqlite3.OperationalError:
            self._usable = None  # (as in weightless: made again next time)
            return None

    def _rows_now(self, token: str) -> int:
        row = self._conn.execute(
            "SELECT doc FROM temp.salience_index_terms WHERE term = ?", (token,)
        ).fetchone()
        return 0 if row is None else int(row[0])

    def _weightless(self, words: list[str], total: int) -> set[str]:
        found = self.phrases(words)  # (each word's tokens are read once a process)
        if found is None:
            raise sqlite3.OperationalError("the words' tokens could not be read")
        out = set()
        for word, tokens in zip(words, found, strict=True):
            only = set(tokens)
            if len(only) == 1:
                rows = self._rows_with(next(iter(only)), total)
                if rows >= MIN_ROWS and 2 * rows >= total:
                    out.add(word)
        return out

    def _rows_with(self, token: str, total: int) -> int:
        known = self._counts.get(token)
        if known is not None and abs(total - known[1]) <= _REUSE_WITHIN * known[1]:
            return known[0]
        count = self._rows_now(token)
        if len(self._counts) >= _CACHE_LIMIT:
            self._counts.clear()
        self._counts[token] = (count, total)
        return count


def _varint(data: bytes) -> int | None:
    """SQLite's variable-length integer at the start of ``data`` (None if cut short)."""
    found = varints(data[:9])
    return found[0] if found else None


def varints(data: bytes) -> list[int]:
    """SQLite's variable-length integers, one after another (one cut short is left out)."""
    out: list[int] = []
    i = 0
    while i < len(data):
        value = 0
        for j in range(9):
            if i >= len(data):
                return out
            byte = data[i]
            i += 1
            if j == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if byte < 0x80:
                break
        out.append(value)
    return out
