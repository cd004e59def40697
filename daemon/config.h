/* SPDX-License-Identifier: GPL-2.0 */
/*
 * config.h - where mmci keeps things.
 *
 * The embedded defaults (docs/ARCHITECTURE.md) need no configuration file: the
 * database is ./mmci.db, the data directory ./var (tree, build cache,
 * logs), and the tree is Debian's 6.12 source imported into ./var/linux.
 * MMCI_DB, MMCI_DATA, MMCI_TREE and MMCI_PROJECT override them; the
 * project directory (vm-images/, kernel-patches/, runner/) defaults to the
 * directory holding the mmci binary. MMCI_BUILD_SANDBOX=bwrap|none says
 * how the kernel tree's code runs at build time (sandbox.h).
 */
#ifndef MMCI_CONFIG_H
#define MMCI_CONFIG_H

/* how a build is sandboxed (sandbox.h): the MMCI_BUILD_SANDBOX setting */
enum sandbox_kind {
	SANDBOX_BWRAP = 0,	/* the default */
	SANDBOX_NONE,		/* MMCI_BUILD_SANDBOX=none */
};

/*
 * sandbox_kind_parse - "bwrap" (or empty) and "none".
 * Return: 0, or -1 for anything else.
 */
int sandbox_kind_parse(const char *s, enum sandbox_kind *kind);

struct mmci_config {
	char *db_path;
	char *data_dir;
	char *tree_dir;      /* git repository of the kernel tree */
	char *project_dir;   /* vm-images/, kernel-patches/, runner/ */
	enum sandbox_kind build_sandbox; /* MMCI_BUILD_SANDBOX, default bwrap */
};

void config_load(struct mmci_config *cfg);
void config_release(struct mmci_config *cfg);
/* <data_dir>/<sub>, created if missing; caller frees */
char *data_path(const struct mmci_config *cfg, const char *sub);
/* <project_dir>/<sub>; caller frees */
char *project_path(const struct mmci_config *cfg, const char *sub);

/*
 * config_read_env_file - the settings file: "MMCI_NAME=value" lines
 * (blank lines and "#" comments skipped, value optionally in double
 * quotes), put into the environment, overriding it. It is the format of
 * systemd's EnvironmentFile=, so the unit and the daemon read one file,
 * and every setting has one name on the command line and in the file.
 * Other names are refused (a typo must not pass unnoticed), and so is a
 * bad value of a setting config_check() knows. A file that sets a
 * secret (config_secret_name(), a non-empty value) is refused when its
 * group or others may read it. Every line is checked before any is put
 * into the environment: a file with an error changes nothing.
 * Return: the number of settings, or -1 after error() naming the line.
 */
int config_read_env_file(const char *path);

/*
 * config_check() - the settings that are numbers or words (MMCI_POLL_S,
 * MMCI_FETCH_*, MMCI_SMTP_TIMEOUT, MMCI_MAIL_SEND, MMCI_SOURCES, ...) as
 * the environment holds them: `mmci daemon` refuses to start on a bad
 * one rather than poll every second on a typo.
 * Return: 0, or -1 after one error() per bad setting, naming the setting
 * and the value.
 */
int config_check(void);

/*
 * config_number() - the value of numeric setting @name: its default when
 * unset or empty. A bad value die()s, naming the setting and the value:
 * settings are read at start-up, and the daemon has checked them all.
 */
long long config_number(const char *name);

/*
 * config_secret_name() - is environment variable @name a secret: a
 * password, a secret or a token (MMCI_SMTP_PASSWORD)? No child is given
 * one through its environment (run-command.c), and a settings file that
 * sets one must be readable by its owner only (config_read_env_file()).
 * Secrets in values (a URL's password) are config_redact_value()'s.
 * Return: 1 or 0.
 */
int config_secret_name(const char *name);

/*
 * config_redact_value() - @v with the password of every URL in it taken
 * out ("smtp://u:pw@host" -> "smtp://u@host"; a URL with only a password,
 * "://:pw@host", loses its whole userinfo): the value of a setting as a
 * child may see it (run-command.c), as logs may show it. config.c lists
 * the settings that can hold one.
 * Return: a new string (caller frees), or NULL when @v holds no password.
 */
char *config_redact_value(const char *v);

/*
 * config_url_userinfo() - the user name and password of the URL at the
 * start of @url (the first "scheme://"), %XX decoded as libcurl decodes
 * them: for the daemon, which passes an SMTP password on a pipe, never
 * in a URL.
 * @user: out, caller frees; NULL when the URL has no userinfo
 * @password: out, caller frees; NULL when the userinfo has no ':'
 * Return: 1 when the URL has a userinfo, else 0.
 */
int config_url_userinfo(const char *url, char **user, char **password);

/*
 * config_drop_secrets() - take every secret out of this process's own
 * environment: a variable config_secret_name() names is zeroed and unset,
 * and a URL password in any other value is cut out in place. The bytes
 * themselves are overwritten, not only unlinked from environ, so the
 * process's memory and /proc/PID/environ no longer hold them. For a
 * process that parses input (`mmci web`, a drop to the service user):
 * what it does not hold, a parser taken over cannot leak.
 */
void config_drop_secrets(void);

#endif
