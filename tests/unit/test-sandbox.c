// SPDX-License-Identifier: GPL-2.0
/*
 * test-sandbox.c - the build sandbox (daemon/sandbox.c), for real: every
 * check runs a command under bwrap and looks at what it could do.
 *
 * The test binary is its own helper: "test-sandbox connect PORT" and
 * "test-sandbox write PATH" exit 0 when they could, 1 when not, so the
 * checks need no tool but bwrap. Scratch directories go below the current
 * directory (the top of the tree, as "make test" runs): /tmp is a private
 * tmpfs in the sandbox, so a directory there would prove nothing.
 * Without a working bwrap the whole test is skipped, with the reason.
 *
 * Run as root (make test), the sandbox runs as the build user
 * (MMCI_BUILD_USER, vm-images/host-setup.sh makes it): test_build_user()
 * checks that a build then cannot read /etc/shadow, that what it writes
 * belongs to that user, and what mmci hands over to it. As another user
 * those cases are skipped, with the reason.
 */
#include <arpa/inet.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "fsutil.h"
#include "run-command.h"
#include "sandbox.h"
#include "strbuf.h"
#include "util.h"

#include "tap.h"

static char *self;	/* this binary (a copy in the scratch dir) */
/*
 * a copy of it runs in the sandboxes, from here, bound read-only: the
 * checkout may be under /tmp, which the sandbox replaces
 */
static char *self_dir;
/*
 * what the helpers exit with when the operation failed: not 1, which is
 * also bwrap's exit when it cannot start the command at all
 */
#define HELPER_FAILED 3
static char *scratch;	/* absolute, removed at the end */

static int helper_connect(const char *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_port = htons(atoi(port));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return fd >= 0 && !connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ?
	       0 : HELPER_FAILED;
}

static int helper_write(const char *path)
{
	return write_file(path, "sandbox\n", 8) < 0 ? HELPER_FAILED : 0;
}

/* run argv in @sb from @dir; its output (stdout+stderr) in @out */
static int run_in(struct sandbox *sb, const char **argv, const char *dir,
		  const char **env, struct strbuf *out)
{
	struct child_process cmd = CHILD_PROCESS_INIT;
	char *log = xstrfmt("%s/log", scratch);
	int code;

	unlink(log);
	cmd.argv = argv;
	cmd.dir = dir;
	cmd.env = env;
	cmd.log_path = log;
	cmd.timeout_s = 60;
	sandbox_wrap(sb, &cmd);
	code = run_command(&cmd);
	sandbox_release(sb);
	strbuf_reset(out);
	strbuf_read_file(out, log, 0);
	strbuf_trim(out);
	free(log);
	return code;
}

static void test_parse(void)
{
	enum sandbox_kind k = SANDBOX_NONE;
	struct mmci_config cfg;

	ok(!sandbox_kind_parse(NULL, &k) && k == SANDBOX_BWRAP,
	   "unset MMCI_BUILD_SANDBOX means bwrap");
	ok(!sandbox_kind_parse("bwrap", &k) && k == SANDBOX_BWRAP, "bwrap");
	ok(!sandbox_kind_parse("none", &k) && k == SANDBOX_NONE, "none");
	is_int(sandbox_kind_parse("off", &k), -1, "anything else is refused");

	setenv("MMCI_BUILD_SANDBOX", "none", 1);
	config_load(&cfg);
	ok(cfg.build_sandbox == SANDBOX_NONE,
	   "config_load reads MMCI_BUILD_SANDBOX=none");
	config_release(&cfg);
	unsetenv("MMCI_BUILD_SANDBOX");
	config_load(&cfg);
	ok(cfg.build_sandbox == SANDBOX_BWRAP, "config_load defaults to bwrap");
	config_release(&cfg);
}

