/* tests/emu/emu_fiber.h: the emulator's coroutine switch (emu.cpp's threads).
 *
 * glibc's swapcontext saves and restores the signal mask with a system
 * call on every switch; the emulator switches at every barrier of every
 * thread, and those calls were three quarters of the emulated-kernel tests'
 * time (perf: __swapcontext and the kernel's entry). On x86-64 a switch is
 * here a few instructions (emu_fiber.cpp): the callee-saved registers, MXCSR
 * and the x87 control word pushed on the old stack, the stack pointer
 * swapped, the same popped from the new one. Elsewhere it is ucontext, as
 * before. Nothing here touches signals: the emulator runs on one OS thread
 * and installs no handler. */
#ifndef SV_EMU_FIBER_H
#define SV_EMU_FIBER_H

#include <cstddef>

#if defined(__x86_64__)
#define SV_EMU_FIBER_ASM 1
#else
#define SV_EMU_FIBER_ASM 0
#include <ucontext.h>
#endif

/* One coroutine's saved state (the scheduler's too). */
struct sv_fiber {
#if SV_EMU_FIBER_ASM
    void *sp = nullptr; /* its stack pointer while it is switched out */
#else
    ucontext_t ctx;
#endif
};

/* f, switched to, starts entry() on [stack, stack + size); entry never
 * returns (it switches away for the last time instead). */
void sv_fiber_start(sv_fiber *f, char *stack, size_t size, void (*entry)());

/* Saves the running coroutine into `from` and resumes `to`. */
void sv_fiber_switch(sv_fiber *from, sv_fiber *to);

#endif
