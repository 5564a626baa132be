/* ngram.h: word n-gram language models from real text: the text and its
 * tokens (corpus.c), and interpolated modified Kneser-Ney models (ngram.c).
 *
 * Tokens (corpus.c): ASCII letters are lowercased; a word is a run of
 * letters, digits and bytes >= 0x80 (UTF-8 stays inside words), with
 * apostrophes kept between two such characters ("can't"); each run of one of
 * . , ! ? ; : is one token; everything else separates. A line holding only
 * "%" (the fortune files' separator) and the end of each file give the
 * boundary token "</s>" (never two in a row).
 *
 * Vocabulary: id 0 is "<unk>", id 1 is "</s>", ids 2 .. V-1 are the V-2
 * most frequent other words of the training text (more frequent first, byte
 * order on ties); every other word is <unk>. */
#ifndef SV_NGRAM_H
#define SV_NGRAM_H

#include <stddef.h>
#include <stdint.h>

#define SV_NGRAM_MAX_ORDER 6
#define SV_TOKEN_UNK 0
#define SV_TOKEN_EOS 1

/* Writes the message into err [errlen] and returns -1: the one error path of
 * corpus.c and ngram.c. */
int sv_ngram_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- corpus.c: text -> tokens -> vocabulary, training and held-out blocks ---- */

typedef struct sv_corpus {
    int32_t V;
    char **words;          /* [V]: the word of each id */
    int32_t *ids;          /* [n]: the whole text over the vocabulary */
    size_t n;
    size_t block;          /* tokens per block */
    size_t n_blocks;       /* ceil(n / block) */
    unsigned char *held;   /* [n_blocks]: 1 for a held-out block */
    size_t n_train, n_held;       /* tokens in training / held-out blocks */
    size_t unk_train, unk_held;   /* of which are <unk> */
    size_t types;          /* distinct words of the training text, </s> included */
    size_t files, bytes;   /* what was read */
    char first_file[4096]; /* the first file read (for a directory: in name order) */
} sv_corpus;

/* Reads PATH (a text file, or a directory: every regular file in it, in name
 * order, symbolic links and files holding a NUL byte skipped), tokenizes it,
 * cuts the token stream into blocks of `block` tokens and holds out block b
 * when floor((b + 1) h) > floor(b h), h = held_out (spread evenly: 0.1 holds
 * out blocks 9, 19, 29, ...), and builds the vocabulary of V ids from the
 * training blocks. Returns 0, or -1 with a message naming the path and what
 * is wrong (missing, unreadable, no text, fewer distinct words than V - 1,
 * no held-out block). */
int sv_corpus_load(const char *path, int32_t V, double held_out, size_t block,
                   sv_corpus **out, char *err, size_t errlen);
void sv_corpus_free(sv_corpus *c);

/* The training text as one stream: "</s>", then the training blocks in order,
 * with "</s>" where held-out blocks were cut out (no n-gram spans a cut).
 * fraction < 1 keeps an evenly spread share of the training blocks (training
 * block j kept when floor((j + 1) f) > floor(j f)): a smaller-data model.
 * *out is malloc'ed. Returns 0, or -1 on no memory. */
int sv_corpus_train_stream(const sv_corpus *c, double fraction, int32_t **out, size_t *n);

/* Writes the vocabulary, one word a line, line i (from 0) holding id i.
 * Returns 0, or -1 with a message. */
int sv_corpus_write_vocab(const sv_corpus *c, const char *path, char *err, size_t errlen);

/* ---- ngram.c: interpolated modified Kneser-Ney ---------------------------------
 *
 * For order n and history h (the last n-1 tokens):
 *   P_n(w | h) = (c(hw) - D(c(hw))) / c(h.) + gamma(h) P_{n-1}(w | h'),
 *   gamma(h)   = (D1 N1(h.) + D2 N2(h.) + D3 N3+(h.)) / c(h.),
 * h' being h without its first word; a history never seen gives
 * P_n(w | h) = P_{n-1}(w | h'). The highest order counts n-grams (c); the lower
 * orders count the distinct words before them (continuation counts,
 * N1+(.g)); the unigram level is interpolated with the uniform 1/V, so every
 * word has a positive probability. D1, D2, D3+ per order from that order's
 * counts of counts n1..n4 (Chen and Goodman 1999): Y = n1 / (n1 + 2 n2),
 * Dk = k - (k + 1) Y n(k+1) / nk; Y for all three when some nk is 0; each
 * clamped to [0.05, k]. */

typedef struct sv_ngram sv_ngram;

/* Trains a model of order 1 .. SV_NGRAM_MAX_ORDER on tokens [n] in [0, V).
 * fixed_discount 0: modified Kneser-Ney as above; in (0, 1): that one
 * discount for every count and order (plain interpolated Kneser-Ney).
 * Returns 0, or -1 with a message. */
int sv_ngram_train(const int32_t *tokens, size_t n, int32_t V, int order, double fixed_discount,
                   sv_ngram **out, char *err, size_t errlen);
void sv_ngram_free(sv_ngram *m);

int sv_ngram_order(const sv_ngram *m);
int32_t sv_ngram_vocab(const sv_ngram *m);
size_t sv_ngram_tokens(const sv_ngram *m); /* tokens trained on */

/* P(w | context) for every w in [0, V) into out [V]: context [len] is the
 * text before, its last order-1 tokens used (fewer when len is shorter).
 * The row sums to 1 up to rounding. */
void sv_ngram_probs(const sv_ngram *m, const int32_t *context, size_t len, double *out);
/* The same as natural logarithms (all finite). */
void sv_ngram_logprobs(const sv_ngram *m, const int32_t *context, size_t len, double *out);

/* The count the model keeps for the len-gram `gram` (len 1 .. order): the
 * n-gram count at the highest order, the continuation count N1+(.gram)
 * below it. 0 when unseen. */
double sv_ngram_count(const sv_ngram *m, const int32_t *gram, int len);
/* The discounts D1, D2, D3+ of order len (1 .. order). */
void sv_ngram_discounts(const sv_ngram *m, int len, double D[3]);

/* One line: "word 4-gram, interpolated modified Kneser-Ney, D1/D2/D3+ by order
 * 4: 0.71/1.12/1.38, ..., V=4096, trained on 412345 tokens". */
void sv_ngram_describe(const sv_ngram *m, char *out, size_t len);

#endif
