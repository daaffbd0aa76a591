//! Group commit's side of the store: a batch is one transaction that the
//! server's requests run in, each in a savepoint, and every write of the
//! store takes a savepoint inside a batch or its own transaction outside.

use super::{Store, StoreError};
use rusqlite::{Connection, TransactionBehavior};
use std::ops::Deref;

impl Store {
    /// Begins a batch (group commit): one transaction, holding the write
    /// lock, that the requests run in, each in [`Store::in_savepoint`].
    pub fn begin_batch(&mut self) -> Result<(), StoreError> {
        Ok(self.conn.execute_batch("BEGIN IMMEDIATE")?)
    }

    /// Commits the batch (one sync of the log for all of it); a batch that
    /// does not commit is rolled back whole.
    pub fn commit_batch(&mut self) -> Result<(), StoreError> {
        self.conn.execute_batch("COMMIT").map_err(|e| {
            if !self.conn.is_autocommit() {
                let _ = self.conn.execute_batch("ROLLBACK");
            }
            e.into()
        })
    }

    /// The database's file, for the server's messages (a full disk, say).
    pub fn file(&self) -> &str {
        self.conn.path().unwrap_or("the study database")
    }

    /// Gives up a batch that could not begin: rolls back a transaction an
    /// earlier failure may have left open, so that the next batch can begin.
    pub fn abandon_batch(&mut self) {
        if !self.conn.is_autocommit() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }

    /// Runs one request of a batch in a savepoint, rolled back when `f`
    /// says it failed, so a refusal leaves nothing in the batch.
    pub fn in_savepoint<A>(&mut self, f: impl FnOnce(&mut Store) -> (bool, A)) -> A {
        let saved = self.conn.execute_batch("SAVEPOINT request").is_ok();
        let (ok, answer) = f(self);
        if saved {
            if !ok {
                let _ = self.conn.execute_batch("ROLLBACK TO request");
            }
            let _ = self.conn.execute_batch("RELEASE request");
        }
        answer
    }
}

/// A write's transaction: its own (immediate, so it holds the write lock
/// from its first read), or a savepoint in a batch's transaction.
pub(super) enum Write<'a> {
    /// A transaction of its own, outside a batch.
    Own(rusqlite::Transaction<'a>),
    /// A savepoint in a batch's transaction.
    Nested(rusqlite::Savepoint<'a>),
}

impl Deref for Write<'_> {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        match self {
            Write::Own(t) => t,
            Write::Nested(s) => s,
        }
    }
}

impl Write<'_> {
    /// Commits it (releases the savepoint).
    pub(super) fn commit(self) -> rusqlite::Result<()> {
        match self {
            Write::Own(t) => t.commit(),
            Write::Nested(s) => s.commit(),
        }
    }
}

/// A write's transaction on `conn`: a savepoint when a batch's transaction
/// is open ([`Store::begin_batch`]), else its own.
pub(super) fn write(conn: &mut Connection) -> Result<Write<'_>, StoreError> {
    Ok(if conn.is_autocommit() {
        Write::Own(conn.transaction_with_behavior(TransactionBehavior::Immediate)?)
    } else {
        Write::Nested(conn.savepoint()?)
    })
}
