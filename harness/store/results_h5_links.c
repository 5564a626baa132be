/* results_h5_links.c: a result file read back holds its own data. HDF5
 * follows an external link into another file, a soft link to wherever it
 * names, and a dataset may keep its numbers in other files (external
 * storage, a virtual dataset): a forged file could make a shard's counts
 * another file's. Every link is looked at (its type, before anything
 * follows it) when the file is opened, and any such one refused. */
#include <hdf5.h>
#include <stdio.h>
#include <string.h>
#include "sv_store.h"

typedef struct walk {
    const char *path;
    int rc;
} walk;

/* A dataset whose numbers live outside the file, in words into why. */
static int data_elsewhere(hid_t group, const char *name, char *why, size_t len)
{
    hid_t obj = H5Oopen(group, name, H5P_DEFAULT);
    if (obj < 0)
        return snprintf(why, len, "cannot be opened"), 1;
    int out = 0;
    if (H5Iget_type(obj) == H5I_DATASET) {
        hid_t plist = H5Dget_create_plist(obj);
        if (plist >= 0 && H5Pget_external_count(plist) > 0)
            out = 1, snprintf(why, len, "keeps its numbers in external files");
        else if (plist >= 0 && H5Pget_layout(plist) == H5D_VIRTUAL)
            out = 1, snprintf(why, len, "is a virtual dataset, made of other datasets");
        if (plist >= 0)
            H5Pclose(plist);
    }
    H5Oclose(obj);
    return out;
}

static herr_t look(hid_t group, const char *name, const H5L_info_t *info, void *data)
{
    walk *w = data;
    char target[1024] = "", why[1200];
    if (info->type == H5L_TYPE_HARD) {
        if (!data_elsewhere(group, name, why, sizeof why))
            return 0;
    } else if (info->type == H5L_TYPE_EXTERNAL) {
        const char *file = "?", *object = "?";
        unsigned flags = 0;
        if (info->u.val_size <= sizeof target &&
            H5Lget_val(group, name, target, sizeof target, H5P_DEFAULT) >= 0)
            H5Lunpack_elink_val(target, info->u.val_size, &flags, &file, &object);
        snprintf(why, sizeof why, "is an external link, to %.500s in %.500s", object, file);
    } else {
        if (info->type == H5L_TYPE_SOFT && info->u.val_size <= sizeof target)
            H5Lget_val(group, name, target, sizeof target, H5P_DEFAULT);
        snprintf(why, sizeof why, "is a %s link%s%.1000s",
                 info->type == H5L_TYPE_SOFT ? "soft" : "user-defined", target[0] ? ", to " : "",
                 target);
    }
    w->rc = sv_fail(SV_EBAD, "%s: '%s' %s: a result file holds its own data, and no link "
                    "or storage that leads out of it is followed", w->path, name, why);
    return 1; /* stop: the first is named */
}

int sv_h5_own_data(const sv_h5_reader *r)
{
    walk w = {r->path, SV_OK};
    if (H5Lvisit(r->file, H5_INDEX_NAME, H5_ITER_INC, look, &w) < 0 && w.rc == SV_OK)
        w.rc = sv_fail(SV_EBAD, "%s: cannot list its links (a damaged file?)", r->path);
    return w.rc;
}