static void test_identity(void)
{
	struct sandbox sb = SANDBOX_INIT;
	struct strbuf out = STRBUF_INIT;
	const char *id[] = { "id", "-u", NULL };
	const char *idg[] = { "id", "-g", NULL };
	const char *caps[] = { "grep", "^CapEff:", "/proc/self/status", NULL };
	const char *bnd[] = { "grep", "^CapPrm:", "/proc/self/status", NULL };

	is_int(run_in(&sb, id, NULL, NULL, &out), 0, "id runs in the sandbox");
	is_str(out.buf, "65534", "uid inside is 65534");
	ok(strcmp(out.buf, "0"), "uid inside is not 0");
	run_in(&sb, idg, NULL, NULL, &out);
	is_str(out.buf, "65534", "gid inside is 65534");
	run_in(&sb, caps, NULL, NULL, &out);
	is_str(out.buf, "CapEff:\t0000000000000000", "no effective capability");
	run_in(&sb, bnd, NULL, NULL, &out);
	is_str(out.buf, "CapPrm:\t0000000000000000", "no permitted capability");
	if (geteuid()) {
		ok(!strcmp(sandbox_describe(&sb),
			   "bwrap, no network, uid 65534"),
		   "described for the build log");
	} else {
		char *want = xstrfmt("bwrap, no network, user %s",
				     SANDBOX_BUILD_USER);

		is_str(sandbox_describe(&sb), want,
		       "described for the build log, with the build user");
		free(want);
	}
	strbuf_release(&out);
}

static void test_network(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	struct sandbox sb = SANDBOX_INIT, none = SANDBOX_INIT;
	struct strbuf out = STRBUF_INIT;
	char port[16];
	const char *argv[] = { self, "connect", port, NULL };
	const char *ro[] = { self_dir, NULL };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 8) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
		ok(0, "listen on 127.0.0.1");
		return;
	}
	xsnprintf(port, sizeof(port), "%d", ntohs(sa.sin_port));
	none.kind = SANDBOX_NONE;
	sb.ro = ro;
	is_int(run_in(&none, argv, NULL, NULL, &out), 0,
	       "outside: connect to 127.0.0.1 succeeds");
	is_int(run_in(&sb, argv, NULL, NULL, &out), HELPER_FAILED,
	       "inside: connect to 127.0.0.1 fails (network namespace)");
	close(fd);
	strbuf_release(&out);
}

static void test_files(void)
{
	char *rw = xstrfmt("%s/rw", scratch);
	char *rw_ro = xstrfmt("%s/rw/ro", scratch);
	char *other = xstrfmt("%s/other", scratch);
	char *f_rw = xstrfmt("%s/file", rw);
	char *f_rw_ro = xstrfmt("%s/file", rw_ro);
	char *f_other = xstrfmt("%s/file", other);
	const char *rws[] = { rw, NULL }, *ros[] = { rw_ro, self_dir, NULL };
	const char *w_rw[] = { self, "write", f_rw, NULL };
	const char *w_rw_ro[] = { self, "write", f_rw_ro, NULL };
	const char *w_other[] = { self, "write", f_other, NULL };
	const char *w_etc[] = { self, "write", "/etc/mmci-sandbox-test", NULL };
	const char *w_tmp[] = { "sh", "-c", "echo x > /tmp/mmci-sandbox-test "
				"&& cat /tmp/mmci-sandbox-test", NULL };
	const char *pwd[] = { "pwd", NULL };
	struct sandbox sb = SANDBOX_INIT;
	struct strbuf out = STRBUF_INIT, got = STRBUF_INIT;

	mkdir_p(rw_ro, 0755);
	mkdir_p(other, 0755);
	sb.rw = rws;
	sb.ro = ros;
	is_int(run_in(&sb, w_rw, NULL, NULL, &out), 0,
	       "writing to a bound writable directory succeeds");
	ok(strbuf_read_file(&got, f_rw, 0) == 8 &&
	   !strcmp(got.buf, "sandbox\n"), "and the file appears outside");
	is_int(run_in(&sb, w_rw_ro, NULL, NULL, &out), HELPER_FAILED,
	   "a read-only directory below a writable one stays read-only");
	ok(!file_exists(f_rw_ro), "nothing written there");
	is_int(run_in(&sb, w_other, NULL, NULL, &out), HELPER_FAILED,
	       "writing to a directory that is not bound fails");
	ok(!file_exists(f_other), "nothing written outside");
	is_int(run_in(&sb, w_etc, NULL, NULL, &out), HELPER_FAILED,
	       "writing to /etc fails");
	ok(!file_exists("/etc/mmci-sandbox-test"), "nothing written to /etc");
	is_int(run_in(&sb, w_tmp, NULL, NULL, &out), 0, "/tmp is writable");
	ok(!file_exists("/tmp/mmci-sandbox-test"),
	   "and private: the file is not in the host's /tmp");
	run_in(&sb, pwd, rw, NULL, &out);
	is_str(out.buf, rw, "the command starts in cmd->dir");
	strbuf_release(&out);
	strbuf_release(&got);
	free(rw);
	free(rw_ro);
	free(other);
	free(f_rw);
	free(f_rw_ro);
	free(f_other);
}

