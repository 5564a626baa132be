/* recorded_private.h: what the recording reader's files share (not public:
 * sv_recorded.h is the interface). recorded_h5.c reads attributes and
 * dataset shapes with checks; recorded_open.c opens a recording and checks
 * its layout; recorded_read.c reads and checks steps, and reads a file whole
 * in a child process before the harness trusts it. */
#ifndef SV_RECORDED_PRIVATE_H
#define SV_RECORDED_PRIVATE_H

#include <hdf5.h>
#include "sv_recorded.h"

/* How a logits/probs dataset is stored. */
typedef enum { STORED_FLOAT, STORED_BF16 } stored_t;

typedef struct rows_set {
    hid_t set;
    stored_t stored;
    char name[32];
} rows_set;

struct sv_recorded {
    char path[1024], group_name[256];
    hid_t file, group;
    rows_set target, draft;
    hid_t drafts;     /* draft_tokens, or -1 */
    int probs;        /* the rows are probabilities */
    int64_t n;
    char dtype[16];
    sv_recorded_meta meta;
    uint16_t *bf16;   /* [K+1][V]: bfloat16 bits of one step */
};

/* ---- recorded_h5.c ---------------------------------------------------------- */
/* "FILE:/GROUP/NAME" or "FILE:/NAME", for messages. */
const char *sv_rec_where(const sv_recorded *r, const char *name, char *buf, size_t len);
int sv_rec_has_link(hid_t loc, const char *name);
/* "integers", "floats", "strings", ... for a message about values. */
const char *sv_rec_class_name(H5T_class_t cls);
/* One integer attribute: 1 read, 0 absent, -1 when it is not one integer
 * (why says what it is: "a string", "an array of 3 integers"). */
int sv_rec_int_attr(hid_t obj, const char *name, int64_t *value, char *why, size_t whylen);
/* One string attribute (fixed or variable length) into buf ("" unless 1):
 * 1 read, 0 absent, -1 when it is not one string (why as above). */
int sv_rec_string_attr(hid_t obj, const char *name, char *buf, size_t len, char *why,
                       size_t whylen);
/* The dims of a dataset; -1 with a message when its rank is not `rank`. */
int sv_rec_dims_of(const sv_recorded *r, hid_t set, const char *name, int rank, hsize_t *dims,
                   char *err, size_t errlen);

/* ---- recorded_open.c -------------------------------------------------------- */
/* "file.h5:group" -> file and group; a path that exists as given wins. */
void sv_rec_split_path(const char *path_group, char *path, size_t plen, char *group,
                       size_t glen);
/* Opens and checks the layout and attributes, in this process. */
int sv_rec_open_here(const char *path_group, sv_recorded **out, char *err, size_t errlen);

#endif
