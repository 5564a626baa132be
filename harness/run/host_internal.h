/* host_internal.h: the sampler host's parts (sampler_host.c the calls,
 * host_memory.c the mappings and guards, host_child.c the child process,
 * host_guard.c the in-process crash guard, host_calls.c the calls proper). */
#ifndef SV_HOST_INTERNAL_H
#define SV_HOST_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>
#include "sampler_host.h"
#include "sv_sandbox.h"

enum { CMD_NONE = 0, CMD_INIT, CMD_VERIFY, CMD_DESTROY };

/* One slot's request and answer; in memory both processes share. */
typedef struct slot_control {
    int32_t command, rc;
    int env_error;               /* init failed for want of a device: exit 3 */
    sv_limits limits;
    const void *resident;        /* inputs laid out for every batch (a mix's), or NULL */
    size_t resident_bytes;
    const struct sv_mix *mix;    /* the mix resident leads with, or NULL (a forked child's copy) */
    struct sv_staging_slot *staging; /* device staging's part of this slot, or NULL */
    sv_batch batch;              /* its pointers are valid in both processes */
    char err[SV_NOTE_LEN];       /* init's message */
    /* the call running now, for the watcher: CMD_NONE when none */
    atomic_int active;
    atomic_int told;             /* the watcher said it is waiting for this call */
    _Atomic double started;
    uint64_t first, last;        /* its sequences; last < first: none */
} slot_control;

/* What the child's fault handler leaves before the child dies. */
typedef struct crash_record {
    atomic_int taken;
    int signo, code, write_fault;
    int slot;                    /* the slot whose thread faulted; -1: another thread */
    int in_call;                 /* that thread was inside a sampler call */
    uintptr_t addr;
    int syscall;                 /* SIGSYS from the sandbox's rules: the call, else -1 */
    long args[3];
    atomic_int done;             /* the child ended as asked, not on its own */
} crash_record;

/* An output buffer between two inaccessible pages; what lies around the
 * data inside [start, end) is a canary checked after every call. */
typedef struct zone {
    unsigned char *start, *end;
} zone;

/* The in-process crash guard of one slot (host_guard.c). */
typedef struct guard guard;

typedef struct slot {
    slot_control *ctl;
    int fd;                      /* the parent's end of the socket to the child; -1 */
    void *state;                 /* in-process: the sampler's state */
    int crashed;                 /* in-process: the state is abandoned */
    sv_slot_inputs in;
    unsigned char *in_start;     /* its input pages (drafts and rows) */
    size_t in_bytes;
    zone tokens, accepted, path; /* path: a tree batch's out_path, or out_drafts */
    guard *guard;
} slot;

struct sv_host {
    sv_host_config cfg;
    const sv_sampler *sampler;   /* in-process: resolved (plugins: the real one) */
    int32_t K, V;
    /* inputs: the case's rows, then each slot's; read-only to the sampler */
    unsigned char *in_base;
    size_t in_bytes;
    int memfd;                   /* isolated: the inputs' memory, sealed against writes */
    const float *target, *draft;
    const void *logits;
    size_t fixed_bytes;          /* the case's (or the mix's) part of the inputs */
    sv_mix_view mix_view;        /* a mix's slots as laid out there */
    /* outputs and controls, shared with the child */
    unsigned char *out_base;
    size_t out_bytes;
    crash_record *crash;
    slot *slots;
    /* the child */
    sv_sandboxed box;            /* its sandbox (harness/sandbox) */
    pid_t child, parent;
    pthread_mutex_t lock;
    int reaped, status;          /* its wait status, once reaped */
    int told;                    /* its end has been noted */
    int timed_out;               /* the harness stopped it: a call passed the limit */
    int32_t timed_slot;
};

/* host_memory.c */
int sv_host_map(sv_host *h);
/* The child's view of the inputs: the same pieces again, read-only. 0, or
 * -1 with errno. */
int sv_host_map_readonly(sv_host *h);
void sv_host_unmap(sv_host *h);
/* Protects a slot's inputs (in-process, around a call): 1 read-only, 0 writable. */
void sv_host_protect_inputs(sv_host *h, int32_t slot, int read_only);
/* Places n bytes of output in z, canaries around; returns where. */
void *sv_zone_arm(const zone *z, size_t n);
/* 0 if the canaries around data[0..n) are whole; else how far the damage
 * reaches before the data (*before, bytes) and after it (*after). */
int sv_zone_check(const zone *z, const void *data, size_t n, size_t *before, size_t *after);
/* What a fault at addr touched, in words ("modified its input rows (target
 * row 2 of sequence 7)"); 0 if addr is none of the host's memory. */
int sv_host_describe_fault(const sv_host *h, int32_t slot, uintptr_t addr, int write,
                           char *out, size_t len);

/* host_calls.c: the calls proper (CUDA samplers through a stage) */
int sv_call_init(const sv_sampler *s, void **state, const slot_control *ctl, char *err,
                 size_t errlen, int *env_error);
int sv_call_verify(const sv_sampler *s, void *state, const sv_batch *bt);
void sv_call_destroy(const sv_sampler *s, void *state);
const char *sv_status_name(int rc);

/* host_child.c */
int sv_host_fork(sv_host *h, char *err, size_t len);

/* host_guard.c: in-process calls under a signal guard */
int sv_guard_open(sv_host *h);
void sv_guard_close(sv_host *h);
/* Runs the call on this thread under slot's guard: 0, or the signal that
 * crashed it with the fault's address and kind. */
typedef struct guarded_call {
    int command;
    int rc;
    int signo, write_fault;
    uintptr_t addr;
} guarded_call;
void sv_guard_call(sv_host *h, int32_t slot, guarded_call *call);
/* From a SIGSEGV handler's context: 1 a write, 0 a read, -1 not known here. */
int sv_fault_is_write(void *context);

/* The call a command is, in words. */
static inline const char *sv_command_name(int command)
{
    return command == CMD_INIT ? "init" : command == CMD_VERIFY ? "verify" : "destroy";
}

#endif
