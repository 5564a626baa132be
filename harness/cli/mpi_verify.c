/* mpi_verify.c: `mpirun -np N specverify verify ...` (issue 28). Each rank
 * runs shard `rank` of N (verify --shard's cut); every case's counts are
 * reduced to rank 0 as they finish (MPI_Reduce, in chunks, so V = 151936
 * at K = 8 fits any message limit), and rank 0 then runs verify again with
 * the summed counts in place of the runs, as merge does: the same report,
 * byte for byte but for the seconds, as one process. A rank whose run fails
 * says why and aborts every rank (MPI_Abort) with its exit status.
 *
 * While a case runs, each rank tells rank 0 its draws (a message on a
 * communicator of their own, every half second), and rank 0's progress line
 * shows them summed. A signal on any rank stops every rank: the rank tells
 * rank 0, which tells the others; all stop at their next batch, and since
 * their counts meet case by case they decide together, at the reduction,
 * after which case to stop (a signal that lands between cases counts from
 * the next one). Rank 0 then writes the report of the cases that ran, marked
 * partial, as one process does. */
#include <mpi.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "sv_cli.h"
#include "sv_check.h"
#ifdef SV_HAVE_CUDA
#include "cuda_stage.h"
#endif

#define CHUNK ((size_t)1 << 20) /* counts per MPI_Reduce */
#define TELL_SECONDS 0.5        /* how often a rank tells rank 0 its draws */
enum { TAG_DRAWS = 1, TAG_STOP = 2 };

/* What a rank tells rank 0 while a case runs. */
typedef struct draws_msg {
    uint64_t seq, done, total; /* seq: the cases taken before this run */
    int64_t signal;
} draws_msg;

/* One case's summed counts at rank 0, and its probe (rank 0's). */
typedef struct held {
    sv_tally *t;
    sv_shard_probe probe;
} held;

typedef struct mpi_run {
    int rank, size;
    size_t n_cases;
    held *cases; /* rank 0: [n_cases] */
    MPI_Comm talk; /* draws and stops, apart from the reductions */
    uint64_t seq;  /* cases taken so far */
    draws_msg *latest; /* rank 0: each rank's last word */
    double told;       /* when this rank last told rank 0 */
    int signal_told, stop_sent;
    atomic_int in_run, stop, decided; /* see mpi_interrupted */
} mpi_run;

static mpi_run *the_run; /* for sv_interrupted's override, which takes no context */

/* When a signal counts: within a run, this rank's or the stop rank 0 sent,
 * so that the run stops at its next batch; between runs, only what every
 * rank agreed at the last reduction, so that all stop after the same case. */
static int mpi_interrupted(void)
{
    const mpi_run *m = the_run;
    if (!atomic_load(&m->in_run))
        return atomic_load(&m->decided);
    const int local = sv_interrupt_local();
    return local ? local : atomic_load(&m->stop);
}

/* Rank 0: every rank's word so far; a signal anywhere sent on to all. */
static void hear(mpi_run *m, int local)
{
    int flag = 1, signal = local;
    while (flag) {
        MPI_Status st;
        draws_msg msg;
        if (MPI_Iprobe(MPI_ANY_SOURCE, TAG_DRAWS, m->talk, &flag, &st) != MPI_SUCCESS || !flag)
            break;
        MPI_Recv(&msg, (int)sizeof msg, MPI_BYTE, st.MPI_SOURCE, TAG_DRAWS, m->talk,
                 MPI_STATUS_IGNORE);
        if (st.MPI_SOURCE > 0 && st.MPI_SOURCE < m->size)
            m->latest[st.MPI_SOURCE] = msg;
        if (msg.signal && !signal)
            signal = (int)msg.signal;
    }
    if (signal && !m->stop_sent) {
        const int64_t sig = signal;
        for (int r = 1; r < m->size; r++)
            MPI_Send(&sig, 1, MPI_INT64_T, r, TAG_STOP, m->talk);
        m->stop_sent = 1;
        atomic_store(&m->stop, signal);
    }
}