static void test_exit_and_env(void)
{
	struct sandbox sb = SANDBOX_INIT;
	struct strbuf out = STRBUF_INIT;
	const char *e42[] = { "sh", "-c", "exit 42", NULL };
	const char *e0[] = { "true", NULL };
	const char *sig[] = { "sh", "-c", "kill -TERM $$", NULL };
	const char *show[] = { "sh", "-c", "echo \"${MMCI_SMTP_PASSWORD-unset} "
			       "${CCACHE_MMCI_TEST-unset} ${KBUILD_MMCI-unset} "
			       "${PATH:+path}\"", NULL };
	const char *env[] = { "KBUILD_MMCI=set", "CCACHE_GONE", NULL };
	const char *keep[] = { "CCACHE_*", NULL };

	is_int(run_in(&sb, e0, NULL, NULL, &out), 0, "exit 0 passes through");
	is_int(run_in(&sb, e42, NULL, NULL, &out), 42,
	       "exit 42 passes through");
	is_int(run_in(&sb, sig, NULL, NULL, &out), 128 + 15,
	       "a killed command reports 128+signal");

	setenv("MMCI_SMTP_PASSWORD", "secret", 1);
	setenv("CCACHE_MMCI_TEST", "kept", 1);
	setenv("CCACHE_GONE", "gone", 1);
	sb.keep_env = keep;
	run_in(&sb, show, NULL, env, &out);
	is_str(out.buf, "unset kept set path",
	       "environment: cleared, kept by prefix, cmd->env set, PATH");
	{
		const char *gone[] = { "sh", "-c", "echo ${CCACHE_GONE-unset}",
				       NULL };

		run_in(&sb, gone, NULL, env, &out);
		is_str(out.buf, "unset", "\"NAME\" in cmd->env removes it");
	}
	unsetenv("MMCI_SMTP_PASSWORD");
	unsetenv("CCACHE_MMCI_TEST");
	unsetenv("CCACHE_GONE");
	strbuf_release(&out);
}

static void test_none(void)
{
	struct sandbox sb = SANDBOX_INIT;
	struct child_process cmd = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT;
	const char *id[] = { "id", "-u", NULL };
	char uid[16];

	sb.kind = SANDBOX_NONE;
	cmd.argv = id;
	sandbox_wrap(&sb, &cmd);
	ok(cmd.argv == id && !sb.argv, "none leaves the command as it is");
	xsnprintf(uid, sizeof(uid), "%d", (int)getuid());
	run_in(&sb, id, NULL, NULL, &out);
	is_str(out.buf, uid, "none runs directly, as our uid");
	is_int(sandbox_check(&sb), 0, "none needs no check");
	ok(!strcmp(sandbox_describe(&sb), "none"), "none is described");
	strbuf_release(&out);
}

static void test_setup_failures(void)
{
	struct sandbox sb = SANDBOX_INIT;
	char *missing = xstrfmt("%s/missing", scratch);
	const char *rws[] = { missing, NULL };
	char *path = xstrdup(getenv("PATH"));

	sb.rw = rws;
	is_int(sandbox_check(&sb), -1, "a bind that cannot be set up fails");
	ok(strstr(last_error(), "MMCI_BUILD_SANDBOX=none") &&
	   strstr(last_error(), missing), "the error names the way out");
	if (!strstr(last_error(), "MMCI_BUILD_SANDBOX=none"))
		printf("#   got '%s'\n", last_error());

	sb.rw = NULL;
	if (geteuid()) {
		setenv("PATH", scratch, 1);
	} else {
		/* root starts bwrap through setpriv: leave only setpriv */
		char *bin = xstrfmt("%s/setpriv-only", scratch);
		char *link = xstrfmt("%s/setpriv", bin);
		struct strbuf sp = STRBUF_INIT;
		const char *which[] = { "sh", "-c", "command -v setpriv",
					NULL };

		capture_command(which, NULL, &sp);
		strbuf_trim(&sp);
		mkdir_p(bin, 0755);
		if (symlink(sp.buf, link) < 0)
			die_errno("cannot link '%s'", link);
		setenv("PATH", bin, 1);
		strbuf_release(&sp);
		free(link);
		free(bin);
	}
	is_int(sandbox_check(&sb), -1, "no bwrap in PATH fails");
	ok(strstr(last_error(), "bwrap is not installed") &&
	   strstr(last_error(), "MMCI_BUILD_SANDBOX=none"),
	   "the error says bwrap is missing and names the way out");
	setenv("PATH", path, 1);
	free(path);
	free(missing);
}

