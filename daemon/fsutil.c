// SPDX-License-Identifier: GPL-2.0
/*
 * fsutil.c - file-system helpers.
 *
 * Hashing uses libgit2's blob hash (SHA-1 of "blob <len>\0<data>"): the
 * same id `git hash-object` prints, without another crypto dependency.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <git2.h>
#include <limits.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fsutil.h"
#include "interrupt.h"
#include "strbuf.h"
#include "util.h"

int mkdir_p(const char *path, unsigned int mode)
{
	char *p = xstrdup(path), *s;

	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST) {
			error_errno("cannot create directory '%s'", p);
			free(p);
			return -1;
		}
		*s = '/';
	}
	if (mkdir(p, mode) < 0 && errno != EEXIST) {
		error_errno("cannot create directory '%s'", p);
		free(p);
		return -1;
	}
	free(p);
	return 0;
}

int file_exists(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

int check_input_file(const char *path, const char *what)
{
	struct stat st;
	const char *kind;

	/* stat, not open: opening a FIFO would wait for a writer */
	if (stat(path, &st) < 0)
		return error_errno("cannot read '%s'", path);
	if (S_ISREG(st.st_mode))
		return 0;
	if (S_ISDIR(st.st_mode))
		return error("'%s' is a directory, not %s", path, what);
	if (S_ISFIFO(st.st_mode))
		kind = "a FIFO";
	else if (S_ISSOCK(st.st_mode))
		kind = "a socket";
	else if (S_ISCHR(st.st_mode))
		kind = "a character device";
	else if (S_ISBLK(st.st_mode))
		kind = "a block device";
	else
		kind = "of an unknown type";
	return error("'%s' is %s, not a regular file (%s expected)", path,
		     kind, what);
}

int dir_exists(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

int open_beneath(const char *dir, const char *path)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS,
	};
	size_t n = strlen(dir);
	char *abs = NULL, *cwd;
	int dfd, fd = -1, err;

	/* a relative path (as a person typed it) from where we are */
	if (path[0] != '/') {
		cwd = getcwd(NULL, 0);
		if (!cwd)
			return -1;
		path = abs = xstrfmt("%s/%s", cwd, path);
		free(cwd);
	}
	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (strncmp(path, dir, n) || path[n] != '/' || !path[n + 1]) {
		errno = EXDEV;
		goto out;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		goto out;
	fd = syscall(SYS_openat2, dfd, path + n + 1, &how, sizeof(how));
	err = errno;
	close(dfd);
	errno = err;
out:
	err = errno;
	free(abs);
	errno = err;
	return fd;
}

int write_file(const char *path, const void *buf, size_t len)
{
	char *tmp = xstrfmt("%s.tmp%d", path, (int)getpid());
	const char *p = buf;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0) {
		error_errno("cannot create '%s'", tmp);
		free(tmp);
		return -1;
	}
	if (write_in_full(fd, p, len) < 0) {
		error_errno("cannot write '%s'", tmp);
		close(fd);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	if (fsync(fd) < 0 || close(fd) < 0 || rename(tmp, path) < 0) {
		error_errno("cannot write '%s'", path);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

int copy_file(const char *src, const char *dst)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (strbuf_read_file(&sb, src, 0) < 0) {
		strbuf_release(&sb);
		return error_errno("cannot read '%s'", src);
	}
	ret = write_file(dst, sb.buf, sb.len);
	strbuf_release(&sb);
	return ret;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	if (remove(path) < 0 && errno != ENOENT)
		return error_errno("cannot remove '%s'", path);
	return 0;
}

int remove_tree(const char *path)
{
	if (access(path, F_OK) < 0)
		return 0;
	return nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS) ? -1 : 0;
}

char *real_path(const char *path)
{
	char *p = realpath(path, NULL);

	if (!p)
		die_errno("cannot resolve '%s'", path);
	return p;
}

void hash_hex(const void *buf, size_t len, char out[41])
{
	git_oid oid;

	if (git_odb_hash(&oid, buf, len, GIT_OBJECT_BLOB) < 0)
		BUG("git_odb_hash failed");
	git_oid_tostr(out, 41, &oid);
}

