/*
 * RedisCache — internal declarations shared by the plugin's C files (not a public header).
 *
 * Files: redis_cache.c (the ABI: descriptor, create/call/destroy, dispatch), rc_ops.c (the cache operations on
 * Redis), rc_pool.c (the connection pool and the retry rule), rc_options.c (JSON options and the redis:// URL),
 * rc_wire.c (the cache kind's binary payloads). The layout and the Redis data model are in README.md.
 */
#ifndef RC_INTERNAL_H
#define RC_INTERNAL_H

#define _GNU_SOURCE

#include <hiredis/hiredis.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "suite_plugin.h"

/* ---- Wire (rc_wire.c): the cache kind's payloads, see CachePluginSupport/README.md ---- */

/** Response tags. */
enum { RC_TAG_FAILURE = 0, RC_TAG_MISS, RC_TAG_HIT, RC_TAG_STORED, RC_TAG_REMOVED, RC_TAG_COUNT, RC_TAG_SUMMARIES,
       RC_TAG_STATISTICS, RC_TAG_DONE };

/** A growable byte buffer; `failed` is set (and further writes ignored) when memory runs out. */
typedef struct rc_buf {
    uint8_t *data;
    size_t length;
    size_t capacity;
    int failed;
    /* `data` is the caller's (stack) storage: never realloc'ed or freed; growing copies it to the heap. */
    int borrowed;
} rc_buf;

void rc_buf_reserve(rc_buf *b, size_t extra);
void rc_buf_free(rc_buf *b);
void rc_buf_reset(rc_buf *b);
void rc_put_u8(rc_buf *b, uint8_t v);
void rc_put_u32(rc_buf *b, uint32_t v);
void rc_put_i64(rc_buf *b, int64_t v);
void rc_put_raw(rc_buf *b, const void *bytes, size_t n);
/** `u32` length + bytes. */
void rc_put_bytes(rc_buf *b, const void *bytes, size_t n);
void rc_put_cstring(rc_buf *b, const char *text);
/** A failure response: tag 0, code, message, hint (NULL: absent). Replaces what `b` held. */
void rc_put_failure(rc_buf *b, const char *code, const char *message, const char *hint);

/** Reads untrusted bytes; any read past the end sets `failed` and returns zeroes. */
typedef struct rc_reader {
    const uint8_t *p;
    const uint8_t *end;
    int failed;
} rc_reader;

uint8_t rc_get_u8(rc_reader *r);
uint32_t rc_get_u32(rc_reader *r);
int64_t rc_get_i64(rc_reader *r);
/** A `u32`-length-prefixed byte string, returned as a pointer into the input. */
const uint8_t *rc_get_bytes(rc_reader *r, size_t *length);
/** An optional `i64`: returns 1 and sets *value when present. */
int rc_get_optional_i64(rc_reader *r, int64_t *value);
/** Whether every byte was read and nothing failed. */
int rc_reader_done(const rc_reader *r);

/** What the plugin needs of an entry's metadata: its span, its expiry and its tags. */
typedef struct rc_metadata {
    const uint8_t *start;
    const uint8_t *end;
    int has_expiry;
    int64_t expires_at;
    uint32_t tag_count;
    /** The first tag's length prefix (tags follow one another). */
    const uint8_t *tags;
} rc_metadata;

/** Reads the metadata at r's position; returns 0 on success. */
int rc_read_metadata(rc_reader *r, rc_metadata *m);

/* ---- Options (rc_options.c) ---- */

typedef struct rc_options {
    char url[1024];
    char host[1024];
    int port;
    int db;
    char username[1024];
    char password[1024];
    char prefix[512];
    int pool;
    int timeout_ms;
} rc_options;

/** Parses the engine's JSON options strictly; returns 0, or writes a message into error. */
int rc_parse_options(const uint8_t *json, size_t length, rc_options *out, char *error, size_t capacity);

/* ---- Engine and pool (rc_pool.c) ---- */

typedef struct rc_engine {
    rc_options options;
    /* prefix + "e:" (entries) and prefix + "t:" (tag sets). */
    char *entry_prefix;
    size_t entry_prefix_length;
    char *tag_prefix;
    size_t tag_prefix_length;
    /* The SHA1s of the Lua scripts (SCRIPT LOAD at creation; EVAL on NOSCRIPT). */
    char store_sha[48];
    char remove_tag_sha[48];
    char sweep_sha[48];
    const suite_host_services *host;

    pthread_mutex_t lock;
    pthread_cond_t available;
    redisContext **idle;
    int idle_count;
    int open_count;
    int closed;
    int down; /* the last connection attempt failed: logged once until one succeeds */
} rc_engine;