/* The run's watcher: tell rank 0, or hear every rank and show their sum. */
static void poll(void *ctx, uint64_t done, uint64_t total, uint64_t *shown_done,
                 uint64_t *shown_total)
{
    mpi_run *m = ctx;
    atomic_store(&m->in_run, 1);
    const int local = sv_interrupt_local();
    if (m->rank == 0) {
        hear(m, local);
        *shown_done = done, *shown_total = total;
        for (int r = 1; r < m->size; r++) { /* a rank not heard from yet: a share like ours */
            const int heard = m->latest[r].seq == m->seq && m->latest[r].total;
            *shown_done += heard ? m->latest[r].done : 0;
            *shown_total += heard ? m->latest[r].total : total;
        }
        return;
    }
    const double now = sv_now();
    if (now - m->told >= TELL_SECONDS || (local && !m->signal_told)) {
        draws_msg msg = {m->seq, done, total, local};
        MPI_Send(&msg, (int)sizeof msg, MPI_BYTE, 0, TAG_DRAWS, m->talk);
        m->told = now;
        m->signal_told |= local != 0;
    }
    int flag = 0;
    if (MPI_Iprobe(0, TAG_STOP, m->talk, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag) {
        int64_t sig = 0;
        MPI_Recv(&sig, 1, MPI_INT64_T, 0, TAG_STOP, m->talk, MPI_STATUS_IGNORE);
        atomic_store(&m->stop, (int)sig);
    }
    *shown_done = done, *shown_total = total;
}

/* Notes and error status of one rank, gathered to rank 0. */
typedef struct rank_notes {
    int32_t n_notes, sampler_error, tree, pad;
    uint64_t at[SV_MAX_NOTES];
    char text[SV_MAX_NOTES][SV_NOTE_LEN];
} rank_notes;

int sv_mpi_launched(int *rank, int *size)
{
    const char *names[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"};
    *rank = 0;
    *size = 1;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i]);
        if (v && strtol(v, NULL, 10) > 1) {
            int provided = 0; /* MPI from the thread that called sv_run alone */
            if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
                return sv_fail(SV_EENV, "MPI_Init failed under mpirun (%s = %s)", names[i], v);
            MPI_Comm_rank(MPI_COMM_WORLD, rank);
            MPI_Comm_size(MPI_COMM_WORLD, size);
            return SV_OK;
        }
    }
    return SV_OK;
}

void sv_mpi_end(int rc)
{
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rc != SV_OK && rc != SV_EVERIFY && !(rc > 128 && rc < 160)) {
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        fprintf(stderr, "specverify: rank %d of %d: %s; stopping every rank\n", rank, size,
                sv_error_message());
        MPI_Abort(MPI_COMM_WORLD, rc);
    }
    MPI_Finalize();
}

static int reduce(const mpi_run *m, const uint64_t *send, uint64_t *recv, size_t n)
{
    for (size_t at = 0; at < n; at += CHUNK) {
        const int count = (int)(n - at < CHUNK ? n - at : CHUNK);
        if (MPI_Reduce(send + at, m->rank == 0 ? recv + at : NULL, count, MPI_UINT64_T, MPI_SUM,
                       0, MPI_COMM_WORLD) != MPI_SUCCESS)
            return sv_fail(SV_EENV, "MPI_Reduce of %zu counts failed", n);
    }
    return SV_OK;
}

