/* tests/emu/emu.cpp: the runtime behind tests/emu/cuda_runtime.h.
 *
 * A launch runs its blocks in order. A block's threads are coroutines
 * (emu_fiber.h) on the calling thread: each runs until it meets a barrier (the
 * block's for __syncthreads, its warp's for shuffles, ballots and
 * reductions) or returns, and the scheduler resumes the others round-robin
 * until the barrier's whole party has arrived. One OS thread, so a run is
 * deterministic and cheap, and a barrier some thread never reaches is
 * reported as a deadlock instead of hanging. A thread that returns leaves
 * every barrier it belongs to, as an exited GPU thread stops counting.
 * Launches from several OS threads (a runner's slots) run one at a time:
 * the running block and the thread indices are this file's globals.
 *
 * Under AddressSanitizer every switch is announced (sanitizer fiber API),
 * so it knows which stack is live. */
#include <array>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>
#include "cuda_runtime.h"
#include "emu_fiber.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define SV_EMU_ASAN 1
#else
#define SV_EMU_ASAN 0
#endif

uint3 threadIdx, blockIdx;
dim3 blockDim, gridDim;

namespace {

constexpr size_t STACK_BYTES = 256 * 1024;

enum run_state { RUNNABLE, WAITING, DONE };

/* A barrier whose party shrinks as threads return. */
struct barrier {
    int active = 0, arrived = 0;
    std::vector<unsigned> waiting;
};

struct emu_thread {
    sv_fiber ctx;
    char *stack = nullptr;
    uint3 tid;
    run_state state = RUNNABLE;
};

struct warp {
    barrier bar;
    std::array<uint64_t, 32> slot{};
    std::array<bool, 32> alive{};
};

struct block_run {
    std::vector<emu_thread> threads;
    std::vector<warp> warps;
    barrier bar;
    sv_fiber scheduler;
    unsigned current = 0;
    const std::function<void()> *body = nullptr;
};

block_run *run;                  /* the block running now */
std::vector<char *> stack_pool;  /* reused from block to block of a launch */
const void *scheduler_stack;     /* the scheduler's stack, for ASan */
size_t scheduler_stack_size;
std::mutex launching;            /* held by the launch that runs now */

/* ---- switching, announced to ASan ---- */
void switch_context(sv_fiber *from, sv_fiber *to, const void *to_stack, size_t to_size,
                    bool from_ends)
{
#if SV_EMU_ASAN
    void *fake = nullptr;
    __sanitizer_start_switch_fiber(from_ends ? nullptr : &fake, to_stack, to_size);
    sv_fiber_switch(from, to);
    __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#else
    (void)to_stack, (void)to_size, (void)from_ends;
    sv_fiber_switch(from, to);
#endif
}

/* From a thread back to the scheduler. */
void yield_to_scheduler(bool ending)
{
    emu_thread &t = run->threads[run->current];
    switch_context(&t.ctx, &run->scheduler, scheduler_stack, scheduler_stack_size, ending);
    threadIdx = t.tid; /* resumed */
}

void release(barrier &b)
{
    for (unsigned w : b.waiting)
        run->threads[w].state = RUNNABLE;
    b.waiting.clear();
    b.arrived = 0;
}

/* The running thread waits until every live member of b has arrived. */
void arrive(barrier &b)
{
    if (++b.arrived == b.active) {
        release(b); /* the last to arrive goes straight on */
        return;
    }
    b.waiting.push_back(run->current);
    run->threads[run->current].state = WAITING;
    yield_to_scheduler(false);
}

void leave(barrier &b)
{
    b.active--;
    if (b.arrived > 0 && b.arrived == b.active)
        release(b);
}

void thread_entry()
{
#if SV_EMU_ASAN
    __sanitizer_finish_switch_fiber(nullptr, &scheduler_stack, &scheduler_stack_size);
#endif
    (*run->body)();
    const unsigned me = run->current, w = me / 32;
    run->warps[w].alive[me % 32] = false;
    leave(run->warps[w].bar);
    leave(run->bar);
    run->threads[me].state = DONE;
    yield_to_scheduler(true); /* never resumed */
}

void run_block(block_run &b, unsigned n)
{
    for (unsigned t = 0; t < n; t++) {
        if (t >= stack_pool.size())
            stack_pool.push_back(static_cast<char *>(malloc(STACK_BYTES)));
        b.threads[t].stack = stack_pool[t];
        sv_fiber_start(&b.threads[t].ctx, stack_pool[t], STACK_BYTES, thread_entry);
    }
    for (unsigned done = 0; done < n;) {
        bool progressed = false;
        done = 0;
        for (unsigned t = 0; t < n; t++) {
            emu_thread &th = b.threads[t];
            if (th.state == RUNNABLE) {
                b.current = t;
                threadIdx = th.tid;
                switch_context(&b.scheduler, &th.ctx, th.stack, STACK_BYTES, false);
                progressed = true;
            }
            done += th.state == DONE;
        }
        if (!progressed && done < n) {
            fprintf(stderr, "emu: deadlock in block (%u, %u, %u): %u of %u threads wait at a "
                    "barrier the others never reach\n", blockIdx.x, blockIdx.y, blockIdx.z,
                    n - done, n);
            abort();
        }
    }
}

} // namespace

