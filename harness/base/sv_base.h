/* sv_base.h: what every room of the harness stands on. Errors (one
 * reporting path; the statuses are specverify's exit codes; GSL's errors
 * recorded, never an abort), the clock and the progress line, interruption
 * by SIGINT or SIGTERM, another program's output without a shell, and text
 * from outside the harness made printable (escape.c).
 * Depends on nothing else of the harness. */
#ifndef SV_BASE_H
#define SV_BASE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- error.c: one reporting path ------------------------------------------
 * Functions that can fail return a status; the message is kept per thread.
 * The statuses are specverify's exit codes. */
enum {
    SV_OK = 0,
    SV_EVERIFY = 1, /* a verification failed */
    SV_EBAD = 2,    /* bad usage or bad input */
    SV_EENV = 3     /* environment: no GPU, no memory, a missing tool */
};
/* sv_fail(STATUS, FMT, ...) keeps the message and returns STATUS. A macro
 * over an inline function so that static analysers see the status (a
 * variadic function in another file might return SV_OK, for all they know). */
int sv_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int sv_fail_status(int status, int set_error)
{
    (void)set_error;
    return status;
}
#define sv_fail(status, ...) sv_fail_status((status), sv_set_error(__VA_ARGS__))
const char *sv_error_message(void);
/* GSL's errors are recorded on the thread that raised them, never an abort
 * (GSL's default): its handler is installed before main (and again by main,
 * at once). Code that calls GSL clears, calls, then takes: the take returns
 * 0, or the first error's gsl_errno with its words (file, line, reason) in
 * out, and clears it. */
void sv_gsl_errors_install(void);
void sv_gsl_error_clear(void);
int sv_gsl_error_take(char *out, size_t len);

/* ---- progress.c: draws done, rate, time left ----------------------------------
 * On a terminal one line redrawn in place; elsewhere a plain line every
 * SV_PROGRESS_SECONDS seconds (default 30; 0: none). */
typedef struct sv_progress {
    int enabled, terminal;
    double interval;            /* seconds between plain lines, not on a terminal */
    const char *label, *unit;   /* unit: "draws" unless sv_progress_unit says */
    uint64_t total, done;       /* done: as last told */
    double start, last;
} sv_progress;
void sv_progress_start(sv_progress *p, int enabled, const char *label, uint64_t total);
void sv_progress_unit(sv_progress *p, const char *unit);
void sv_progress_update(sv_progress *p, uint64_t done);
void sv_progress_end(sv_progress *p);
/* A run of several progress lines one after another (verify's groups of
 * cases): between begin and end each line's time left is the whole run's,
 * from the planned draws of the run, the draws of the lines that ended and
 * the time since begin. */
void sv_progress_run_begin(uint64_t planned);
void sv_progress_run_end(void);
/* The run's time left as sv_progress_left says it: `before` draws of the
 * lines that ended, `done` of `total` of this one, `planned` in all (more,
 * if the lines drew more than planned), `elapsed` seconds since the run began. */
void sv_progress_run_left(uint64_t before, uint64_t planned, uint64_t done, uint64_t total,
                          double elapsed, char *out, size_t len);
/* Before a notice on stderr while a run may be drawing: ends a progress line
 * drawn in place (a newline), so the notice starts on a line of its own. */
void sv_progress_break(void);
/* SV_PROGRESS_SECONDS, or the default: 0, or -1 with err said if malformed. */
int sv_progress_interval(double *seconds, char *err, size_t len);
/* "45 s", "4 min 05 s", "2 h 05 min", "3 days 4 h", "over 100 days", "unknown". */
void sv_format_duration(double seconds, char *out, size_t len);
/* "4 min 05 s left", or "time left unknown" until the rate is measured over
 * 2 s or 5% of the work, or "done". */
void sv_progress_left(uint64_t done, uint64_t total, double elapsed, char *out, size_t len);
double sv_now(void);

/* ---- interruption (interrupt.c) --------------------------------------------- */

/* After sv_interrupt_install, the first SIGINT or SIGTERM is only recorded:
 * sv_interrupted() returns its number (0 before), the runner stops at the
 * next batch and the command writes what finished, marked partial. A second
 * one ends the process. */
void sv_interrupt_install(void);
int sv_interrupted(void);
/* Called first on a worker thread: SIGINT and SIGTERM then go to the
 * watcher, and sv_interrupted() on the worker sees them while pending. */
void sv_interrupt_block_here(void);
/* As if signo had arrived (a signal another MPI rank caught): the run stops
 * at the next batch and writes what finished. */
void sv_interrupt_raise(int signo);
/* The signal this process caught, whatever an override says. */
int sv_interrupt_local(void);
/* fn (NULL: none) answers sv_interrupted() instead: MPI's ranks, which must
 * all stop after the same case, decide together when a signal counts. */
void sv_interrupt_override(int (*fn)(void));
const char *sv_signal_name(int signo);

/* ---- program_output.c: another program's first line ------------------------ */
/* Runs argv (posix_spawnp, no shell; stderr to /dev/null) and keeps the first
 * line it prints in out. 0 when it ran and exited 0; -1 otherwise. */
int sv_program_line(char *const argv[], char *out, size_t len);

/* ---- read_until.c: another process's answer, within a time ------------------ */
/* Reads fd into buf until it is closed, len bytes came, or `seconds` passed
 * (then *timed_out is 1): the bytes read. */
size_t sv_read_until(int fd, void *buf, size_t len, double seconds, int *timed_out);

/* ---- escape.c: text from outside made printable ------------------------------
 * What a sampler says, what a file holds and what a user typed is escaped
 * where it enters the harness, before any report prints or writes it. */
/* Copies in (n bytes, NUL or not) to out as printable text: control characters and
 * bytes that are not valid UTF-8 become \n, \r, \t, \\, \xHH; never cuts an escape
 * in two; out is always NUL-terminated. Returns the length written. */
size_t sv_escape(char *out, size_t len, const char *in, size_t n);
/* sv_escape of the string s (NULL: "") into buf; returns buf, for a format's %s. */
const char *sv_escaped(char *buf, size_t len, const char *s);
/* word in single quotes for a POSIX shell ('\'' for a quote) at out + used,
 * NUL-terminated, cut to fit len; returns the new used. */
size_t sv_shell_quote(char *out, size_t len, size_t used, const char *word);
/* 1 when s holds something sv_escape would escape other than a backslash:
 * text that sv_escape did not write. */
int sv_escape_needed(const char *s);
/* Text read back from a file that holds escaped text (a shard's notes): kept
 * as it is when it is what sv_escape writes (so it is not escaped twice),
 * escaped when not (a file made by someone else); cut to len at a character. */
void sv_escape_stored(char *out, size_t len, const char *s);
/* Escaped text s as a Markdown table's cell: '|' as "\|", so that it cannot
 * split the cell (sv_escape already took the newlines out). Returns buf. */
const char *sv_md_cell(char *buf, size_t len, const char *s);

/* ---- args.c: numbers and lists from text, errors naming the flag -------------------------------------- */
int sv_parse_u64(const char *flag, const char *text, uint64_t min, uint64_t max, uint64_t *out);
/* open: the range excludes its ends */
int sv_parse_double(const char *flag, const char *text, double min, double max, int open,
                    double *out);
/* Splits the comma list text into at most max items; errors name the flag. */
#define SV_LIST_ITEM 256
int sv_split_list(const char *flag, const char *text, char (*items)[SV_LIST_ITEM], int max, int *n);

#endif