/*
 * mmci as root: the build runs as the build user. The "tree" here is a
 * shell line standing for a Makefile from a hostile patch: it reads
 * /etc/shadow and writes where it should not.
 */
static void test_build_user(void)
{
	const char *name = SANDBOX_BUILD_USER;
	struct passwd *pw = getpwnam(name);
	char *obj = xstrfmt("%s/obj", scratch);
	char *sub = xstrfmt("%s/obj/made-by-root", scratch);
	char *f_sub = xstrfmt("%s/file", sub);
	char *f_obj = xstrfmt("%s/file", obj);
	/*
	 * beside the object dir, but not below /tmp, where a checkout may
	 * be (CI): the sandbox's private /tmp would take the write there
	 */
	char out_tmpl[] = "/var/tmp/mmci-test-sandbox.XXXXXX";
	char *out_dir = mkdtemp(out_tmpl);
	char *f_out = xstrfmt("%s/outside", out_dir ? out_dir : scratch);
	char *shadow = xstrfmt("cat /etc/shadow > %s/leak", obj);
	const char *rws[] = { obj, NULL }, *ros[] = { self_dir, NULL };
	const char *cat[] = { "cat", "/etc/shadow", NULL };
	const char *leak[] = { "sh", "-c", shadow, NULL };
	const char *w_sub[] = { self, "write", f_sub, NULL };
	const char *w_obj[] = { self, "write", f_obj, NULL };
	const char *w_out[] = { self, "write", f_out, NULL };
	struct sandbox sb = SANDBOX_INIT;
	struct strbuf out = STRBUF_INIT;
	struct stat st;

	if (geteuid() || !pw) {
		const char *why = geteuid() ? "needs root (make test)" :
				  "no build user: run vm-images/host-setup.sh";
		int i;

		for (i = 0; i < 16; i++)
			skip("the build user", why);
		goto out;
	}
	mkdir_p(obj, 0755);
	mkdir_p(sub, 0755);
	ok(!stat(sub, &st) && st.st_uid == 0,
	   "a directory mmci made in the object dir is root's");
	sb.rw = rws;
	sb.ro = ros;

	is_int(run_in(&sb, cat, NULL, NULL, &out), 1,
	       "cat /etc/shadow in the sandbox fails");
	is_str(out.buf, "cat: /etc/shadow: Permission denied",
	       "and says permission denied");
	ok(run_in(&sb, leak, obj, NULL, &out) != 0,
	   "a command copying /etc/shadow into the object dir fails");
	ok(strstr(out.buf, "/etc/shadow: Permission denied") != NULL,
	   "with permission denied");
	{
		char *l = xstrfmt("%s/leak", obj);

		ok(!stat(l, &st) && st.st_size == 0,
		   "nothing of /etc/shadow reached the object dir");
		free(l);
	}

	is_int(run_in(&sb, w_obj, NULL, NULL, &out), 0,
	       "writing to the object dir succeeds");
	ok(!stat(f_obj, &st) && st.st_uid == pw->pw_uid && st.st_gid == 0 &&
	   (st.st_mode & S_IWGRP),
	   "and the file belongs to the build user outside, group root "
	   "may write");
	is_int(run_in(&sb, w_sub, NULL, NULL, &out), 0,
	       "writing to a directory root made there before succeeds");
	ok(!stat(sub, &st) && st.st_uid == pw->pw_uid,
	   "it was handed to the build user");
	{
		char *sg = xstrfmt("touch %s/sg && chmod 6755 %s/sg", obj,
				   obj);
		char *f_sg = xstrfmt("%s/sg", obj);
		const char *mk_sg[] = { "sh", "-c", sg, NULL };

		run_in(&sb, mk_sg, NULL, NULL, &out);
		ok(!stat(f_sg, &st) && st.st_gid == 0 &&
		   (st.st_mode & 07777) == 0775,
		   "a set-ID file the build made loses the bits (group root)");
		free(sg);
		free(f_sg);
	}
	is_int(run_in(&sb, w_out, NULL, NULL, &out), HELPER_FAILED,
	       "writing beside the object dir fails");
	ok(!file_exists(f_out), "nothing written there");
	{
		/*
		 * ccache's cache in root's home (0700): the build user may
		 * only pass through (here by group, host-setup.sh uses an
		 * ACL); in the sandbox the cache is there, the rest not
		 */
		char *priv = xstrfmt("%s/home", scratch);
		char *secret = xstrfmt("%s/secret", priv);
		char *cache = xstrfmt("%s/.cache/ccache", priv);
		char *f_cache = xstrfmt("%s/file", cache);
		const char *rwc[] = { cache, NULL };
		const char *w_cache[] = { self, "write", f_cache, NULL };
		const char *c_secret[] = { "cat", secret, NULL };

		mkdir_p(cache, 0755);
		write_file(secret, "secret\n", 7);
		if (chown(priv, 0, pw->pw_gid) < 0 || chmod(priv, 0710) < 0)
			die_errno("cannot make '%s' private", priv);
		sb.rw = rwc;
		is_int(run_in(&sb, w_cache, NULL, NULL, &out), 0,
		       "a cache below a directory closed to others is "
		       "writable");
		is_int(run_in(&sb, c_secret, NULL, NULL, &out), 1,
		       "the rest of that directory is hidden (tmpfs)");
		ok(strstr(out.buf, "No such file or directory") != NULL,
		   "cat says it is not there");
		free(priv);
		free(secret);
		free(cache);
		free(f_cache);
	}
out:
	strbuf_release(&out);
	free(obj);
	free(sub);
	free(f_sub);
	free(f_obj);
	if (out_dir) {
		unlink(f_out);
		rmdir(out_dir);
	}
	free(f_out);
	free(shadow);
}

