/* tests/emu/emu_fiber.cpp: the coroutine switch (emu_fiber.h). */
#include "emu_fiber.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#if SV_EMU_FIBER_ASM

/* sv_fiber_swap(&from_sp, to_sp): the System V callee-saved registers
 * (rbp, rbx, r12 to r15), MXCSR and the x87 control word go on the running
 * stack, its pointer into *from_sp; then to_sp's are popped and `ret`
 * resumes where that stack last called sv_fiber_swap (or, the first time,
 * at the entry sv_fiber_start put there). */
extern "C" void sv_fiber_swap(void **from_sp, void *to_sp);
asm(R"(
    .text
    .globl sv_fiber_swap
    .type sv_fiber_swap, @function
sv_fiber_swap:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    subq $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    addq $8, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size sv_fiber_swap, .-sv_fiber_swap
)");

void sv_fiber_start(sv_fiber *f, char *stack, size_t size, void (*entry)())
{
    if (!stack || size < 256) {
        fprintf(stderr, "emu: cannot make a thread's context\n");
        abort();
    }
    /* The frame sv_fiber_swap pops, from the low end: MXCSR and the x87
     * control word (their defaults: every exception masked, round to
     * nearest), six registers (zero), entry as the return address, then a
     * null return address for entry itself. At entry's first instruction
     * the stack pointer is then 8 below a 16-byte boundary, as after a call. */
    uintptr_t top = ((uintptr_t)(stack + size)) & ~(uintptr_t)15;
    uint64_t *sp = (uint64_t *)(top - 9 * 8);
    sp[0] = 0x1f80u | ((uint64_t)0x037fu << 32);
    for (int i = 1; i <= 6; i++)
        sp[i] = 0;
    sp[7] = (uint64_t)(uintptr_t)entry;
    sp[8] = 0;
    f->sp = sp;
}

void sv_fiber_switch(sv_fiber *from, sv_fiber *to)
{
    sv_fiber_swap(&from->sp, to->sp);
}

#else

void sv_fiber_start(sv_fiber *f, char *stack, size_t size, void (*entry)())
{
    if (!stack || getcontext(&f->ctx) != 0) {
        fprintf(stderr, "emu: cannot make a thread's context\n");
        abort();
    }
    f->ctx.uc_stack.ss_sp = stack;
    f->ctx.uc_stack.ss_size = size;
    f->ctx.uc_link = nullptr;
    makecontext(&f->ctx, entry, 0);
}

void sv_fiber_switch(sv_fiber *from, sv_fiber *to)
{
    swapcontext(&from->ctx, &to->ctx);
}

#endif
