/* SPDX-License-Identifier: GPL-2.0 */
/*
 * db.h - the SQLite store: the single source of truth.
 *
 * The database runs in WAL mode with a busy timeout, so a reader (the web
 * pages, `mmci compare`) never blocks the runner and a killed process loses
 * at most its open transaction. Schema changes are numbered migrations from
 * schema/NNNN-*.sql compiled into the binary (see gen-schema.sh); the applied
 * number is PRAGMA user_version.
 */
#ifndef MMCI_DB_H
#define MMCI_DB_H

#include <sqlite3.h>

struct migration {
	int version;
	const char *name;
	const char *sql;
};
extern const struct migration migrations[];
extern const int nr_migrations;

struct db {
	sqlite3 *handle;
	char *path;
};

/* open (creating) and migrate to the newest schema */
int db_open(struct db *db, const char *path);
void db_close(struct db *db);
int db_schema_version(struct db *db);

/*
 * db_run - prepare, bind and step one statement that returns no rows.
 * @types: one letter per '?' parameter: 'i' (long long), 'd' (double),
 *         't' (const char *, NULL binds NULL), 'I' (long long, 0 binds NULL).
 * Returns 0, or -1 after error().
 */
int db_run(struct db *db, const char *sql, const char *types, ...);

/* prepare and bind like db_run; the caller steps and finalizes */
sqlite3_stmt *db_query(struct db *db, const char *sql, const char *types,
		       ...);

/*
 * db_step - sqlite3_step() that tells the end of the rows from an error.
 * Return: DB_ROW (a row is there), DB_DONE (no more rows), or -1 after
 * error() (the query failed: busy, I/O, a runtime error in the SQL).
 *
 *	while ((rc = db_step(db, st)) == DB_ROW)
 *		...;
 *	sqlite3_finalize(st);
 *	if (rc < 0)
 *		return -1;
 */
#define DB_DONE 0
#define DB_ROW 1
int db_step(struct db *db, sqlite3_stmt *st);

/*
 * db_int - the single integer a query returns, or @def when it returns no
 * row or NULL. A failed query says so with error() and also gives @def:
 * for callers for whom a failure and "none" lead to the same thing. A
 * caller that must tell them apart uses db_int_checked().
 */
long long db_int(struct db *db, long long def, const char *sql,
		 const char *types, ...);

/*
 * db_int_checked - like db_int(), with the failure seen by the caller.
 * @out: the integer, when there is one; untouched otherwise
 * Return: 1 (a row with a value), 0 (no row, or NULL), or -1 after
 * error().
 */
int db_int_checked(struct db *db, long long *out, const char *sql,
		   const char *types, ...);

/* rows the last INSERT, UPDATE or DELETE changed: a conditional write
 * (UPDATE ... WHERE status = 'queued') says with it whether it won */
int db_changes(struct db *db);

long long db_last_id(struct db *db);
int db_begin(struct db *db);
int db_commit(struct db *db);
void db_rollback(struct db *db);

/*
 * db_tag - 8 hex digits of the SHA-1 of the database's absolute path: the
 * tag in the names of the domains its runs start, so two databases that
 * share one libvirt (a test suite next to the service) never collide
 */
void db_tag(struct db *db, char tag[9]);

/* column text, or "" for NULL: never NULL */
const char *db_col_text(sqlite3_stmt *st, int col);

#endif