/*
 * Root without CAP_SETUID (as under mmci.service's bounding set) cannot
 * change user: no build user, the sandbox as before. In a child, which
 * drops the capability from its effective set.
 */
static void test_root_without_caps(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	int status = -1;
	pid_t pid;

	if (geteuid()) {
		skip("root without CAP_SETUID", "needs root (make test)");
		skip("root without CAP_SETUID", "needs root (make test)");
		return;
	}
	ok(sandbox_build_user() != NULL, "root with every capability: a "
	   "build user");
	fflush(NULL);
	pid = fork();
	if (!pid) {
		struct sandbox sb = SANDBOX_INIT;

		if (syscall(SYS_capget, &h, d) < 0)
			_exit(2);
		d[CAP_SETUID / 32].effective &= ~(1u << (CAP_SETUID % 32));
		if (syscall(SYS_capset, &h, d) < 0)
			_exit(3);
		_exit(!sandbox_build_user() &&
		      !strcmp(sandbox_describe(&sb),
			      "bwrap, no network, uid 65534") ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	is_int(status, 0, "root without CAP_SETUID: none, uid 65534 as before");
}

int main(int argc, char **argv)
{
	struct sandbox sb = SANDBOX_INIT;
	char tmpl[] = "tests/unit/trash.test-sandbox.XXXXXX";
	char local[] = "trash.test-sandbox.XXXXXX";
	const char *dir;

	if (argc == 3 && !strcmp(argv[1], "connect"))
		return helper_connect(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "write"))
		return helper_write(argv[2]);

	if (sandbox_check(&sb) < 0) {
		printf("1..0 # skip bwrap cannot run here: %s\n", last_error());
		return 0;
	}
	dir = mkdtemp(tmpl);
	if (!dir)
		dir = mkdtemp(local);
	if (!dir)
		die_errno("cannot create a scratch directory");
	scratch = real_path(dir);
	/* mkdtemp's 0700 would keep the build user out */
	if (chmod(scratch, 0755) < 0)
		die_errno("cannot chmod '%s'", scratch);
	{
		char *exe = real_path("/proc/self/exe");

		self_dir = xstrfmt("%s/bin", scratch);
		self = xstrfmt("%s/test-sandbox", self_dir);
		if (mkdir_p(self_dir, 0755) < 0 || copy_file(exe, self) < 0 ||
		    chmod(self, 0755) < 0)
			die_errno("cannot copy '%s' to '%s'", exe, self);
		free(exe);
	}

	test_parse();
	test_identity();
	test_network();
	test_files();
	test_exit_and_env();
	test_none();
	test_setup_failures();
	test_build_user();
	test_root_without_caps();

	remove_tree(scratch);
	free(scratch);
	free(self);
	free(self_dir);
	return done_testing();
}
