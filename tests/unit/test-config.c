// SPDX-License-Identifier: GPL-2.0
/*
 * test-config.c - the settings that are numbers or words (daemon/config.c):
 * config_check() on the environment, config_number() and its defaults,
 * and the settings file, which is used whole or not at all.
 */
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "fsutil.h"
#include "strbuf.h"
#include "util.h"
#include "tap.h"

static const char *const names[] = {
	"MMCI_POLL_S", "MMCI_PER_PATCH", "MMCI_MAIL_SEND", "MMCI_SMTP_TLS",
	"MMCI_SMTP_TIMEOUT", "MMCI_FETCH_ATTEMPTS", "MMCI_FETCH_BACKOFF_MS",
	"MMCI_FETCH_MAX_BACKOFF_MS", "MMCI_FETCH_INTERVAL_MS",
	"MMCI_FETCH_TIMEOUT", "MMCI_FETCH_MAX_SIZE", "MMCI_KVM_DEADLINE_S",
	"MMCI_VERBOSE", "MMCI_SOURCES", "MMCI_ACCEL", "MMCI_POLL_TIMEOUT_S",
};

static void clear(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		unsetenv(names[i]);
}

/* config_check() with one setting: 0 or -1, and the error it gave */
static int check_one(const char *name, const char *value)
{
	int ret;

	clear();
	setenv(name, value, 1);
	ret = config_check();
	unsetenv(name);
	return ret;
}

static void test_check(void)
{
	static const struct {
		const char *name, *value, *error;
	} bad[] = {
		{ "MMCI_POLL_S", "3OO",
		  "MMCI_POLL_S='3OO' is not a whole number in 1..604800" },
		{ "MMCI_POLL_S", "0", NULL },
		{ "MMCI_POLL_S", "-5", NULL },
		{ "MMCI_POLL_S", "+5", NULL },
		{ "MMCI_POLL_S", " 5", NULL },
		{ "MMCI_POLL_S", "5 ", NULL },
		{ "MMCI_POLL_S", "0x10", NULL },
		{ "MMCI_POLL_S", "99999999999999999999", NULL },
		{ "MMCI_MAIL_SEND", "yes", "MMCI_MAIL_SEND='yes' is not 0 or 1" },
		{ "MMCI_PER_PATCH", "2", NULL },
		{ "MMCI_SMTP_TLS", "true", NULL },
		{ "MMCI_SMTP_TIMEOUT", "60s", NULL },
		{ "MMCI_FETCH_ATTEMPTS", "0", NULL },
		{ "MMCI_FETCH_BACKOFF_MS", "1.5", NULL },
		{ "MMCI_FETCH_TIMEOUT", "2m", NULL },
		{ "MMCI_FETCH_MAX_SIZE", "12Q",
		  "MMCI_FETCH_MAX_SIZE='12Q' is not a size (4096, 512K, 256M, "
		  "1G) up to 1024G" },
		{ "MMCI_FETCH_MAX_SIZE", "0", NULL },
		{ "MMCI_KVM_DEADLINE_S", "601", NULL },
		{ "MMCI_VERBOSE", "debug", NULL },
		{ "MMCI_POLL_TIMEOUT_S", "30m",
		  "MMCI_POLL_TIMEOUT_S='30m' is not a whole number in "
		  "1..86400" },
		{ "MMCI_SOURCES", "discover,trees",
		  "MMCI_SOURCES='discover,trees' is not a list of 'discover', "
		  "'tree', 'commits' or 'inbox'" },
		{ "MMCI_ACCEL", "kmv",
		  "MMCI_ACCEL='kmv' is not 'kvm' or 'tcg' (or empty)" },
	};
	static const struct {
		const char *name, *value;
	} good[] = {
		{ "MMCI_POLL_S", "1" }, { "MMCI_POLL_S", "604800" },
		{ "MMCI_POLL_S", "" }, { "MMCI_MAIL_SEND", "0" },
		{ "MMCI_MAIL_SEND", "1" }, { "MMCI_FETCH_MAX_SIZE", "256M" },
		{ "MMCI_FETCH_BACKOFF_MS", "0" }, { "MMCI_SOURCES", "" },
		{ "MMCI_SOURCES", "tree" }, { "MMCI_SOURCES", " discover, tree" },
		{ "MMCI_ACCEL", "" }, { "MMCI_ACCEL", "tcg" },
		{ "MMCI_VERBOSE", "2" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		char *name = xstrfmt("%s='%s' is refused", bad[i].name,
				     bad[i].value);
		int ret = check_one(bad[i].name, bad[i].value);
		char *want = bad[i].error ? xstrdup(bad[i].error) :
			xstrfmt("%s='%s' is not ", bad[i].name, bad[i].value);

		ok(ret == -1 && (bad[i].error ?
				 !strcmp(last_error(), want) :
				 starts_with(last_error(), want)), name);
		if (ret != -1 || !starts_with(last_error(), want))
			printf("#   got %d, '%s'\n", ret, last_error());
		free(want);
		free(name);
	}
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		char *name = xstrfmt("%s='%s' is taken", good[i].name,
				     good[i].value);

		is_int(check_one(good[i].name, good[i].value), 0, name);
		free(name);
	}
}

