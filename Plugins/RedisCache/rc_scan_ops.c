/*
 * The cache operations that walk the keys under the prefix with SCAN: removePrefix, removeAll, removeExpired (the
 * sweep), summaries and statistics. The key-by-key operations and the dispatch are in rc_ops.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rc_internal.h"

/* Called with each SCAN batch; returns RC_DONE, or RC_BROKEN; sets *failed (with a response in out) to stop. */
typedef int (*batch_fn)(rc_engine *e, redisContext *c, redisReply **keys, size_t count, void *state, rc_buf *out,
                        int *failed);

static int scan(rc_engine *e, redisContext *c, const char *pattern, size_t pattern_length, batch_fn batch,
                void *state, rc_buf *out, int *failed) {
    char cursor[32] = "0";
    do {
        const char *argv[] = {"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"};
        size_t lengths[] = {4, strlen(cursor), 5, pattern_length, 5, 4};
        redisReply *reply = redisCommandArgv(c, 6, argv, lengths);
        if (rc_broken(reply)) return RC_BROKEN;
        if (reply->type != REDIS_REPLY_ARRAY || reply->elements != 2 || reply->element[0]->type != REDIS_REPLY_STRING ||
            reply->element[1]->type != REDIS_REPLY_ARRAY) {
            rc_redis_failure(e, out, "SCAN", reply->type == REDIS_REPLY_ERROR ? reply->str : "unexpected reply");
            freeReplyObject(reply);
            *failed = 1;
            return RC_DONE;
        }
        snprintf(cursor, sizeof cursor, "%s", reply->element[0]->str);
        redisReply *keys = reply->element[1];
        int status = keys->elements ? batch(e, c, keys->element, keys->elements, state, out, failed) : RC_DONE;
        freeReplyObject(reply);
        if (status != RC_DONE) return status;
        if (*failed) return RC_DONE;
    } while (strcmp(cursor, "0") != 0);
    return RC_DONE;
}

/* Arrays for a command of `count` keys plus `extra` other arguments; on failure an out-of-memory response, *failed. */
static int alloc_args(size_t n, const char ***argv, size_t **lengths, rc_buf *out, int *failed) {
    *argv = malloc(n * sizeof **argv);
    *lengths = malloc(n * sizeof **lengths);
    if (*argv != NULL && *lengths != NULL) return 1;
    free(*argv);
    free(*lengths);
    rc_put_failure(out, "storage", "redis cache: out of memory", NULL);
    *failed = 1;
    return 0;
}

/* Adds an integer reply to *removed, or makes any other reply the failure of `what`; frees the reply. */
static int add_count(rc_engine *e, redisReply *reply, const char *what, int64_t *removed, rc_buf *out, int *failed) {
    if (rc_broken(reply)) return RC_BROKEN;
    if (reply->type == REDIS_REPLY_INTEGER) {
        *removed += reply->integer;
    } else {
        rc_redis_failure(e, out, what, reply->type == REDIS_REPLY_ERROR ? reply->str : "unexpected reply");
        *failed = 1;
    }
    freeReplyObject(reply);
    return RC_DONE;
}

static int unlink_batch(rc_engine *e, redisContext *c, redisReply **keys, size_t count, void *s, rc_buf *out,
                        int *failed) {
    unlink_state *state = s;
    const char **argv;
    size_t *lengths;
    if (!alloc_args(count + 1, &argv, &lengths, out, failed)) return RC_DONE;
    argv[0] = "UNLINK";
    lengths[0] = 6;
    for (size_t i = 0; i < count; i++) {
        argv[i + 1] = keys[i]->str;
        lengths[i + 1] = keys[i]->len;
    }
    redisReply *reply = redisCommandArgv(c, (int)count + 1, argv, lengths);
    free(argv);
    free(lengths);
    return add_count(e, reply, "UNLINK", &state->removed, out, failed);
}

int rc_unlink_work(rc_engine *e, redisContext *c, void *s, rc_buf *out) {
    unlink_state *state = s;
    int failed = 0;
    size_t length;
    state->removed = 0;
    char *pattern = rc_glob_prefix(e->entry_prefix, e->entry_prefix_length, state->prefix, state->prefix_length,
                                   &length);
    if (pattern == NULL) {
        rc_put_failure(out, "storage", "redis cache: out of memory", NULL);
        return RC_DONE;
    }
    int status = scan(e, c, pattern, length, unlink_batch, state, out, &failed);
    free(pattern);
    if (status != RC_DONE || failed) return status;
    int64_t entries = state->removed;
    if (state->all) {
        pattern = rc_glob_prefix(e->tag_prefix, e->tag_prefix_length, NULL, 0, &length);
        if (pattern == NULL) {
            rc_put_failure(out, "storage", "redis cache: out of memory", NULL);
            return RC_DONE;
        }
        status = scan(e, c, pattern, length, unlink_batch, state, out, &failed);
        free(pattern);
        if (status != RC_DONE || failed) return status;
    }
    rc_put_u8(out, RC_TAG_COUNT);
    rc_put_i64(out, entries);
    return RC_DONE;
}