/** What a unit of work on one connection reports. */
enum { RC_DONE = 0, RC_BROKEN = 1 };

/** Work on one connection: writes the response into `out` and returns RC_DONE, or returns RC_BROKEN when the
 * connection failed (I/O error, EOF, timeout), leaving c->errstr to explain. */
typedef int (*rc_work)(rc_engine *e, redisContext *c, void *state, rc_buf *out);

/** Connects, authenticates and selects the database; NULL with a message naming host and port on failure. */
redisContext *rc_connect(const rc_options *o, char *error, size_t capacity);

/** Runs `work` on a pooled connection. A connection that breaks is dropped; when it was an old one (perhaps cut by
 * a Redis restart) the work is retried once on a new connection. When no connection works, `unreachable` is set and
 * `error` holds the reason; `out` is then empty. */
void rc_run(rc_engine *e, rc_work work, void *state, rc_buf *out, int *unreachable, char *error, size_t capacity);

/** Closes every idle connection and refuses new ones (calls then fail). */
void rc_close_pool(rc_engine *e);

void rc_log(rc_engine *e, int32_t level, const char *message);

/** Escapes glob characters for SCAN MATCH. The result is malloc'ed, followed by "*". */
char *rc_glob_prefix(const char *a, size_t a_length, const uint8_t *b, size_t b_length, size_t *out_length);

/** Milliseconds since 1970 by the wall clock. */
int64_t rc_now_ms(void);

/* ---- Operations (rc_ops.c) ---- */

extern const char rc_store_script[];
extern const char rc_remove_tag_script[];
extern const char rc_sweep_script[];

/** Runs `operation` with `request`; writes the response (or a failure) into `out` and returns a SUITE_STATUS_*
 * (SUITE_STATUS_INVALID with a text message for a malformed request). */
int32_t rc_dispatch(rc_engine *e, const char *operation, const uint8_t *request, size_t length, rc_buf *out);


/* ---- Shared by rc_ops.c and rc_scan_ops.c ---- */

/** prefix + key in `stack` when it fits, else malloc'ed (free with rc_full_key_free); NULL when out of memory. */
char *rc_full_key(const char *prefix, size_t prefix_length, const uint8_t *key, size_t key_length, char *stack,
                  size_t stack_size, size_t *length);
void rc_full_key_free(char *key, char *stack);
/** A Redis error reply as a failure response (OOM: the entry does not fit in maxmemory). */
void rc_redis_failure(rc_engine *e, rc_buf *out, const char *what, const char *reply);
/** Whether the connection broke (no reply). */
int rc_broken(redisReply *reply);
/** EVALSHA, falling back to EVAL when the server lost its script cache. */
redisReply *rc_run_script(redisContext *c, const char *sha, const char *script, int argc, const char **argv,
                          size_t *lengths);

typedef struct unlink_state {
    const uint8_t *prefix; /* the cache keys' prefix (removePrefix) */
    size_t prefix_length;
    int all; /* removeAll: also the tag sets */
    int64_t removed;
} unlink_state;

typedef struct sweep_state {
    char now[24];
    int64_t removed;
} sweep_state;

typedef struct key_copy {
    char *bytes;
    size_t length;
} key_copy;

typedef struct summaries_state {
    const uint8_t *after;
    size_t after_length;
    int has_after;
    int64_t limit;
    key_copy *keys;
    size_t count;
    size_t capacity;
} summaries_state;

typedef struct statistics_state {
    int64_t entries;
    int64_t bytes;
} statistics_state;

int rc_unlink_work(rc_engine *e, redisContext *c, void *s, rc_buf *out);
int rc_sweep_work(rc_engine *e, redisContext *c, void *s, rc_buf *out);
int rc_summaries_work(rc_engine *e, redisContext *c, void *s, rc_buf *out);
void rc_free_keys(summaries_state *state);
int rc_statistics_work(rc_engine *e, redisContext *c, void *s, rc_buf *out);

#endif /* RC_INTERNAL_H */