static void test_number(void)
{
	clear();
	ok(config_number("MMCI_POLL_S") == 300 &&
	   config_number("MMCI_MAIL_SEND") == 0 &&
	   config_number("MMCI_PER_PATCH") == 1 &&
	   config_number("MMCI_FETCH_ATTEMPTS") == 4 &&
	   config_number("MMCI_FETCH_MAX_SIZE") == 256ll << 20 &&
	   config_number("MMCI_VERBOSE") == 1 &&
	   config_number("MMCI_POLL_TIMEOUT_S") == 1800,
	   "the defaults when unset");
	setenv("MMCI_POLL_S", "", 1);
	is_int(config_number("MMCI_POLL_S"), 300, "the default when empty");
	setenv("MMCI_POLL_S", "45", 1);
	setenv("MMCI_FETCH_MAX_SIZE", "1G", 1);
	ok(config_number("MMCI_POLL_S") == 45 &&
	   config_number("MMCI_FETCH_MAX_SIZE") == 1ll << 30, "set values");
	clear();
}

static void test_file(void)
{
	char tmpl[] = "/tmp/test-config.XXXXXX";
	char *dir = mkdtemp(tmpl), *path;
	static const char bad[] =
		"# a comment\n"
		"MMCI_SOURCES=tree\n"
		"MMCI_POLL_S=3OO\n"
		"MMCI_MAIL_FROM=\"x <x@y>\"\n";
	static const char good[] =
		"MMCI_SOURCES=tree\n"
		"MMCI_POLL_S=\"30\"\n"
		"MMCI_MAIL_FROM=\"x <x@y>\"\n";

	if (!dir) {
		ok(0, "mkdtemp");
		return;
	}
	path = xstrfmt("%s/mmci.conf", dir);
	clear();
	unsetenv("MMCI_MAIL_FROM");
	setenv("MMCI_POLL_S", "60", 1);
	write_file(path, bad, strlen(bad));
	is_int(config_read_env_file(path), -1, "a file with a bad value fails");
	{
		char *want = xstrfmt("%s:3: MMCI_POLL_S='3OO' is not a whole "
				     "number in 1..604800", path);

		is_str(last_error(), want, "naming the file, line, setting "
		       "and value");
		free(want);
	}
	ok(!getenv("MMCI_SOURCES") && !getenv("MMCI_MAIL_FROM") &&
	   !strcmp(getenv("MMCI_POLL_S"), "60"),
	   "and changes nothing, not even the lines before it");

	write_file(path, good, strlen(good));
	is_int(config_read_env_file(path), 3, "a good file: three settings");
	ok(!strcmp(getenv("MMCI_SOURCES"), "tree") &&
	   !strcmp(getenv("MMCI_MAIL_FROM"), "x <x@y>") &&
	   config_number("MMCI_POLL_S") == 30, "all of them used");
	clear();
	unsetenv("MMCI_MAIL_FROM");
	unlink(path);
	rmdir(dir);
	free(path);
}

/* a file that sets a password: the owner's alone, or refused */
static void test_secret_file(void)
{
	char tmpl[] = "/tmp/test-config.XXXXXX";
	char *dir = mkdtemp(tmpl), *path, *want;
	static const char secret[] =
		"MMCI_SMTP_USER=mmci\n"
		"MMCI_SMTP_PASSWORD=\"hunter2\"\n";
	static const char empty[] = "MMCI_SMTP_PASSWORD=\n";

	if (!dir) {
		ok(0, "mkdtemp");
		return;
	}
	ok(config_secret_name("MMCI_SMTP_PASSWORD") &&
	   config_secret_name("MMCI_API_TOKEN") &&
	   !config_secret_name("MMCI_SMTP_USER") &&
	   !config_secret_name("MMCI_POLL_S"), "which names are secrets");
	path = xstrfmt("%s/mmci.conf", dir);
	unsetenv("MMCI_SMTP_USER");
	unsetenv("MMCI_SMTP_PASSWORD");
	write_file(path, secret, strlen(secret));
	chmod(path, 0644);
	is_int(config_read_env_file(path), -1, "a password in a 0644 file: "
	       "refused");
	want = xstrfmt("the settings file '%s' holds a password and is mode "
		       "0644: readable by everyone; chmod 600 it", path);
	is_str(last_error(), want, "naming the file and its mode");
	free(want);
	ok(!getenv("MMCI_SMTP_USER") && !getenv("MMCI_SMTP_PASSWORD"),
	   "and nothing of it is used");
	chmod(path, 0640);
	is_int(config_read_env_file(path), -1, "in a 0640 file: refused");
	want = xstrfmt("the settings file '%s' holds a password and is mode "
		       "0640: readable by its group; chmod 600 it", path);
	is_str(last_error(), want, "naming the group");
	free(want);
	chmod(path, 0600);
	is_int(config_read_env_file(path), 2, "in a 0600 file: used");
	ok(!strcmp(getenv("MMCI_SMTP_PASSWORD"), "hunter2"), "the password");
	write_file(path, empty, strlen(empty));
	chmod(path, 0644);
	is_int(config_read_env_file(path), 1, "an empty password line in a "
	       "0644 file: no secret, used");
	unsetenv("MMCI_SMTP_USER");
	unsetenv("MMCI_SMTP_PASSWORD");
	unlink(path);
	rmdir(dir);
	free(path);
}

int main(void)
{
	log_verbosity = 0;
	test_check();
	test_number();
	test_file();
	test_secret_file();
	return done_testing();
}
