/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fsutil.h - small file-system helpers and content hashing.
 */
#ifndef MMCI_FSUTIL_H
#define MMCI_FSUTIL_H

#include <stddef.h>

struct strbuf;

int mkdir_p(const char *path, unsigned int mode);
int file_exists(const char *path);
int dir_exists(const char *path);
/*
 * check_input_file() - can @path be read as a whole file, as @what?
 * @what: what the command wants there, for the message ("an mbox file")
 *
 * A path that names a directory, a FIFO or a device says so ("'x' is a
 * directory, not an mbox file"), instead of failing later at read() or
 * blocking in open() (a FIFO).
 * Return: 0 for a regular file, -1 after error().
 */
int check_input_file(const char *path, const char *what);
/* write len bytes atomically (temp file + rename) */
/*
 * open @path (a relative one from the current directory) for reading
 * only when it names a file below @dir (absolute), with no
 * symbolic link and no ".." on the way (openat2's RESOLVE_BENEATH and
 * RESOLVE_NO_SYMLINKS: the kernel checks it, no race); -1 with errno
 * (EXDEV: not below @dir, ELOOP: a link) otherwise
 */
int open_beneath(const char *dir, const char *path);
int write_file(const char *path, const void *buf, size_t len);
int copy_file(const char *src, const char *dst);
/* remove a directory tree; missing is fine */
int remove_tree(const char *path);
/* absolute path of `path` (which must exist); caller frees */
char *real_path(const char *path);
/* SHA-1 hex (40 chars + NUL) of a buffer, as git hashes a blob */
void hash_hex(const void *buf, size_t len, char out[41]);
/* SHA-1 hex of a file's content; -1 if unreadable */
int hash_file_hex(const char *path, char out[41]);
/* free memory in the file system holding path, in MiB; -1 on error */
long long fs_free_mib(const char *path);
/* MemAvailable from /proc/meminfo, in MiB; -1 on error */
long long mem_available_mib(void);
/* last `lines` lines of a file, appended to out */
void tail_file(const char *path, int lines, struct strbuf *out);

/*
 * cpu_lock_take() - share this host's cores between kernel builds and
 * guests through the file MMCI_CPU_LOCK names
 * @exclusive: 1 for a build (alone on the cores), 0 for a guest (beside
 *             other guests, never beside a build)
 * @what: who waits, for the progress line ("a build", "domain 'x'")
 *
 * Waits while the other kind holds the cores; a build that waits keeps
 * new guests out until it has had its turn. Without MMCI_CPU_LOCK, or
 * when the file cannot be locked (a warning), it returns at once and the
 * caller goes on unlocked.
 * Return: an fd to give cpu_lock_drop(); -1, holding nothing; or
 * CPU_LOCK_STOPPED, holding nothing, when a stop request (interrupt.h)
 * ended the wait.
 */
#define CPU_LOCK_STOPPED (-2)
int cpu_lock_take(int exclusive, const char *what);
void cpu_lock_drop(int fd);

#endif
