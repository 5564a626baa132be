/* emu_rows.c: the kernel tests' pseudo-random rows (emu_rows.h). */
#include "emu_rows.h"

uint64_t lcg_state = 0x2545f4914f6cdd1du;

uint32_t lcg32(void)
{
    lcg_state = lcg_state * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(lcg_state >> 32);
}

double lcg_unit(void)
{
    return ((double)lcg32() + 0.5) / 4294967296.0;
}

void random_row(float *row, int32_t V)
{
    double sum = 0.0;
    for (int32_t i = 0; i < V; i++) {
        double w = lcg32() % 10u == 0 ? 0.0 : lcg_unit() * lcg_unit();
        row[i] = (float)w;
        sum += w;
    }
    for (int32_t i = 0; i < V; i++)
        row[i] = (float)(row[i] / sum);
}

int32_t draw(const float *row, int32_t V)
{
    double u = lcg_unit(), acc = 0.0;
    for (int32_t i = 0; i < V; i++) {
        acc += row[i];
        if (u < acc)
            return i;
    }
    return (int32_t)(lcg32() % (uint32_t)V);
}
