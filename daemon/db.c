// SPDX-License-Identifier: GPL-2.0
/*
 * db.c - SQLite access and migrations.
 */
#include <stdarg.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "db.h"
#include "fsutil.h"
#include "util.h"

/* how long a statement waits for another process's lock */
#define BUSY_TIMEOUT_MS 30000

/* less free space than this is "full": SQLite needs a page or a 32 KiB
 * shared-memory segment */
#define FULL_BYTES (64 * 1024ULL)

/*
 * SQLite says "disk I/O error" when it cannot grow its shared-memory file
 * on a full file system, and "database or disk is full" otherwise: say
 * which it is when the file system of the database has no space left.
 */
static const char *full_note(const char *path)
{
	struct statvfs st;
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	int full;

	if (slash)
		*slash = '\0';
	full = !statvfs(slash ? (*dir ? dir : "/") : ".", &st) &&
	       (unsigned long long)st.f_bavail * st.f_frsize < FULL_BYTES;
	free(dir);
	return full ? ": the file system holding it is full (No space left "
		      "on device)" : "";
}

static int db_error(struct db *db, const char *what)
{
	return error("sqlite: %s: %s (%s)%s", what,
		     sqlite3_errmsg(db->handle), db->path,
		     full_note(db->path));
}

static int exec_sql(struct db *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db->handle, sql, NULL, NULL, &msg) != SQLITE_OK) {
		error("sqlite: %.40s%s: %s (%s)%s", sql,
		      strlen(sql) > 40 ? "..." : "",
		      msg ? msg : "unknown error", db->path,
		      full_note(db->path));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int db_schema_version(struct db *db)
{
	return (int)db_int(db, 0, "PRAGMA user_version", "");
}

static int newer_schema(struct db *db, long long cur)
{
	return error("database '%s' has schema %lld, newer than this mmci "
		     "(%d)", db->path, cur,
		     migrations[nr_migrations - 1].version);
}

/*
 * One migration per transaction, the version read under the write lock:
 * several processes opening a new database at once (ten `mmci ingest`
 * started together) wait for each other at BEGIN IMMEDIATE, and each
 * then finds the migrations the others applied and goes on with the next.
 * A version read before the lock made two of them apply one migration
 * ("table series already exists"): 2 to 8 of 10 failed. An up-to-date
 * database, the usual case, is recognised without the lock: the version
 * never goes down.
 */
static int db_migrate(struct db *db)
{
	const int newest = migrations[nr_migrations - 1].version;
	long long cur = 0;

	if (db_int_checked(db, &cur, "PRAGMA user_version", "") < 0)
		return -1;
	if (cur > newest)
		return newer_schema(db, cur);
	while (cur < newest) {
		const struct migration *m = NULL;
		char pragma[64];
		int i;

		if (db_begin(db) < 0)
			return -1;
		cur = 0;
		if (db_int_checked(db, &cur, "PRAGMA user_version", "") < 0) {
			db_rollback(db);
			return -1;
		}
		if (cur > newest) {
			db_rollback(db);
			return newer_schema(db, cur);
		}
		for (i = 0; i < nr_migrations && !m; i++)
			if (migrations[i].version > cur)
				m = &migrations[i];
		if (!m) {
			db_rollback(db);	/* another process finished */
			break;
		}
		xsnprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d",
			  m->version);
		if (exec_sql(db, m->sql) < 0 || exec_sql(db, pragma) < 0) {
			db_rollback(db);
			return error("migration '%s' failed", m->name);
		}
		if (db_commit(db) < 0)
			return error("migration '%s' failed", m->name);
		log_debug("applied migration %s", m->name);
		cur = m->version;
	}
	return 0;
}

/*
 * WAL mode is a property of the file, set by the first process that opens
 * it. The switch needs the file to itself, and SQLite refuses it at once
 * ("database is locked") instead of waiting when another connection that
 * is switching holds a read lock: waiting could deadlock (the busy handler
 * is not called then, sqlite3_busy_handler(3)). Ten processes opening a
 * new database at once hit it in about 1 round of 150 (9 of the 10 failed
 * that round). So the switch is tried again, for as long as a lock is
 * waited for.
 */
static int set_wal(struct db *db)
{
	int waited = 0;

	for (;;) {
		int rc = sqlite3_exec(db->handle, "PRAGMA journal_mode = WAL",
				      NULL, NULL, NULL);

		if ((rc & 0xff) != SQLITE_BUSY || waited >= BUSY_TIMEOUT_MS)
			break;
		usleep(10 * 1000);
		waited += 10;
	}
	return exec_sql(db, "PRAGMA journal_mode = WAL");
}

int db_open(struct db *db, const char *path)
{
	int persist = 1;

	db->path = xstrdup(path);
	if (sqlite3_open_v2(path, &db->handle,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
				    SQLITE_OPEN_FULLMUTEX,
			    NULL) != SQLITE_OK) {
		db_error(db, "cannot open");
		db_close(db);
		return -1;
	}
	sqlite3_busy_timeout(db->handle, BUSY_TIMEOUT_MS);
	/*
	 * Keep the -wal and -shm files when the last connection closes:
	 * the service user (service-user.h) owns the database file and these
	 * two, not the directory they are in, and could not create them.
	 * The last close still checkpoints, so the database file alone is
	 * whole after it.
	 */
	if (sqlite3_file_control(db->handle, "main", SQLITE_FCNTL_PERSIST_WAL,
				 &persist) != SQLITE_OK)
		log_warnx("'%s': cannot keep the -wal file", path);
	if (set_wal(db) < 0 ||
	    exec_sql(db, "PRAGMA synchronous = NORMAL; "
			 "PRAGMA foreign_keys = ON;") < 0 ||
	    db_migrate(db) < 0) {
		db_close(db);
		return -1;
	}
	return 0;
}

