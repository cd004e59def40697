// SPDX-License-Identifier: GPL-2.0
/*
 * service-user.c - the user that parses untrusted input (service-user.h).
 */
#include <errno.h>
#include <ftw.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "fsutil.h"
#include "run-command.h"
#include "service-user.h"
#include "strbuf.h"
#include "util.h"

/*
 * Root under systemd keeps only the capabilities its unit names: without
 * these a child could not drop to the user, or be stopped by us (root
 * without CAP_KILL may not signal another user's process), and the
 * daemon would wait for it forever. Refuse at once instead.
 */
static int need_capabilities(struct service_user *u)
{
	static const struct {
		int cap;
		const char *name;
	} need[] = {
		{ CAP_SETUID, "CAP_SETUID" },
		{ CAP_SETGID, "CAP_SETGID" },
		{ CAP_CHOWN, "CAP_CHOWN" },
		{ CAP_KILL, "CAP_KILL" },
	};
	struct strbuf missing = STRBUF_INIT;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(need); i++)
		if (!have_capability(need[i].cap))
			strbuf_addf(&missing, " %s", need[i].name);
	if (missing.len) {
		error("mmci runs as root without%s: it cannot run the parsers "
		      "of mail, feeds and HTTP as user '%s' (MMCI_USER); "
		      "grant them (systemd/mmci.service does) or run mmci as "
		      "an unprivileged user", missing.buf, u->name);
		strbuf_release(&missing);
		return -1;
	}
	u->active = 1;
	return 0;
}

int service_user_init(struct service_user *u)
{
	const char *name = getenv("MMCI_USER");
	struct passwd *pw;

	memset(u, 0, sizeof(*u));
	if (geteuid())
		return 0;
	if (!name || !*name)
		name = SERVICE_USER_DEFAULT;
	if (strlen(name) >= sizeof(u->name))
		return error("MMCI_USER '%.40s...' is too long", name);
	errno = 0;
	pw = getpwnam(name);
	if (!pw)
		return error("user '%s' (MMCI_USER) does not exist%s%s: mmci "
			     "as root parses mail, feeds and HTTP as that "
			     "user; create it with vm-images/host-setup.sh",
			     name, errno ? ": " : "",
			     errno ? strerror(errno) : "");
	if (!pw->pw_uid || !pw->pw_gid)
		return error("MMCI_USER '%s' is root (uid %d, gid %d): it must "
			     "name an unprivileged user", name,
			     (int)pw->pw_uid, (int)pw->pw_gid);
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	xsnprintf(u->name, sizeof(u->name), "%s", name);
	return need_capabilities(u);
}

/* may uid/gid (no supplementary groups) search directory @st? */
static int may_search(const struct service_user *u, const struct stat *st)
{
	if (st->st_uid == u->uid)
		return !!(st->st_mode & S_IXUSR);
	if (st->st_gid == u->gid)
		return !!(st->st_mode & S_IXGRP);
	return !!(st->st_mode & S_IXOTH);
}

/*
 * Every directory above @path (and @path's own when it is one) must be
 * searchable by the user: a database below root's 0700 home would make
 * every poll fail with "unable to open database file".
 */
static int check_reach(const struct service_user *u, const char *path)
{
	struct strbuf dir = STRBUF_INIT;
	char *slash;
	int ret = 0;

	strbuf_addstr(&dir, path);
	for (;;) {
		struct stat st;

		slash = strrchr(dir.buf, '/');
		if (!slash)
			break;
		strbuf_setlen(&dir, slash > dir.buf ? slash - dir.buf : 1);
		if (stat(dir.buf, &st) < 0) {
			ret = error_errno("cannot stat '%s'", dir.buf);
			break;
		}
		if (!may_search(u, &st)) {
			ret = error("user '%s' (MMCI_USER) cannot reach '%s': "
				    "'%s' is mode %04o, owner %d; give it "
				    "search permission (chmod o+x, or an ACL "
				    "u:%s:x) or move the data",
				    u->name, path, dir.buf,
				    (int)(st.st_mode & 07777),
				    (int)st.st_uid, u->name);
			break;
		}
		if (dir.len == 1)
			break;
	}
	strbuf_release(&dir);
	return ret;
}

