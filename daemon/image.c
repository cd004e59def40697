// SPDX-License-Identifier: GPL-2.0
/*
 * image.c - run vm-images/mkinitramfs.sh, cache its output.
 */
#include <unistd.h>

#include "arch.h"
#include "config.h"
#include "fsutil.h"
#include "image.h"
#include "run-command.h"
#include "strbuf.h"
#include "util.h"

/*
 * Modules the runner loads itself (not /init): mmci_bench.ko, built next
 * to modroot by build.c, and the kernel's test_vmalloc.ko. Returns a
 * space-separated list of those that exist, and adds their hashes to key.
 */
static char *extra_modules(const char *release, const char *modroot,
			   struct strbuf *key)
{
	char *cand[2];
	struct strbuf list = STRBUF_INIT;
	size_t i;

	cand[0] = xstrfmt("%s/../mmci-bench/mmci_bench.ko", modroot);
	cand[1] = xstrfmt("%s/lib/modules/%s/kernel/lib/test_vmalloc.ko",
			  modroot, release);
	for (i = 0; i < ARRAY_SIZE(cand); i++) {
		char h[41];

		if (file_exists(cand[i]) && !hash_file_hex(cand[i], h)) {
			strbuf_addf(&list, "%s%s", list.len ? " " : "",
				    cand[i]);
			strbuf_addf(key, " %s", h);
		}
		free(cand[i]);
	}
	return strbuf_detach(&list, NULL);
}

int image_build(const struct mmci_config *cfg, const struct arch *arch,
		const char *release, const char *modroot, char **out,
		char sha1[41])
{
	char *runner = project_path(cfg, arch->runner);
	char *init = project_path(cfg, "vm-images/init");
	char *script = project_path(cfg, "vm-images/mkinitramfs.sh");
	char h_runner[41], h_init[41], h_script[41], h_busybox[41], key[41];
	struct strbuf keysrc = STRBUF_INIT;
	char *dir = NULL, *path = NULL, *log = NULL, *extra = NULL;
	char *extra_env = NULL, *busybox_env = NULL, *modules_env = NULL;
	int ret = -1;

	if (!file_exists(runner)) {
		error("guest runner '%s' not built (run 'make'%s)", runner,
		      *arch->cross ? "; it needs gcc-aarch64-linux-gnu and "
		      "libc6-dev-arm64-cross, which make setup installs" : "");
		goto out;
	}
	if (hash_file_hex(runner, h_runner) < 0 ||
	    hash_file_hex(init, h_init) < 0 ||
	    hash_file_hex(script, h_script) < 0 ||
	    hash_file_hex(arch_busybox(arch), h_busybox) < 0)
		goto out;
	strbuf_addf(&keysrc, "%s %s %s %s %s", h_runner, h_init, h_script,
		    release, modroot);
	/* x86_64's key is that of before arches: its busybox is the host's */
	if (strcmp(arch->name, ARCH_DEFAULT))
		strbuf_addf(&keysrc, " %s busybox %s", arch->name, h_busybox);
	extra = extra_modules(release, modroot, &keysrc);
	extra_env = xstrfmt("MMCI_EXTRA_MODULES=%s", extra);
	busybox_env = xstrfmt("BUSYBOX=%s", arch_busybox(arch));
	/* the arch's own (arm64: virtio_console, for /dev/hvc0) */
	if (arch->modules)
		modules_env = xstrfmt("MMCI_MODULES_ADD=%s", arch->modules);
	hash_hex(keysrc.buf, keysrc.len, key);
	dir = data_path(cfg, "images");
	path = xstrfmt("%s/%s-%.12s.cpio.gz", dir, release, key);
	if (!file_exists(path)) {
		const char *argv[] = { "sh", script, path, release, modroot,
				       runner, NULL };
		const char *env[] = { extra_env, busybox_env, modules_env,
				      NULL };
		struct child_process cmd = CHILD_PROCESS_INIT;

		log = xstrfmt("%s.log", path);
		unlink(log);
		progress("making the initramfs for %s%s%s", release,
			 *extra ? " with " : "", extra);
		cmd.argv = argv;
		cmd.env = env;
		cmd.log_path = log;
		if (run_command(&cmd)) {
			struct strbuf tail = STRBUF_INIT;

			tail_file(log, 3, &tail);
			error("cannot make the initramfs for %s: %s (see %s)",
			      release, tail.buf, log);
			strbuf_release(&tail);
			unlink(path);
			goto out;
		}
	}
	if (hash_file_hex(path, sha1) < 0)
		goto out;
	*out = path;
	path = NULL;
	ret = 0;
out:
	strbuf_release(&keysrc);
	free(runner);
	free(init);
	free(script);
	free(dir);
	free(path);
	free(log);
	free(extra);
	free(extra_env);
	free(busybox_env);
	free(modules_env);
	return ret;
}
