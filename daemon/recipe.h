/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recipe.h - recipes: an author's experiment as data. A recipe names the
 * `mmci run` options that repeat it, the sizes the authors used and a
 * small set that fits a test host, and the authors' table (rows of
 * before/after numbers, each mapped to an mmci metric), so that
 * `mmci recipe run` can print mmci's numbers beside theirs.
 *
 * Recipes are small text files (kernel-patches/recipes/NAME.recipe, a few
 * dozen lines each, a handful of them), read whole on every command; the
 * format is in docs/RECIPES.md.
 */
#ifndef MMCI_RECIPE_H
#define MMCI_RECIPE_H

#include <stddef.h>

struct strbuf;

/* one row of the authors' table */
struct recipe_row {
	char *label;            /* "nd_pmem", "Plug Memory" */
	int size;               /* 1-based index into the sizes, 0: none */
	char *workload, *variant, *metric; /* the mmci metric; the variant
	                         * may hold $size; all NULL ("-"): mmci
	                         * has nothing that measures it */
	double before, after;   /* in the recipe's unit; after NAN: none */
	char *before_s, *after_s; /* as the file writes them ("155.00") */
};

struct recipe {
	char *name;             /* from the file name, NAME.recipe */
	char *file;             /* the path it was read from */
	char *description;
	char *arch;             /* arch.h's: "x86_64", "arm64", "arm64-64k" */
	char *source;           /* message-id and subject of the mail */
	char *authors;          /* the authors' set-up and mode, in words */
	char **sizes;           /* the authors' sizes, "100G" */
	char **small;           /* --scale small: as many, smaller */
	size_t nr_sizes;
	char *run;              /* `mmci run` options; $size: a run a size */
	char *small_run;        /* more options for --scale small, or NULL */
	char *columns[4];       /* headers: label, size, before, after */
	char *unit;             /* the authors' unit: ns, us, ms or s */
	struct recipe_row *rows;
	size_t nr_rows, alloc_rows;
};

/*
 * recipe_parse() - parse the text of one recipe file.
 * @path: the file's path, for messages; its base name less ".recipe" is
 *        the recipe's name
 * @text: the file's content
 * @r: filled; recipe_release() it whatever the result
 * Return: 0, or -1 after error() naming @path and the line.
 */
int recipe_parse(const char *path, const char *text, struct recipe *r);
void recipe_release(struct recipe *r);

/*
 * recipe_load_dir() - every DIR/ *.recipe, sorted by name.
 * @out, @nr: an array the caller frees with recipe_free()
 * Return: 0, or -1 after error() (a file that does not parse: nothing
 * is returned).
 */
int recipe_load_dir(const char *dir, struct recipe **out, size_t *nr);
void recipe_free(struct recipe *r, size_t nr);

/* 1 when the run options hold $size: one run per size */
int recipe_per_size(const struct recipe *r);

/*
 * recipe_expand() - @s with every "$size" replaced by @size, appended to
 * @out (@size NULL: left as it is).
 */
void recipe_expand(const char *s, const char *size, struct strbuf *out);

/* factor from @unit (ns, us, ms, s) to seconds; 0 for an unknown unit */
double recipe_unit_s(const char *unit);

#endif