/* removeExpired: each SCAN batch through the sweep script (atomic per batch: a key stored again meanwhile is judged
 * by its new expiry). */

static int sweep_batch(rc_engine *e, redisContext *c, redisReply **keys, size_t count, void *s, rc_buf *out,
                       int *failed) {
    sweep_state *state = s;
    const char **argv;
    size_t *lengths;
    char key_count[24];
    if (!alloc_args(count + 4, &argv, &lengths, out, failed)) return RC_DONE;
    snprintf(key_count, sizeof key_count, "%zu", count);
    argv[2] = key_count;
    lengths[2] = strlen(key_count);
    for (size_t i = 0; i < count; i++) {
        argv[i + 3] = keys[i]->str;
        lengths[i + 3] = keys[i]->len;
    }
    argv[count + 3] = state->now;
    lengths[count + 3] = strlen(state->now);
    redisReply *reply = rc_run_script(c, e->sweep_sha, rc_sweep_script, (int)count + 4, argv, lengths);
    free(argv);
    free(lengths);
    return add_count(e, reply, "to remove expired entries", &state->removed, out, failed);
}

int rc_sweep_work(rc_engine *e, redisContext *c, void *s, rc_buf *out) {
    sweep_state *state = s;
    int failed = 0;
    size_t length;
    state->removed = 0;
    char *pattern = rc_glob_prefix(e->entry_prefix, e->entry_prefix_length, NULL, 0, &length);
    if (pattern == NULL) {
        rc_put_failure(out, "storage", "redis cache: out of memory", NULL);
        return RC_DONE;
    }
    int status = scan(e, c, pattern, length, sweep_batch, state, out, &failed);
    free(pattern);
    if (status != RC_DONE || failed) return status;
    rc_put_u8(out, RC_TAG_COUNT);
    rc_put_i64(out, state->removed);
    return RC_DONE;
}

/* summaries: every entry key (SCAN), sorted, then the page's records (one pipeline). */

static int compare_keys(const void *a, const void *b) {
    const key_copy *x = a, *y = b;
    size_t n = x->length < y->length ? x->length : y->length;
    int order = memcmp(x->bytes, y->bytes, n);
    if (order != 0) return order;
    return (x->length > y->length) - (x->length < y->length);
}

static int collect_batch(rc_engine *e, redisContext *c, redisReply **keys, size_t count, void *s, rc_buf *out,
                         int *failed) {
    (void)c;
    summaries_state *state = s;
    for (size_t i = 0; i < count; i++) {
        if (state->count == state->capacity) {
            size_t capacity = state->capacity ? state->capacity * 2 : 256;
            key_copy *grown = realloc(state->keys, capacity * sizeof *grown);
            if (grown == NULL) goto oom;
            state->keys = grown;
            state->capacity = capacity;
        }
        size_t length = keys[i]->len - e->entry_prefix_length;
        char *copy = malloc(length + 1);
        if (copy == NULL) goto oom;
        memcpy(copy, keys[i]->str + e->entry_prefix_length, length);
        state->keys[state->count++] = (key_copy){copy, length};
    }
    return RC_DONE;
oom:
    rc_put_failure(out, "storage", "redis cache: out of memory", NULL);
    *failed = 1;
    return RC_DONE;
}

void rc_free_keys(summaries_state *state) {
    for (size_t i = 0; i < state->count; i++) free(state->keys[i].bytes);
    free(state->keys);
    state->keys = NULL;
    state->count = state->capacity = 0;
}

