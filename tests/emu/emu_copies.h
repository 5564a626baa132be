/* tests/emu/emu_copies.h: what the stand-in runtime has copied between the
 * host and the device (cudaMemcpy and cudaMemcpyAsync), by direction: the
 * bytes a stage moves per draw, measured rather than assumed. */
#ifndef SV_EMU_COPIES_H
#define SV_EMU_COPIES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { SV_EMU_TO_DEVICE = 0, SV_EMU_TO_HOST = 1, SV_EMU_ON_DEVICE = 2 };

typedef struct sv_emu_copies {
    unsigned long long calls[3]; /* [SV_EMU_TO_DEVICE, SV_EMU_TO_HOST, SV_EMU_ON_DEVICE] */
    unsigned long long bytes[3];
} sv_emu_copies;

/* The copies since the last reset (or the start). */
sv_emu_copies sv_emu_copies_read(void);
void sv_emu_copies_reset(void);

#ifdef __cplusplus
}
#endif

#endif