void sv_emu_run(dim3 grid, dim3 blockdim, const std::function<void()> &body)
{
    if (sv_emu_capture([grid, blockdim, body]() { sv_emu_run(grid, blockdim, body); }))
        return;
    const std::lock_guard<std::mutex> one_at_a_time(launching);
    const unsigned n = blockdim.x * blockdim.y * blockdim.z;
    blockDim = blockdim, gridDim = grid;
    for (unsigned z = 0; z < grid.z; z++)
        for (unsigned y = 0; y < grid.y; y++)
            for (unsigned x = 0; x < grid.x; x++) {
                block_run b;
                b.body = &body;
                b.threads.resize(n);
                b.warps.resize((n + 31) / 32);
                b.bar.active = (int)n;
                for (unsigned t = 0; t < n; t++) {
                    b.threads[t].tid = {t % blockdim.x, (t / blockdim.x) % blockdim.y,
                                        t / (blockdim.x * blockdim.y)};
                    b.warps[t / 32].bar.active++;
                    b.warps[t / 32].alive[t % 32] = true;
                }
                blockIdx = {x, y, z};
                run = &b;
                run_block(b, n);
                run = nullptr;
            }
    for (char *stack : stack_pool)
        free(stack);
    stack_pool.clear();
}

void __syncthreads(void)
{
    arrive(run->bar);
}

/* Every live lane of the warp puts in `mine`; each gets back the value of
 * the lane `arg` above (shuffle down; its own past the end), the lanes'
 * bits (ballot), or the minimum (reduce). */
uint64_t sv_emu_exchange(uint64_t mine, int op, unsigned arg)
{
    const unsigned me = run->current, lane = me % 32;
    warp &w = run->warps[me / 32];
    w.slot[lane] = mine;
    arrive(w.bar);
    uint64_t out = mine;
    if (op == SV_EMU_SHFL_DOWN) {
        if (lane + arg < 32 && w.alive[lane + arg])
            out = w.slot[lane + arg];
    } else {
        bool first = true;
        for (unsigned l = 0; l < 32; l++) {
            if (!w.alive[l])
                continue;
            if (op == SV_EMU_BALLOT)
                out = (first ? 0 : out) | ((uint64_t)(w.slot[l] != 0) << l);
            else
                out = first || w.slot[l] < out ? w.slot[l] : out;
            first = false;
        }
    }
    arrive(w.bar); /* no lane overwrites its slot before every lane has read */
    return out;
}

void __threadfence(void)
{
}

unsigned atomicAdd(unsigned *p, unsigned v)
{
    unsigned old = *p;
    *p = old + v;
    return old;
}

unsigned atomicMin(unsigned *p, unsigned v)
{
    unsigned old = *p;
    *p = v < old ? v : old;
    return old;
}

double atomicAdd(double *p, double v)
{
    double old = *p;
    *p = old + v;
    return old;
}

unsigned long long atomicAdd(unsigned long long *p, unsigned long long v)
{
    unsigned long long old = *p;
    *p = old + v;
    return old;
}

unsigned atomicOr(unsigned *p, unsigned v)
{
    unsigned old = *p;
    *p = old | v;
    return old;
}
