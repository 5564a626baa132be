/* sv_report.h: a verification's report as text, JSON and JUnit XML (files
 * through sv_store.h: written whole). */
#ifndef SV_REPORT_H
#define SV_REPORT_H

#include <stdio.h>
#include "sv_check.h"
#include "sv_store.h"

/* ---- reports ----------------------------------------------------------------- */
void sv_report_text(const sv_report *r, FILE *out);
/* verify --measure's table (report_measure.c): each position's distances
 * from p; sv_report_measure adds what broke the contract and the summary,
 * the whole report of a lossy rule measured (no verdicts). */
void sv_report_distances(const sv_report *r, FILE *out);
void sv_report_measure(const sv_report *r, FILE *out);
int sv_report_json(const sv_report *r, const char *path);
/* A case's command run alone: r->reproduce, then --case (shell-quoted),
 * --seed and --draws (report_text.c). */
void sv_report_reproduce(const sv_report *r, const char *spec, uint64_t seed, uint64_t draws,
                         char *out, size_t len);
/* root (taken) written to path, atomically: SV_OK, or the write's error. */
struct cJSON;
int sv_write_json(struct cJSON *root, const char *path);
/* name: v, or null where v is not finite (an unknown power, draws beyond reach) */
void sv_json_number(struct cJSON *o, const char *name, double v);
/* name: text from outside specverify (a plugin's description, a user's spec,
 * a file's string) escaped by sv_escape, then quoted by cJSON (docs/cli.md) */
void sv_json_text(struct cJSON *o, const char *name, const char *s);
/* tv, tv_lo, tv_hi, kl, kl_lo, kl_hi: a position's distance from p */
void sv_json_distance(struct cJSON *o, const sv_distance *d);
int sv_report_junit(const sv_report *r, const char *path);

/* ---- shard_h5.c, shard_merge.c: shard files (verify --shard, merge) ----------- */
typedef struct sv_shard_writer sv_shard_writer;
/* A shard file at path for shard `index` of `count` of a run of n_cases
 * cases (0: as many as are taken), the run named by its command (the
 * command's arguments without --shard and --shard-file); sv_shard_take is
 * its sv_shard_hooks.take. */
int sv_shard_writer_open(const char *path, const char *const *command, size_t n_command,
                         uint32_t index, uint32_t count, size_t n_cases, sv_shard_writer **out);
int sv_shard_take(void *ctx, size_t i, const sv_case *c, const sv_pair_plan *plan,
                  const sv_tally *t, const sv_shard_probe *probe);
/* What names the run besides its command, as the command resolved it: the
 * sampler (NULL: none), the seed and the family-wise alpha (0: none). */
int sv_shard_writer_about(sv_shard_writer *w, const char *sampler, uint64_t seed, double alpha);
/* The file, for what a command keeps besides counts (calibrate's runs). */
sv_h5 *sv_shard_writer_file(sv_shard_writer *w);
/* commit: the file put in place (every case planned taken), else removed. */
int sv_shard_writer_close(sv_shard_writer *w, int commit);

typedef struct sv_shard_set sv_shard_set;
/* The shard files of one run, each once, every shard there: else SV_EBAD
 * naming the file that is no shard, of another run or given twice, or the
 * shards missing. */
int sv_shard_set_open(const char *const *paths, size_t n, sv_shard_set **out);
const char *const *sv_shard_set_command(const sv_shard_set *s, size_t *n);
size_t sv_shard_set_cases(const sv_shard_set *s);
/* How many shards, and shard k's file (in shard order), for what a command
 * keeps besides counts. */
size_t sv_shard_set_shards(const sv_shard_set *s);
sv_h5_reader *sv_shard_set_file(sv_shard_set *s, size_t k);
/* sv_shard_hooks.give: case i's counts summed over the shards; each shard's
 * checked first (SV_EBAD naming the file and the dataset): its draws its
 * share of the run (shares[k], where given), its histograms summing to the
 * draws that reached each position, no sum past 2^64 - 1. */
int sv_shard_give(void *ctx, size_t i, const sv_case *c, const sv_pair_plan *plan,
                  sv_tally *into, sv_shard_probe *probe, const uint64_t *shares);
void sv_shard_set_close(sv_shard_set *s);

#endif
