// SPDX-License-Identifier: GPL-2.0
/*
 * qemu-profile.c - a QEMU TCG plugin that counts the guest instructions
 * executed at each address while the guest runner has a window open
 * (mmci-profile.so, loaded with -plugin by a profiling boot, profile.h).
 *
 * Windows. The runner (runner/mmci-runner.c, profile_mark()) calls one of
 * 256 marker stubs around each timed sysfs write: stub i is one
 * instruction no compiler emits, carrying i (x86_64: "nopl
 * 0x4d4d4300+i(%rax)", 7 bytes; arm64: "movz xzr, #0x4d00+i, lsl #48"),
 * then a return. i < 0x80 opens window kind i, 0x80 | i closes it, 0xff
 * asks for the counts to be written now (the guest may die before QEMU
 * exits). The plugin sees the marker when it translates the instruction
 * and registers a callback on it; nothing else in the guest changes.
 *
 * Counting. Every translated block gets an inline counter (no callback:
 * QEMU adds one to a 64-bit word each time it runs the block), so
 * counting costs one add per block. A block is known by its address and
 * length: QEMU translates a block again with fewer instructions under
 * icount, and both versions share nothing. Opening a window notes every
 * block's counter; closing it adds the difference, per instruction
 * address, to the window kind's totals. An exception inside a block still
 * counts the whole block: the counts are exact up to such blocks.
 *
 * Output (out=FILE, rewritten whole at each flush and at exit):
 *   mmci-profile 1 TARGET
 *   window KIND OPENED INSTRUCTIONS
 *   KIND ADDRESS COUNT            (hex address, one line per address)
 *
 * The plugin API is QEMU's, version 1 (QEMU 7.2): Debian packages no
 * qemu-plugin.h, so the few declarations used are written out below.
 */
#include <glib.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- QEMU's plugin API, version 1: the part this plugin uses --- */
typedef uint64_t qemu_plugin_id_t;

typedef struct qemu_info_t {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;

struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

enum qemu_plugin_op {
	QEMU_PLUGIN_INLINE_ADD_U64,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);
void qemu_plugin_outs(const char *string);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;
/* --- end of QEMU's API --- */

#define MARK_X86_LEN 7
#define MARK_X86_MAGIC 0x4d4d4300u	/* disp32 & ~0xff */
#define MARK_ARM64_BASE 0xd2e0001fu	/* movz xzr, #0, lsl #48 */
#define MARK_ARM64_MAGIC 0x4d00u	/* imm16 & ~0xff */
#define MARK_CLOSE 0x80u
#define MARK_FLUSH 0xffu
#define KINDS 0x7f

struct block {
	uint64_t count;		/* QEMU adds 1 to it at each execution */
	uint64_t noted;		/* count when the open window began */
	uint32_t n;
	uint64_t vaddr[];	/* each instruction's address */
};

struct key {
	uint64_t vaddr;
	uint32_t n;
};

static GHashTable *blocks;	/* struct key -> struct block */
static GHashTable *totals[KINDS];	/* address -> uint64_t * */
static uint64_t opened[KINDS], insns[KINDS];
static int open_kind = -1;
static int arm64;
static char *out_path;
static const char *target;

static guint key_hash(gconstpointer p)
{
	const struct key *k = p;

	return g_int64_hash(&k->vaddr) ^ k->n;
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
	const struct key *x = a, *y = b;

	return x->vaddr == y->vaddr && x->n == y->n;
}

static void note_block(gpointer k, gpointer v, gpointer data)
{
	struct block *b = v;

	(void)k;
	(void)data;
	b->noted = b->count;
}

static void add_block(gpointer k, gpointer v, gpointer data)
{
	struct block *b = v;
	GHashTable *t = data;
	uint64_t d = b->count - b->noted;
	uint32_t i;

	(void)k;
	if (!d)
		return;
	for (i = 0; i < b->n; i++) {
		uint64_t *c = g_hash_table_lookup(t, &b->vaddr[i]);

		if (!c) {
			c = g_new0(uint64_t, 2);
			c[0] = b->vaddr[i];
			g_hash_table_insert(t, &c[0], c);
		}
		c[1] += d;
		insns[open_kind] += d;
	}
	b->noted = b->count;
}

static void write_kind(FILE *f, int kind)
{
	GHashTableIter it;
	gpointer k, v;

	if (!totals[kind])
		return;
	fprintf(f, "window %d %" PRIu64 " %" PRIu64 "\n", kind, opened[kind],
		insns[kind]);
	g_hash_table_iter_init(&it, totals[kind]);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		uint64_t *c = v;

		fprintf(f, "%d %" PRIx64 " %" PRIu64 "\n", kind, c[0], c[1]);
	}
}