void db_close(struct db *db)
{
	if (db->handle)
		sqlite3_close(db->handle);
	db->handle = NULL;
	free(db->path);
	db->path = NULL;
}

static int bind_args(struct db *db, sqlite3_stmt *st, const char *types,
		     va_list ap)
{
	int i, rc = SQLITE_OK;

	if ((int)strlen(types) != sqlite3_bind_parameter_count(st))
		BUG("%zu bind types for %d parameters in: %s", strlen(types),
		    sqlite3_bind_parameter_count(st), sqlite3_sql(st));
	for (i = 0; types[i] && rc == SQLITE_OK; i++) {
		long long v;
		const char *s;

		switch (types[i]) {
		case 'i':
			rc = sqlite3_bind_int64(st, i + 1, va_arg(ap, long long));
			break;
		case 'I':
			v = va_arg(ap, long long);
			rc = v ? sqlite3_bind_int64(st, i + 1, v) :
				 sqlite3_bind_null(st, i + 1);
			break;
		case 'd':
			rc = sqlite3_bind_double(st, i + 1, va_arg(ap, double));
			break;
		case 't':
			s = va_arg(ap, const char *);
			rc = s ? sqlite3_bind_text(st, i + 1, s, -1,
						   SQLITE_TRANSIENT) :
				 sqlite3_bind_null(st, i + 1);
			break;
		default:
			BUG("unknown bind type '%c'", types[i]);
		}
	}
	if (rc != SQLITE_OK)
		return db_error(db, "cannot bind");
	return 0;
}

static sqlite3_stmt *vquery(struct db *db, const char *sql, const char *types,
			    va_list ap)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db->handle, sql, -1, &st, NULL) != SQLITE_OK) {
		db_error(db, sql);
		return NULL;
	}
	if (bind_args(db, st, types, ap) < 0) {
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

sqlite3_stmt *db_query(struct db *db, const char *sql, const char *types, ...)
{
	sqlite3_stmt *st;
	va_list ap;

	va_start(ap, types);
	st = vquery(db, sql, types, ap);
	va_end(ap);
	return st;
}

int db_run(struct db *db, const char *sql, const char *types, ...)
{
	sqlite3_stmt *st;
	va_list ap;
	int rc;

	va_start(ap, types);
	st = vquery(db, sql, types, ap);
	va_end(ap);
	if (!st)
		return -1;
	/* rows of a statement that has some are stepped over */
	while ((rc = db_step(db, st)) == DB_ROW)
		;
	sqlite3_finalize(st);
	return rc < 0 ? -1 : 0;
}

int db_step(struct db *db, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW)
		return DB_ROW;
	if (rc == SQLITE_DONE)
		return DB_DONE;
	return db_error(db, sqlite3_sql(st));
}

/* the single integer of a query: 1, 0 (no row, NULL), -1 after error() */
static int vint(struct db *db, long long *out, const char *sql,
		const char *types, va_list ap)
{
	sqlite3_stmt *st = vquery(db, sql, types, ap);
	int rc;

	if (!st)
		return -1;
	rc = db_step(db, st);
	if (rc == DB_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		*out = sqlite3_column_int64(st, 0);
	else if (rc == DB_ROW)
		rc = 0;
	sqlite3_finalize(st);
	return rc;
}

long long db_int(struct db *db, long long def, const char *sql,
		 const char *types, ...)
{
	long long v = def;
	va_list ap;

	va_start(ap, types);
	vint(db, &v, sql, types, ap);
	va_end(ap);
	return v;
}

int db_int_checked(struct db *db, long long *out, const char *sql,
		   const char *types, ...)
{
	va_list ap;
	int rc;

	va_start(ap, types);
	rc = vint(db, out, sql, types, ap);
	va_end(ap);
	return rc;
}

int db_changes(struct db *db)
{
	return sqlite3_changes(db->handle);
}

long long db_last_id(struct db *db)
{
	return sqlite3_last_insert_rowid(db->handle);
}

int db_begin(struct db *db)
{
	return exec_sql(db, "BEGIN IMMEDIATE");
}

/* a COMMIT that fails leaves no transaction open behind it */
int db_commit(struct db *db)
{
	if (exec_sql(db, "COMMIT") < 0) {
		db_rollback(db);
		return -1;
	}
	return 0;
}

/* after an error SQLite may have rolled back already: then nothing to do */
void db_rollback(struct db *db)
{
	if (!sqlite3_get_autocommit(db->handle))
		exec_sql(db, "ROLLBACK");
}

const char *db_col_text(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	return s ? (const char *)s : "";
}

void db_tag(struct db *db, char tag[9])
{
	char *abs = real_path(db->path), hex[41];

	hash_hex(abs, strlen(abs), hex);
	free(abs);
	memcpy(tag, hex, 8);
	tag[8] = '\0';
}
