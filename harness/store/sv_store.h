/* sv_store.h: files written whole or not at all. Text outputs are written
 * to a temporary and renamed into place, a device, FIFO or link written
 * through, never replaced (sv_output.h's rules); an output flag given twice
 * or empty is refused; HDF5 result files are written the same way and read
 * back with every number checked. */
#ifndef SV_STORE_H
#define SV_STORE_H

#include <stddef.h>
#include <stdint.h>
#include "sv_base.h"
#include "sv_output.h"

/* ---- atomic_file.c: nothing is written half, no device is replaced --------
 * Text outputs through sv_output (sv_output.h): a regular file (or a link to
 * one, which stays a link) is written to a temporary and renamed; a device or
 * a FIFO is written in place. */
typedef sv_output_file sv_atomic_file;
/* Opens a temporary file beside path, or the device path names. */
int sv_atomic_open(sv_atomic_file *f, const char *path);
/* Flushes, syncs and renames into place; on error removes the temporary, and
 * the message is "could not write PATH: why". */
int sv_atomic_commit(sv_atomic_file *f);
void sv_atomic_abort(sv_atomic_file *f);
/* SV_OK if path can be written: a temporary is made beside it and removed (a
 * device is only asked for permission). Commands check their outputs so
 * before long work, not after it. */
int sv_atomic_check(const char *path);
/* Where an interrupted run writes what it finished: PATH.partial, leaving an
 * earlier PATH whole; a device or a FIFO has nothing to keep: PATH itself. */
int sv_atomic_partial(const char *path, char *out, size_t len);
/* The file written beside an HDF5 output: FILE.h5 -> FILE.EXT (ext ".md",
 * ".vocab"); another name gets EXT appended. */
void sv_output_beside(const char *h5_path, const char *ext, char *out, size_t len);
/* An output flag's value into *slot: SV_EBAD, naming the command and the
 * flag, when the flag was given before (*slot set) or the path is empty. */
int sv_output_flag(const char *command, const char *flag, const char **slot, const char *value);
/* After a command printed its verdict, every output is still attempted; a
 * failure is noted (messages joined) and the next one written, so the disk
 * filling up loses neither the verdict nor the other outputs. */
typedef struct sv_outputs_status {
    int rc;          /* the first write's error status, SV_OK if none */
    char said[1024]; /* their messages, "could not write FILE: why; ..." */
} sv_outputs_status;
void sv_outputs_note(sv_outputs_status *s, int rc);
/* The command's status: the verdict's when it is not SV_OK (a failed
 * verification is never hidden behind a write error; the write errors are
 * said on stderr here), else the write error's, with its message for main. */
int sv_outputs_end(const sv_outputs_status *s, int verdict);

/* ---- real_path.c: where a path really leads ---------------------------------- */
/* path with every link followed, as absolute: its deepest part that exists
 * resolved (realpath), the rest appended, a link to nothing yet followed to
 * where it leads (writing through it makes the file there). 0, or -1 with
 * errno. */
int sv_real_path(const char *path, char *out, size_t len);

/* ---- results_h5.c: HDF5 result files, written atomically ------------------------- */
typedef struct sv_h5 {
    int64_t file; /* hid_t */
    int failed;
    sv_output out;
    char tmp[SV_OUTPUT_PATH + 16];
} sv_h5;
/* An HDF5 output must be a regular file (or a link to one, or new): a device
 * or a FIFO is refused, by sv_h5_create and by sv_h5_check before the work. */
int sv_h5_create(sv_h5 *f, const char *path);
int sv_h5_check(const char *path);
/* cols = 0: a 1-D dataset of `rows` values */
int sv_h5_doubles(sv_h5 *f, const char *name, const double *data, size_t rows, size_t cols);
int sv_h5_bytes(sv_h5 *f, const char *name, const signed char *data, size_t rows, size_t cols);
/* a 1-D dataset of n unsigned 64-bit counts, exact (shard files' tallies) */
int sv_h5_u64s(sv_h5 *f, const char *name, const uint64_t *data, size_t n);
int sv_h5_strings(sv_h5 *f, const char *name, const char *const *strings, size_t n);
int sv_h5_attr(sv_h5 *f, const char *name, const char *value);
int sv_h5_commit(sv_h5 *f);
void sv_h5_abort(sv_h5 *f);

/* ---- results_h5_read.c: reading result files back ---------------------------- */
typedef struct sv_h5_reader {
    int64_t file; /* hid_t */
    char path[1024];
} sv_h5_reader;
/* Opens a result file to read: a regular file (sv_input.h), HDF5, holding
 * its own data (sv_h5_own_data); else SV_EBAD naming it. */
int sv_h5_open(sv_h5_reader *r, const char *path);
/* h5_whole.c: the file read whole (every attribute and dataset) in a child
 * process first, which sv_h5_open does: SV_EBAD when libhdf5 crashed or
 * looped on it there (a corrupt file), else SV_OK. */
int sv_h5_check_whole(const char *path);
/* results_h5_links.c: SV_EBAD naming the first external, soft or
 * user-defined link of the file, or dataset kept in other files. */
int sv_h5_own_data(const sv_h5_reader *r);
void sv_h5_close(sv_h5_reader *r);
/* A 1-D (cols = 0) or 2-D dataset as doubles, malloc'ed into *data. */
int sv_h5_read_doubles(sv_h5_reader *r, const char *name, double **data, size_t *rows,
                       size_t *cols);
int sv_h5_read_attr(sv_h5_reader *r, const char *name, char *out, size_t len);
int sv_h5_has_attr(sv_h5_reader *r, const char *name);
/* Exactly n counts of a 1-D integer dataset into out; SV_EBAD naming the
 * file and dataset when it is missing or of another size. */
int sv_h5_read_u64s(sv_h5_reader *r, const char *name, uint64_t *out, size_t n);
int sv_h5_has_dataset(sv_h5_reader *r, const char *name);
/* A 1-D dataset of strings: *out holds *n malloc'ed strings, in a malloc'ed array. */
int sv_h5_read_strings(sv_h5_reader *r, const char *name, char ***out, size_t *n);
/* Every number read back from a file is checked before use: finite and in
 * [lo, hi] (hi = INFINITY: no upper bound), lo excluded with SV_H5_ABOVE_LO,
 * a whole number with SV_H5_WHOLE, NaN also allowed with SV_H5_NAN_OK. Else
 * SV_EBAD naming the file, the dataset or attribute, the row (and column),
 * the value and what was expected. */
enum { SV_H5_WHOLE = 1, SV_H5_NAN_OK = 2, SV_H5_ABOVE_LO = 4 };
int sv_h5_check_values(const sv_h5_reader *r, const char *name, const double *data,
                       size_t rows, size_t cols, double lo, double hi, unsigned flags);
/* sv_h5_read_doubles, then sv_h5_check_values (*data freed on a refusal). */
int sv_h5_read_checked(sv_h5_reader *r, const char *name, double **data, size_t *rows,
                       size_t *cols, double lo, double hi, unsigned flags);
/* A text attribute holding one number, checked as above. */
int sv_h5_read_number(sv_h5_reader *r, const char *name, double lo, double hi, unsigned flags,
                      double *out);
/* The refusal of value v at (row, col; SIZE_MAX for a 1-D dataset) of
 * dataset name, for checks across fields; want says what was expected. */
int sv_h5_bad_value(const sv_h5_reader *r, const char *name, size_t row, size_t col,
                    double v, const char *want);

#endif