int hash_file_hex(const char *path, char out[41])
{
	struct strbuf sb = STRBUF_INIT;

	if (strbuf_read_file(&sb, path, 0) < 0) {
		strbuf_release(&sb);
		return error_errno("cannot read '%s'", path);
	}
	hash_hex(sb.buf, sb.len, out);
	strbuf_release(&sb);
	return 0;
}

long long fs_free_mib(const char *path)
{
	struct statvfs vfs;

	if (statvfs(path, &vfs) < 0)
		return error_errno("cannot statvfs '%s'", path);
	return (long long)vfs.f_bavail * vfs.f_frsize / (1024 * 1024);
}

long long mem_available_mib(void)
{
	FILE *fp = fopen("/proc/meminfo", "r");
	char line[256];
	long long kib = -1;

	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "MemAvailable: %lld kB", &kib) == 1)
			break;
	fclose(fp);
	return kib < 0 ? -1 : kib / 1024;
}

void tail_file(const char *path, int lines, struct strbuf *out)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	int seen = 0;

	if (strbuf_read_file(&sb, path, 0) < 0) {
		strbuf_release(&sb);
		return;
	}
	strbuf_rtrim(&sb);
	for (i = sb.len; i > 0; i--) {
		if (sb.buf[i - 1] == '\n' && ++seen == lines)
			break;
	}
	strbuf_add(out, sb.buf + i, sb.len - i);
	strbuf_release(&sb);
}

/* --- the host's cores, between builds and guests ----------------------- */

/* byte @byte of @fd locked (F_WRLCK or F_RDLCK), without waiting: 0 or -1 */
static int ofd_try(int fd, short type, off_t byte)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET,
			    .l_start = byte, .l_len = 1 };

	return fcntl(fd, F_OFD_SETLK, &fl);
}

static void ofd_unlock(int fd, off_t byte)
{
	ofd_try(fd, F_UNLCK, byte);
}

/*
 * Byte @byte locked, trying every 200 ms (a wait that a stop request
 * ends, which a blocking F_OFD_SETLKW under SA_RESTART would not):
 * 0, CPU_LOCK_STOPPED when interrupted, or -1 when the lock fails for
 * another reason.
 */
static int ofd_wait(int fd, short type, off_t byte, const char *path,
		    const char *what, int *said)
{
	while (ofd_try(fd, type, byte) < 0) {
		if (errno != EAGAIN && errno != EACCES && errno != EINTR) {
			log_warnx("cannot lock '%s': %s; %s goes on without "
				  "it", path, strerror(errno), what);
			return -1;
		}
		if (interrupted())
			return CPU_LOCK_STOPPED;
		if (!*said) {
			progress("%s waits for the cores (%s: %s)", what,
				 path, type == F_WRLCK && byte ?
				 "guests are running" : "a build holds them");
			*said = 1;
		}
		usleep(200 * 1000);
	}
	return 0;
}

int cpu_lock_take(int exclusive, const char *what)
{
	const char *path = getenv("MMCI_CPU_LOCK");
	int fd, said = 0, rc;

	if (!path || !*path)
		return -1;
	/*
	 * Open before create: with fs.protected_regular an O_CREAT open of
	 * another user's file in a sticky directory (/var/tmp) fails
	 */
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0) {
		log_warnx("cannot open the CPU lock '%s': %s; %s goes on "
			  "without it", path, strerror(errno), what);
		return -1;
	}
	/* every user of the host shares it: a umask must not close it */
	(void)fchmod(fd, 0666);
	/*
	 * Byte 0 is a gate, byte 1 the cores. A build shuts the gate, then
	 * waits for the guests that are in to end; a guest passes the gate
	 * (waiting while a build holds it) and takes the cores shared. So a
	 * stream of guests cannot starve a build.
	 */
	rc = ofd_wait(fd, F_WRLCK, 0, path, what, &said);
	if (rc < 0)
		goto fail;
	if (!exclusive)
		ofd_unlock(fd, 0);
	rc = ofd_wait(fd, exclusive ? F_WRLCK : F_RDLCK, 1, path, what,
		      &said);
	if (rc < 0)
		goto fail;
	if (exclusive)
		ofd_unlock(fd, 0);
	return fd;
fail:
	close(fd);
	return rc;
}

void cpu_lock_drop(int fd)
{
	if (fd >= 0)
		close(fd);
}
