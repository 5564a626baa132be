/* h5_whole.c: a result file read whole in a child process before the
 * harness reads it. libhdf5 trusts the sizes and offsets a file states: a
 * corrupt file can crash it (a segmentation fault in its heap reader, found
 * by changing three bytes of a failing batch's file) or make it loop, and a
 * file a user hands to merge, compare, plot, sweep --resume or replay must
 * be an error (exit 2), not the harness's crash. The child opens the file,
 * visits every hard link, and reads every attribute and dataset whole in its
 * native type, variable-length strings too; the parent reads only a file
 * the child read to its end. (Recordings have their own child:
 * distributions/recorded_read.c.) */
#include <errno.h>
#include <hdf5.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sv_store.h"

#define WHOLE_SECONDS 60                  /* a file that takes longer: libhdf5 loops */
#define WHOLE_MAX_BYTES ((size_t)1 << 32) /* a dataset past this is not read here */

/* An attribute's or a dataset's values read whole in their native type, then
 * what a variable-length type allocated given back. */
static void read_values(hid_t obj, hid_t file_type, hid_t space, int dataset)
{
    hid_t type = H5Tget_native_type(file_type, H5T_DIR_DEFAULT);
    const hssize_t n = H5Sget_simple_extent_npoints(space);
    const size_t size = type >= 0 ? H5Tget_size(type) : 0;
    if (type >= 0 && n >= 0 && size > 0 && (size_t)n <= WHOLE_MAX_BYTES / size) {
        void *buf = calloc(n ? (size_t)n : 1, size);
        const herr_t got = !buf       ? -1
                           : dataset ? H5Dread(obj, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf)
                                     : H5Aread(obj, type, buf);
        if (got >= 0 && (H5Tdetect_class(type, H5T_VLEN) > 0 || H5Tis_variable_str(type) > 0))
            H5Dvlen_reclaim(type, space, H5P_DEFAULT, buf);
        free(buf);
    }
    if (type >= 0)
        H5Tclose(type);
}

static herr_t read_attribute(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    (void)info, (void)data;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0)
        return 0;
    hid_t type = H5Aget_type(a), space = H5Aget_space(a);
    if (type >= 0 && space >= 0)
        read_values(a, type, space, 0);
    if (type >= 0)
        H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
    H5Aclose(a);
    return 0;
}

/* A dataset kept in the file itself (not in external files, not virtual:
 * sv_h5_own_data refuses those after this child). */
static void read_dataset(hid_t d)
{
    hid_t plist = H5Dget_create_plist(d);
    const int own = plist >= 0 && H5Pget_external_count(plist) == 0 &&
                    H5Pget_layout(plist) != H5D_VIRTUAL;
    if (plist >= 0)
        H5Pclose(plist);
    if (!own)
        return;
    hid_t type = H5Dget_type(d), space = H5Dget_space(d);
    if (type >= 0 && space >= 0)
        read_values(d, type, space, 1);
    if (type >= 0)
        H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
}

static herr_t read_object(hid_t group, const char *name, const H5L_info_t *info, void *data)
{
    (void)data;
    if (info->type != H5L_TYPE_HARD)
        return 0; /* never followed; sv_h5_own_data names it */
    hid_t obj = H5Oopen(group, name, H5P_DEFAULT);
    if (obj < 0)
        return 0;
    H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, NULL, read_attribute, NULL);
    if (H5Iget_type(obj) == H5I_DATASET)
        read_dataset(obj);
    H5Oclose(obj);
    return 0;
}

static void read_whole(const char *path)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (H5Fis_hdf5(path) <= 0)
        return; /* the parent says what it is not */
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0)
        return;
    H5Aiterate2(file, H5_INDEX_NAME, H5_ITER_INC, NULL, read_attribute, NULL);
    H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, read_object, NULL);
    H5Fclose(file);
}

int sv_h5_check_whole(const char *path)
{
    fflush(NULL); /* nothing buffered is written twice */
    const pid_t pid = fork();
    if (pid < 0)
        return sv_fail(SV_EENV, "%s: cannot check the file: fork: %s", path, strerror(errno));
    if (pid == 0) {
        signal(SIGALRM, SIG_DFL);
        alarm(WHOLE_SECONDS);
        read_whole(path);
        _exit(0);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return SV_OK;
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        return sv_fail(SV_EBAD, "%s: reading the file took more than %d s: libhdf5 loops on "
                       "it (it is corrupt)", path, WHOLE_SECONDS);
    if (WIFSIGNALED(status))
        return sv_fail(SV_EBAD, "%s: libhdf5 crashed (signal %d) reading the file: it is "
                       "corrupt (the library trusts the sizes and offsets a file states)",
                       path, WTERMSIG(status));
    return sv_fail(SV_EBAD, "%s: reading the file ended with status %d: it is corrupt", path,
                   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}
