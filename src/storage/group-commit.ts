import type SqliteDatabase from "better-sqlite3";

/**
 * Group commit for SQLite (issue 12). A write is a synchronous function over the connection:
 * no await inside it, so nothing else can run between its statements. Writes submitted while
 * the connection is busy, or in the same turn of the event loop, share one transaction: each
 * runs inside its own savepoint, so one that throws rolls back only itself and its caller gets
 * the error; the others commit together, and every promise settles only after that COMMIT (a
 * caller never answers for a write that is not committed). One commit, and one WAL sync, for the
 * whole group.
 */
export class GroupCommit {
  private queue: Array<Pending<unknown>> = [];
  private scheduled = false;
  private readonly statements: Record<
    "begin" | "commit" | "rollback" | "save" | "undo" | "release",
    SqliteDatabase.Statement
  >;

  /**
   * `connection`: the writer's connection. `turn`: runs a synchronous function when the
   * connection is free, that is, when no other transaction (the query builder's) is open on it.
   */
  constructor(
    private readonly connection: SqliteDatabase.Database,
    private readonly turn: (run: () => void) => Promise<void>,
  ) {
    const prepare = (sql: string) => connection.prepare(sql);
    this.statements = {
      begin: prepare("begin immediate"),
      commit: prepare("commit"),
      rollback: prepare("rollback"),
      save: prepare("savepoint one_write"),
      undo: prepare("rollback to one_write"),
      release: prepare("release one_write"),
    };
  }

  /**
   * Runs `write` now, on the writer's connection, inside the query builder's transaction that
   * holds it (`trx`, the proof; SQLite has one writer's connection): so a cold-path transaction
   * writes with the very statements the group commit's writes use.
   */
  within<T>(_trx: unknown, write: (connection: SqliteDatabase.Database) => T): T {
    if (!this.connection.inTransaction) throw new Error("within: no transaction is open on the connection");
    return write(this.connection);
  }

  /** Runs `write` in the next group's transaction; settles once that transaction has committed. */
  run<T>(write: (connection: SqliteDatabase.Database) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ write, resolve, reject } as Pending<unknown>);
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => {
        let flushed = false;
        this.turn(() => {
          flushed = true;
          this.flush();
        }).catch((error: unknown) => {
          // The connection could not be had (closed): nothing ran, so the waiting writes fail.
          if (!flushed) this.failAll(error);
        });
      });
    });
  }

  private flush(): void {
    this.scheduled = false;
    const group = this.queue;
    this.queue = [];
    if (group.length === 0) return;
    const { begin, commit, rollback, save, undo, release } = this.statements;
    try {
      begin.run();
    } catch (error) {
      for (const pending of group) pending.reject(error);
      return;
    }
    const done: Array<[Pending<unknown>, unknown]> = [];
    let next = 0;
    try {
      for (; next < group.length; next++) {
        const pending = group[next] as Pending<unknown>;
        save.run();
        try {
          done.push([pending, pending.write(this.connection)]);
        } catch (error) {
          // Some errors (a full disk, an I/O error) make SQLite roll the whole transaction back:
          // then the group's earlier writes are gone too, and all of it fails with that error.
          if (!this.connection.inTransaction) throw error;
          undo.run();
          pending.reject(error);
        }
        release.run();
      }
      commit.run();
    } catch (error) {
      // The commit failed, or the transaction was rolled back under the group: the disk is
      // full, or the database is gone. Nothing of the group is kept, and every write of it that
      // had not already failed alone fails with this error.
      if (this.connection.inTransaction) rollback.run();
      for (const [pending] of done) pending.reject(error);
      for (const pending of group.slice(next)) pending.reject(error);
      return;
    }
    for (const [pending, result] of done) pending.resolve(result);
  }

  private failAll(error: unknown): void {
    const group = this.queue;
    this.queue = [];
    this.scheduled = false;
    for (const pending of group) pending.reject(error);
  }
}

interface Pending<T> {
  write: (connection: SqliteDatabase.Database) => T;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}