static void flush(void)
{
	char *tmp;
	FILE *f;
	int kind, bad;

	if (!out_path)
		return;
	tmp = g_strdup_printf("%s.tmp", out_path);
	f = fopen(tmp, "w");
	if (!f) {
		qemu_plugin_outs("mmci-profile: cannot write the counts\n");
		g_free(tmp);
		return;
	}
	fprintf(f, "mmci-profile 1 %s\n", target);
	for (kind = 0; kind < KINDS; kind++)
		write_kind(f, kind);
	bad = ferror(f);
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, out_path))
		qemu_plugin_outs("mmci-profile: cannot write the counts\n");
	g_free(tmp);
}

static void mark(unsigned int vcpu, void *data)
{
	unsigned int code = GPOINTER_TO_UINT(data);

	(void)vcpu;
	if (code == MARK_FLUSH) {
		flush();
		return;
	}
	if (!(code & MARK_CLOSE)) {
		if (code >= KINDS)
			return;
		/* a window left open (the runner died in a write) is dropped */
		open_kind = code;
		opened[code]++;
		if (!totals[code])
			totals[code] = g_hash_table_new(g_int64_hash,
							g_int64_equal);
		g_hash_table_foreach(blocks, note_block, NULL);
		return;
	}
	code &= ~MARK_CLOSE;
	if ((int)code != open_kind)
		return;
	g_hash_table_foreach(blocks, add_block, totals[code]);
	open_kind = -1;
}

/* the marker's code, or -1 when @insn is no marker */
static int marker(const struct qemu_plugin_insn *insn)
{
	const unsigned char *p = qemu_plugin_insn_data(insn);
	size_t len = qemu_plugin_insn_size(insn);
	uint32_t w;

	if (arm64) {
		if (len != 4)
			return -1;
		memcpy(&w, p, 4);
		/* movz xzr, #imm16, lsl #48: imm16 is bits 5..20 */
		if ((w & ~(0xffffu << 5)) != MARK_ARM64_BASE ||
		    ((w >> 5) & 0xff00u) != MARK_ARM64_MAGIC)
			return -1;
		return (w >> 5) & 0xff;
	}
	/* nopl disp32(%rax): 0f 1f 80 disp32 */
	if (len != MARK_X86_LEN || p[0] != 0x0f || p[1] != 0x1f ||
	    p[2] != 0x80)
		return -1;
	memcpy(&w, p + 3, 4);
	if ((w & ~0xffu) != MARK_X86_MAGIC)
		return -1;
	return w & 0xff;
}

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	struct key k = { qemu_plugin_tb_vaddr(tb), (uint32_t)n };
	struct block *b;

	(void)id;
	b = g_hash_table_lookup(blocks, &k);
	if (!b) {
		struct key *kk = g_new(struct key, 1);

		b = g_malloc0(sizeof(*b) + n * sizeof(b->vaddr[0]));
		b->n = n;
		for (i = 0; i < n; i++)
			b->vaddr[i] = qemu_plugin_insn_vaddr(
				qemu_plugin_tb_get_insn(tb, i));
		*kk = k;
		g_hash_table_insert(blocks, kk, b);
	}
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->count, 1);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		int code = marker(insn);

		if (code >= 0)
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, mark, QEMU_PLUGIN_CB_NO_REGS,
				GUINT_TO_POINTER((unsigned int)code));
	}
}

static void at_exit(qemu_plugin_id_t id, void *data)
{
	(void)id;
	(void)data;
	flush();
}

__attribute__((visibility("default"))) int
qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
		    char **argv)
{
	int i;

	if (!info->system_emulation) {
		qemu_plugin_outs("mmci-profile: system emulation only\n");
		return -1;
	}
	target = info->target_name;
	if (!strcmp(target, "aarch64"))
		arm64 = 1;
	else if (strcmp(target, "x86_64")) {
		qemu_plugin_outs("mmci-profile: x86_64 and aarch64 only\n");
		return -1;
	}
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out_path = g_strdup(argv[i] + 4);
	if (!out_path) {
		qemu_plugin_outs("mmci-profile: no out=FILE\n");
		return -1;
	}
	blocks = g_hash_table_new(key_hash, key_equal);
	qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