static int take(void *ctx, size_t i, const sv_case *c, const sv_pair_plan *plan,
                const sv_tally *t, const sv_shard_probe *probe)
{
    mpi_run *m = ctx;
    /* the ranks agree here whether a signal stops them after this case */
    atomic_store(&m->in_run, 0);
    int mine_sig = sv_interrupt_local(), agreed = 0;
    if (!mine_sig)
        mine_sig = atomic_load(&m->stop);
    if (MPI_Allreduce(&mine_sig, &agreed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
        return sv_fail(SV_EENV, "MPI_Allreduce of the ranks' signals failed");
    if (agreed)
        atomic_store(&m->decided, agreed);
    m->seq++;
    sv_tally *sum = NULL;
    int rc = m->rank == 0 ? sv_tally_alloc(c, plan, &sum) : SV_OK;
    if (rc != SV_OK) /* rank 0 cannot hold the sums: every rank stops */
        return rc;
    uint64_t scalars[5] = {t->draws, t->first_accepted, t->first_chance_fx, t->first_variance_fx,
                           t->violations}, sums[5] = {0};
    rc = reduce(m, scalars, sums, 5);
    sv_tally_counts mine_c[SV_TALLY_COUNTS], sum_c[SV_TALLY_COUNTS];
    sv_tally_counts_of(t, plan, mine_c);
    if (sum)
        sv_tally_counts_of(sum, plan, sum_c);
    for (int a = 0; a < SV_TALLY_COUNTS && rc == SV_OK; a++)
        if (mine_c[a].data) /* a Markov pair's transitions alone */
            rc = reduce(m, mine_c[a].data, sum ? sum_c[a].data : NULL, mine_c[a].n);
    double seconds = 0.0;
    if (rc == SV_OK && MPI_Reduce(&t->seconds, &seconds, 1, MPI_DOUBLE, MPI_SUM, 0,
                                  MPI_COMM_WORLD) != MPI_SUCCESS)
        rc = sv_fail(SV_EENV, "MPI_Reduce of the seconds failed");
    /* the first violations of every rank, then the lowest kept as one run keeps them */
    rank_notes mine = {t->n_notes, t->sampler_error, t->tree, 0, {0}, {{0}}};
    memcpy(mine.at, t->note_at, sizeof mine.at);
    memcpy(mine.text, t->notes, sizeof mine.text);
    rank_notes *all = m->rank == 0 ? calloc((size_t)m->size, sizeof *all) : NULL;
    if (rc == SV_OK && m->rank == 0 && !all)
        rc = sv_fail(SV_EENV, "out of memory for %d ranks' notes", m->size);
    if (rc == SV_OK && MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine,
                                  MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        rc = sv_fail(SV_EENV, "MPI_Gather of the notes failed");
    if (rc == SV_OK && sum) {
        sum->draws = sums[0], sum->first_accepted = sums[1], sum->first_chance_fx = sums[2];
        sum->first_variance_fx = sums[3], sum->violations = sums[4], sum->seconds = seconds;
        for (int r = 0; r < m->size; r++) {
            for (int32_t k = 0; k < all[r].n_notes && k < SV_MAX_NOTES; k++)
                sv_tally_note_escaped(sum, all[r].at[k], all[r].text[k]);
            sum->tree |= all[r].tree;
            if (!sum->sampler_error)
                sum->sampler_error = all[r].sampler_error;
        }
        m->cases[i].t = sum;
        if (probe)
            m->cases[i].probe = *probe;
        sum = NULL;
    }
    free(all);
    sv_tally_free(sum);
    return rc;
}

static int give(void *ctx, size_t i, const sv_case *c, const sv_pair_plan *plan, sv_tally *into,
                sv_shard_probe *probe, const uint64_t *shares)
{
    const mpi_run *m = ctx;
    (void)c, (void)shares; /* the ranks' counts came from this run, not from files */
    if (i >= m->n_cases || !m->cases[i].t)
        return sv_fail(SV_EBAD, "mpi: case %zu has no counts from the ranks", i + 1);
    sv_tally_add(into, m->cases[i].t, plan);
    into->seconds = m->cases[i].t->seconds;
    *probe = m->cases[i].probe;
    return SV_OK;
}

/* A CUDA sampler's rank takes one GPU: its local rank modulo the devices,
 * unless CUDA_VISIBLE_DEVICES already chose (before any child touches CUDA). */
static void bind_gpu(const sv_sampler *s, int rank)
{
#ifdef SV_HAVE_CUDA
    const char *local = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    char why[256], device[32];
    if (s->memspace != SV_MEM_CUDA || getenv("CUDA_VISIBLE_DEVICES") || !local)
        return;
    const int n = sv_cuda_device_count_isolated(why, sizeof why);
    if (n < 1)
        return; /* the run says why, as it does without MPI */
    snprintf(device, sizeof device, "%ld", strtol(local, NULL, 10) % n);
    setenv("CUDA_VISIBLE_DEVICES", device, 1);
    if (rank == 0)
        fprintf(stderr, "specverify: each rank on one of the %d GPUs (local rank modulo %d)\n",
                n, n);
#else
    (void)s, (void)rank;
#endif
}

int sv_mpi_verify(const sv_verify_config *whole, int rank, int size,
                  int (*report)(const sv_verify_config *cfg, void *ctx), void *ctx)
{
    bind_gpu(whole->sampler, rank);
    mpi_run m = {.rank = rank, .size = size, .n_cases = whole->n_cases};
    if (rank == 0 && (!(m.cases = calloc(whole->n_cases ? whole->n_cases : 1, sizeof *m.cases)) ||
                      !(m.latest = calloc((size_t)size, sizeof *m.latest)))) {
        free(m.cases);
        return sv_fail(SV_EENV, "out of memory for %zu cases", whole->n_cases);
    }
    if (MPI_Comm_dup(MPI_COMM_WORLD, &m.talk) != MPI_SUCCESS) {
        free(m.cases), free(m.latest);
        return sv_fail(SV_EENV, "MPI_Comm_dup failed");
    }
    sv_shard_hooks run_hooks = {(uint32_t)rank, (uint32_t)size, take, NULL, &m, 0, 0};
    const sv_run_watch watch = {poll, &m};
    sv_verify_config cfg = *whole;
    cfg.shard = &run_hooks;
    cfg.watch = &watch;
    cfg.rerun_suspects = 0; /* rank 0 re-runs a suspect, as one process would */
    cfg.progress = whole->progress && rank == 0;
    sv_report *r = NULL;
    const double start = sv_now();
    the_run = &m;
    sv_interrupt_override(mpi_interrupted);
    int rc = sv_verify(&cfg, &r);
    sv_interrupt_override(NULL);
    const int interrupted = atomic_load(&m.decided);
    if (interrupted) /* a signal elsewhere is this rank's too: a re-run would not start */
        sv_interrupt_raise(interrupted);
    size_t counted = r ? r->n_cases : 0;
    sv_report_free(r);
    if (rc == SV_OK && interrupted && rank != 0)
        rc = 128 + interrupted;
    if (rc == SV_OK && rank == 0) { /* the whole run's report, from the sums */
        if (interrupted)
            fprintf(stderr, "specverify: interrupted by %s on a rank: every rank stopped; the "
                    "report holds the %zu cases that ran\n", sv_signal_name(interrupted),
                    counted);
        sv_shard_hooks sums = {0, 0, NULL, give, &m, interrupted, counted};
        cfg = *whole;
        cfg.shard = &sums;
        cfg.seconds_before = sv_now() - start; /* the ranks' runs: the report's rate is theirs */
        rc = report(&cfg, ctx);
    }
    if (rank == 0) /* words still on their way: heard, so none is left unreceived */
        hear(&m, 0);
    for (size_t i = 0; m.cases && i < whole->n_cases; i++)
        sv_tally_free(m.cases[i].t);
    free(m.cases);
    free(m.latest);
    return rc;
}
