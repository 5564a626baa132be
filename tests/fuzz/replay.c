/* replay.c: main() for a fuzz target outside libFuzzer: runs the target on
 * every file named, or in a folder named, once. The regression test: a
 * crash, a sanitizer report or a broken property aborts it.
 *   usage: fuzz_TARGET_replay FILE_OR_DIR...     (exit 0: every input ran) */
#include <dirent.h>
#include <errno.h>
#include "fuzz.h"

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    static uint8_t buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    int bad = ferror(f) || !feof(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "replay: %s: read error, or larger than %zu bytes\n", path, sizeof buf);
        return -1;
    }
    /* a copy of the exact size, so ASan sees a read past the input's end */
    uint8_t *data = malloc(n ? n : 1);
    if (!data)
        fuzz_die("replay: out of memory");
    memcpy(data, buf, n);
    fprintf(stderr, "replay: %s\n", path); /* names the input before a crash */
    LLVMFuzzerTestOneInput(data, n);
    free(data);
    return 1;
}

int main(int argc, char **argv)
{
    int ran = 0;
    for (int i = 1; i < argc; i++) {
        DIR *dir = opendir(argv[i]);
        if (!dir) {
            if (errno != ENOTDIR) {
                fprintf(stderr, "replay: cannot open %s: %s\n", argv[i], strerror(errno));
                return 2;
            }
            if (run_file(argv[i]) < 0)
                return 2;
            ran++;
            continue;
        }
        for (struct dirent *e; (e = readdir(dir));) {
            if (e->d_name[0] == '.')
                continue; /* ., .., and hidden files such as .gitkeep */
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            if (run_file(path) < 0) {
                closedir(dir);
                return 2;
            }
            ran++;
        }
        closedir(dir);
    }
    if (ran == 0) {
        fprintf(stderr, "replay: no inputs in %s\n", argc > 1 ? argv[1] : "(nothing named)");
        return 2;
    }
    printf("replay: %d inputs, no crash\n", ran);
    return 0;
}
