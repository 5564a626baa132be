/* emu_rows.h: the CUDA kernel tests' pseudo-random rows, with no CUDA in
 * them (the emulated tests and test_gpu_ragged share them): a fixed
 * sequence of numbers, probability rows, and draws from them. */
#ifndef SV_EMU_ROWS_H
#define SV_EMU_ROWS_H

#include <stdint.h>

/* A fixed sequence of pseudo-random numbers; a test may set lcg_state to
 * draw a stream of its own. */
extern uint64_t lcg_state;
uint32_t lcg32(void);
double lcg_unit(void); /* in (0, 1) */
/* A probability row: random weights, about one token in ten at 0. */
void random_row(float *row, int32_t V);
/* A token drawn from row (inverse CDF); from 0 .. V-1 uniformly if it sums to 0. */
int32_t draw(const float *row, int32_t V);

#endif