int rc_summaries_work(rc_engine *e, redisContext *c, void *s, rc_buf *out) {
    summaries_state *state = s;
    int failed = 0;
    size_t length;
    rc_free_keys(state);
    char *pattern = rc_glob_prefix(e->entry_prefix, e->entry_prefix_length, NULL, 0, &length);
    if (pattern == NULL) {
        rc_put_failure(out, "storage", "redis cache: out of memory", NULL);
        return RC_DONE;
    }
    int status = scan(e, c, pattern, length, collect_batch, state, out, &failed);
    free(pattern);
    if (status != RC_DONE || failed) return status;
    if (state->count > 0) qsort(state->keys, state->count, sizeof *state->keys, compare_keys);
    /* The page: keys after `after` (SCAN may repeat a key: skip duplicates), at most `limit`. */
    size_t first = 0;
    if (state->has_after) {
        key_copy after = {(char *)state->after, state->after_length};
        while (first < state->count && compare_keys(&state->keys[first], &after) <= 0) first++;
    }
    size_t *page = malloc((state->count - first + 1) * sizeof *page);
    if (page == NULL) {
        rc_put_failure(out, "storage", "redis cache: out of memory", NULL);
        return RC_DONE;
    }
    size_t page_count = 0;
    for (size_t i = first; i < state->count && (int64_t)page_count < state->limit; i++) {
        if (page_count > 0 && compare_keys(&state->keys[page[page_count - 1]], &state->keys[i]) == 0) continue;
        page[page_count++] = i;
    }
    for (size_t i = 0; i < page_count; i++) {
        char stack[512];
        size_t key_length;
        key_copy *k = &state->keys[page[i]];
        char *key = rc_full_key(e->entry_prefix, e->entry_prefix_length, (const uint8_t *)k->bytes, k->length, stack,
                             sizeof stack, &key_length);
        const char *argv[] = {"HGET", key, "r"};
        size_t lengths[] = {4, key_length, 1};
        if (key == NULL || redisAppendCommandArgv(c, 3, argv, lengths) != REDIS_OK) {
            rc_full_key_free(key, stack);
            free(page);
            return RC_BROKEN;
        }
        rc_full_key_free(key, stack);
    }
    rc_put_u8(out, RC_TAG_SUMMARIES);
    size_t count_at = out->length;
    rc_put_u32(out, 0);
    uint32_t listed = 0;
    for (size_t i = 0; i < page_count; i++) {
        redisReply *reply = NULL;
        if (redisGetReply(c, (void **)&reply) != REDIS_OK || reply == NULL) {
            free(page);
            return RC_BROKEN;
        }
        if (reply->type == REDIS_REPLY_STRING) { /* nil: gone since the SCAN */
            rc_reader r = {(const uint8_t *)reply->str, (const uint8_t *)reply->str + reply->len, 0};
            rc_metadata m;
            size_t value_length;
            if (rc_read_metadata(&r, &m) == 0) {
                (void)rc_get_bytes(&r, &value_length);
                if (rc_reader_done(&r)) {
                    key_copy *k = &state->keys[page[i]];
                    rc_put_bytes(out, k->bytes, k->length);
                    rc_put_i64(out, (int64_t)value_length);
                    rc_put_raw(out, m.start, (size_t)(m.end - m.start));
                    listed++;
                }
            }
        }
        freeReplyObject(reply);
    }
    free(page);
    if (!out->failed) {
        for (int b = 0; b < 4; b++) out->data[count_at + (size_t)b] = (uint8_t)(listed >> (8 * b));
    }
    return RC_DONE;
}

/* statistics: every entry key (SCAN) with its record's length (HSTRLEN, one pipeline per batch), and maxmemory. */

static int measure_batch(rc_engine *e, redisContext *c, redisReply **keys, size_t count, void *s, rc_buf *out,
                         int *failed) {
    (void)out;
    (void)failed;
    statistics_state *state = s;
    for (size_t i = 0; i < count; i++) {
        const char *argv[] = {"HSTRLEN", keys[i]->str, "r"};
        size_t lengths[] = {7, keys[i]->len, 1};
        if (redisAppendCommandArgv(c, 3, argv, lengths) != REDIS_OK) return RC_BROKEN;
    }
    for (size_t i = 0; i < count; i++) {
        redisReply *reply = NULL;
        if (redisGetReply(c, (void **)&reply) != REDIS_OK || reply == NULL) return RC_BROKEN;
        if (reply->type == REDIS_REPLY_INTEGER && reply->integer > 0) {
            state->entries++;
            state->bytes += reply->integer + (int64_t)(keys[i]->len - e->entry_prefix_length);
        }
        freeReplyObject(reply);
    }
    return RC_DONE;
}

int rc_statistics_work(rc_engine *e, redisContext *c, void *s, rc_buf *out) {
    statistics_state *state = s;
    int failed = 0;
    size_t length;
    state->entries = state->bytes = 0;
    char *pattern = rc_glob_prefix(e->entry_prefix, e->entry_prefix_length, NULL, 0, &length);
    if (pattern == NULL) {
        rc_put_failure(out, "storage", "redis cache: out of memory", NULL);
        return RC_DONE;
    }
    int status = scan(e, c, pattern, length, measure_batch, state, out, &failed);
    free(pattern);
    if (status != RC_DONE || failed) return status;
    const char *argv[] = {"INFO", "memory"};
    redisReply *reply = redisCommandArgv(c, 2, argv, NULL);
    if (rc_broken(reply)) return RC_BROKEN;
    int64_t maxmemory = 0;
    if (reply->type == REDIS_REPLY_STRING || reply->type == REDIS_REPLY_STATUS) {
        const char *line = strstr(reply->str, "\nmaxmemory:");
        if (line != NULL) maxmemory = strtoll(line + strlen("\nmaxmemory:"), NULL, 10);
    }
    freeReplyObject(reply);
    rc_put_u8(out, RC_TAG_STATISTICS);
    rc_put_cstring(out, "redis");
    rc_put_i64(out, state->entries);
    rc_put_i64(out, state->bytes);
    if (maxmemory > 0) {
        rc_put_u8(out, 1);
        rc_put_i64(out, maxmemory);
    } else {
        rc_put_u8(out, 0);
    }
    rc_put_u8(out, 0); /* no count limit */
    return RC_DONE;
}