static uid_t give_uid;
static gid_t give_gid;
static char *give_failed;

static int give_one(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	(void)ftw;
	if (type == FTW_NS || type == FTW_DNR)
		return 0;
	/*
	 * A file with a second link may be a hard link to a file outside
	 * (protected_hardlinks off): never hand that over. Nothing mmci
	 * writes there has one.
	 */
	if (type == FTW_F && st->st_nlink > 1)
		return 0;
	if (st->st_uid == give_uid && st->st_gid == give_gid)
		return 0;
	/* lchown: a symbolic link is never followed */
	if (lchown(path, give_uid, give_gid) < 0 && !give_failed)
		give_failed = xstrdup(path);
	return 0;
}

static int give_tree(const struct service_user *u, const char *path)
{
	int ret = 0;

	give_uid = u->uid;
	give_gid = u->gid;
	if (nftw(path, give_one, 16, FTW_PHYS) < 0)
		return error_errno("cannot walk '%s'", path);
	if (give_failed) {
		ret = error_errno("cannot give '%s' to user '%s'", give_failed,
				  u->name);
		free(give_failed);
		give_failed = NULL;
	}
	return ret;
}

/*
 * The database file and the two SQLite keeps beside it: the user's, group
 * root, both may write. The group is for root without CAP_DAC_OVERRIDE:
 * mmci-nightly.service (no capability) records new heads, `mmci build`
 * under a unit without capabilities records its build. SQLite creates a
 * new -wal or -shm with the database's mode and, as root, its owner and
 * group. The mode is set while root still owns the file: changing it
 * afterwards would take CAP_FOWNER, which mmci.service does not keep.
 */
static int give_database(const struct service_user *u, const char *db)
{
	static const char *const suffix[] = { "", "-wal", "-shm" };
	size_t i;
	int ret = 0;

	for (i = 0; i < ARRAY_SIZE(suffix) && !ret; i++) {
		char *p = xstrfmt("%s%s", db, suffix[i]);
		struct stat st;
		mode_t mode;

		if (lstat(p, &st) < 0) {
			if (errno != ENOENT || !*suffix[i])
				ret = error_errno("cannot stat '%s'", p);
			free(p);
			continue;
		}
		mode = (st.st_mode & 0664) | 0660;
		if (!S_ISREG(st.st_mode) || st.st_nlink > 1)
			ret = error("'%s' is not a regular file with one link",
				    p);
		else if (st.st_uid != u->uid && (st.st_mode & 07777) != mode &&
			 chmod(p, mode) < 0)
			ret = error_errno("cannot make '%s' mode %04o", p,
					  (int)mode);
		else if ((st.st_uid != u->uid || st.st_gid != 0) &&
			 lchown(p, u->uid, 0) < 0)
			ret = error_errno("cannot give '%s' to user '%s'", p,
					  u->name);
		free(p);
	}
	return ret;
}

int service_user_handover(const struct service_user *u,
			  const struct mmci_config *cfg)
{
	/* the pages, the fetch cache, the report mails it writes */
	static const char *const dirs[] = { "www", "fetch", "outbox" };
	size_t i;
	int ret;

	if (!u->active)
		return 0;
	ret = check_reach(u, cfg->db_path);
	if (!ret)
		ret = give_database(u, cfg->db_path);
	for (i = 0; i < ARRAY_SIZE(dirs) && !ret; i++) {
		char *p = data_path(cfg, dirs[i]);

		ret = mkdir_p(p, 0755);
		if (!ret)
			ret = check_reach(u, p);
		if (!ret)
			ret = give_tree(u, p);
		free(p);
	}
	return ret;
}

void service_user_apply(const struct service_user *u,
			struct child_process *cp)
{
	cp->as_user = u->active;
	cp->uid = u->uid;
	cp->gid = u->gid;
}

int service_user_become(const struct service_user *u)
{
	/* a process that parses input holds no secret, root's or not */
	config_drop_secrets();
	if (!u->active)
		return 0;
	if (setgroups(0, NULL) < 0 ||
	    setresgid(u->gid, u->gid, u->gid) < 0 ||
	    setresuid(u->uid, u->uid, u->uid) < 0)
		return error_errno("cannot become user '%s'", u->name);
	return 0;
}
