/* py_plugin.h: the parts of the Python samplers' plugin (sv_python.c the
 * sampler table and the calls, py_worker.c the interpreter's process,
 * py_batch.c a batch in the shared memory, py_bonus.c the bonus token a
 * caller draws). */
#ifndef SV_PY_PLUGIN_H
#define SV_PY_PLUGIN_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <cjson/cJSON.h>
#include "sv_sampler.h"

/* How a sampler's bonus token comes (the decorator's `bonus`). */
enum { SV_PY_BONUS_SAMPLER = 0, SV_PY_BONUS_HARNESS = 1, SV_PY_BONUS_NONE = 2 };

/* out[b]: sequence b's bonus token, drawn from its bonus row with the
 * harness's uniform (SV_PURPOSE_BONUS). 0, or -1 when out of memory. */
int sv_py_bonus(const sv_batch *bt, int32_t *out);

/* ---- py_worker.c: the interpreter's process ------------------------------------ */
typedef struct sv_pyw {
    int up;              /* started (by either way), not yet stopped */
    pid_t pid;           /* an interpreter started here: its pid */
    int forked;          /* or a worker the fork server forked */
    int life;            /* forked: the pipe whose end tells the server this process ended */
    int sock;            /* requests and answers */
    int memfd;           /* the shared memory the batches lie in */
    unsigned char *mem;  /* mapped here */
    size_t size;
} sv_pyw;
/* Starts a worker on specverify._worker: one forked by the fork server when
 * it can (py_server.c), else exe from the package folder. 0, or -1 with why. */
int sv_pyw_start(sv_pyw *w, const char *exe, const char *package, char *err, size_t len);

/* ---- py_server.c: a worker from the fork server ---------------------------------- */
/* The words on the worker's socket that are not an answer's length
 * (python/specverify/_server.py's YES, NO, STATUS). */
#define SV_PYW_YES 0xFFFFFFFDu
#define SV_PYW_NO 0xFFFFFFFEu
#define SV_PYW_STATUS 0xFFFFFFFFu
/* The exit status of this process when its forked worker vanished with the
 * server, no status said (sv_sandbox.h's SV_SANDBOX_SERVER_LOST: the
 * harness then asks the server's sandbox what its watch named). */
#define SV_PYW_SERVER_LOST 70
/* Asks the server for a worker (w->memfd made): 0 with w's socket and life
 * set, or -1 when there is none to ask or it cannot fork the samplers. */
int sv_pyw_from_server(sv_pyw *w);
/* One little-endian word from fd: 0, or -1 at its end. */
int sv_pyw_read_word(int fd, uint32_t *word);
/* Sends request (taken) and returns the answer (the caller's to delete);
 * NULL when it cannot be read as JSON. If the worker ends instead of
 * answering, this process ends as it did (its signal, or its exit status). */
cJSON *sv_pyw_ask(sv_pyw *w, cJSON *request);
/* Asks the worker to end and waits for it (a sampler must end what it
 * starts: so must the plugin). */
void sv_pyw_stop(sv_pyw *w);
/* fn: called when a worker has ended in a call, after w is let go (not up)
 * and before its end is made this process's (a signal raised, which
 * --in-process's guard survives, or an exit). */
void sv_pyw_on_end(void (*fn)(void));
/* The shared memory at least bytes long: 0, or -1. */
int sv_pyw_memory(sv_pyw *w, size_t bytes);

/* ---- py_batch.c: one call's batch in the shared memory ------------------------- */
/* Copies the batch's inputs (and bonus, may be NULL) and outputs into w's
 * memory and returns the call request for slot (NULL: out of memory). */
cJSON *sv_py_pack(sv_pyw *w, const sv_batch *bt, const int32_t *bonus, int slot);
/* After the call: the outputs copied back; 0, or -1 with what the sampler
 * did to its inputs in said (it wrote into the copy it was handed). */
int sv_py_unpack(sv_pyw *w, const sv_batch *bt, const int32_t *bonus, char *said, size_t len);

#endif
