/*
 * The cache operations on Redis. Data model (README.md): an entry is a hash at <prefix>e:<key> with field "r" (the
 * record: the entry's metadata then its value, exactly as the cache kind encodes them, so a hit is answered without
 * decoding) and field "g" (its tags joined by NUL bytes); a tag is a set at <prefix>t:<tag> of entry keys.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rc_internal.h"

/*
 * Store: KEYS[1] entry key; ARGV[1] record, ARGV[2] Redis's expire-at in ms ('' for none), ARGV[3] tags joined by
 * NUL, ARGV[4] the tag-set prefix, ARGV[5] the entry's own expiresAt ('' for none). Drops the key from the sets of its
 * old tags, writes the hash and its expiry, adds the key to its new tags' sets, and lets each tag set live as long as
 * its longest-lived entry.
 */
const char rc_store_script[] =
    "local key = KEYS[1]\n"
    "local old = redis.call('HGET', key, 'g')\n"
    "if old then for t in string.gmatch(old, '[^%z]+') do redis.call('SREM', ARGV[4] .. t, key) end end\n"
    "redis.call('HSET', key, 'r', ARGV[1], 'g', ARGV[3], 'x', ARGV[5])\n"
    "if ARGV[2] == '' then redis.call('PERSIST', key) else redis.call('PEXPIREAT', key, ARGV[2]) end\n"
    "for t in string.gmatch(ARGV[3], '[^%z]+') do\n"
    "  local tk = ARGV[4] .. t\n"
    "  local existed = redis.call('EXISTS', tk)\n"
    "  redis.call('SADD', tk, key)\n"
    "  if ARGV[2] == '' then redis.call('PERSIST', tk)\n"
    "  else\n"
    "    local at = redis.call('PEXPIRETIME', tk)\n"
    "    if existed == 0 or (at >= 0 and at < tonumber(ARGV[2])) then redis.call('PEXPIREAT', tk, ARGV[2]) end\n"
    "  end\n"
    "end\n"
    "return 1\n";

/*
 * Remove by tag: KEYS[1] the tag set; ARGV[1] the tag. Unlinks each member still tagged so (a member may have
 * expired, or been stored again without the tag after its old hash expired), then the set; returns how many went.
 */
const char rc_remove_tag_script[] =
    "local n = 0\n"
    "for _, k in ipairs(redis.call('SMEMBERS', KEYS[1])) do\n"
    "  local g = redis.call('HGET', k, 'g')\n"
    "  if g then\n"
    "    for t in string.gmatch(g, '[^%z]+') do\n"
    "      if t == ARGV[1] then n = n + redis.call('UNLINK', k) break end\n"
    "    end\n"
    "  end\n"
    "end\n"
    "redis.call('UNLINK', KEYS[1])\n"
    "return n\n";

/*
 * Sweep: KEYS the entry keys of one SCAN batch; ARGV[1] now (ms). Unlinks those whose own expiresAt (field 'x') is
 * at or before now; returns how many went.
 */
const char rc_sweep_script[] =
    "local n = 0\n"
    "local now = tonumber(ARGV[1])\n"
    "for _, k in ipairs(KEYS) do\n"
    "  local x = redis.call('HGET', k, 'x')\n"
    "  if x and x ~= '' and tonumber(x) <= now then n = n + redis.call('UNLINK', k) end\n"
    "end\n"
    "return n\n";

/* Keeps Redis keys short-lived but never gone before a caller's clock says so: see README.md, "Expiry". */
#define RC_EXPIRY_GRACE_MS 60000

/* ---- Helpers ---- */

/* prefix + key in `stack` when it fits, else malloc'ed (free with full_key_free). */
char *rc_full_key(const char *prefix, size_t prefix_length, const uint8_t *key, size_t key_length, char *stack,
                      size_t stack_size, size_t *length) {
    size_t n = prefix_length + key_length;
    char *out = n < stack_size ? stack : malloc(n + 1);
    if (out == NULL) return NULL;
    memcpy(out, prefix, prefix_length);
    if (key_length > 0) memcpy(out + prefix_length, key, key_length);
    out[n] = 0;
    *length = n;
    return out;
}

void rc_full_key_free(char *key, char *stack) {
    if (key != stack) free(key);
}

/* A Redis error reply as a failure response: OOM means the entry cannot fit in maxmemory. */
void rc_redis_failure(rc_engine *e, rc_buf *out, const char *what, const char *reply) {
    char message[1200];
    snprintf(message, sizeof message, "Redis at %s:%d refused %s: %s", e->options.host, e->options.port, what, reply);
    if (strncmp(reply, "OOM", 3) == 0)
        rc_put_failure(out, "tooLarge", message,
                       "the entry does not fit in Redis's maxmemory; raise maxmemory, and set maxmemory-policy "
                       "allkeys-lru so that Redis evicts older entries instead");
    else rc_put_failure(out, "storage", message, NULL);
}

int rc_broken(redisReply *reply) { return reply == NULL; }

/* ---- get ---- */

typedef struct get_state {
    const char *key;
    size_t key_length;
    int64_t now;
} get_state;

static int get_work(rc_engine *e, redisContext *c, void *s, rc_buf *out) {
    get_state *state = s;
    const char *argv[] = {"HGET", state->key, "r"};
    size_t lengths[] = {4, state->key_length, 1};
    redisReply *reply = redisCommandArgv(c, 3, argv, lengths);
    if (rc_broken(reply)) return RC_BROKEN;
    if (reply->type == REDIS_REPLY_STRING) {
        rc_reader r = {(const uint8_t *)reply->str, (const uint8_t *)reply->str + reply->len, 0};
        rc_metadata m;
        size_t value_length;
        int ok = rc_read_metadata(&r, &m) == 0;
        (void)rc_get_bytes(&r, &value_length);
        if (!ok || !rc_reader_done(&r)) {
            rc_put_failure(out, "storage", "the Redis hash under the entry's key does not hold a Suite cache record",
                           "another program writes under the engine's prefix; choose another 'prefix'");
        } else if (m.has_expiry && state->now >= m.expires_at) {
            rc_put_u8(out, RC_TAG_MISS);
        } else {
            rc_buf_reserve(out, 1 + reply->len);
            rc_put_u8(out, RC_TAG_HIT);
            rc_put_raw(out, reply->str, reply->len);
        }
    } else if (reply->type == REDIS_REPLY_NIL) {
        rc_put_u8(out, RC_TAG_MISS);
    } else if (reply->type == REDIS_REPLY_ERROR) {
        rc_redis_failure(e, out, "HGET", reply->str);
    } else {
        rc_put_failure(out, "storage", "Redis answered HGET with an unexpected reply", NULL);
    }
    freeReplyObject(reply);
    return RC_DONE;
}

/* ---- Scripts ---- */

/* EVALSHA, falling back to EVAL when the server lost its script cache (a restart, SCRIPT FLUSH). */
redisReply *rc_run_script(redisContext *c, const char *sha, const char *script, int argc, const char **argv,
                              size_t *lengths) {
    argv[0] = "EVALSHA";
    lengths[0] = 7;
    argv[1] = sha;
    lengths[1] = strlen(sha);
    redisReply *reply = redisCommandArgv(c, argc, argv, lengths);
    if (reply != NULL && reply->type == REDIS_REPLY_ERROR && strncmp(reply->str, "NOSCRIPT", 8) == 0) {
        freeReplyObject(reply);
        argv[0] = "EVAL";
        lengths[0] = 4;
        argv[1] = script;
        lengths[1] = strlen(script);
        reply = redisCommandArgv(c, argc, argv, lengths);
    }
    return reply;
}

/* ---- store ---- */

typedef struct store_state {
    const char *key;
    size_t key_length;
    const uint8_t *record;
    size_t record_length;
    char expire_at[24];
    char expires_at[24];
    rc_buf tags;
} store_state;

static int store_work(rc_engine *e, redisContext *c, void *s, rc_buf *out) {
    store_state *state = s;
    const char *argv[9] = {NULL, NULL, "1", state->key, (const char *)state->record, state->expire_at,
                           state->tags.length ? (const char *)state->tags.data : "", e->tag_prefix, state->expires_at};
    size_t lengths[9] = {0, 0, 1, state->key_length, state->record_length, strlen(state->expire_at),
                         state->tags.length, e->tag_prefix_length, strlen(state->expires_at)};
    redisReply *reply = rc_run_script(c, e->store_sha, rc_store_script, 9, argv, lengths);
    if (rc_broken(reply)) return RC_BROKEN;
    if (reply->type == REDIS_REPLY_ERROR) {
        rc_redis_failure(e, out, "to store the entry", reply->str);
    } else {
        rc_put_u8(out, RC_TAG_STORED);
        rc_put_u32(out, 0); /* Redis evicts by its own policy and does not say what */
    }
    freeReplyObject(reply);
    return RC_DONE;
}

/* ---- remove, removeTag ---- */

typedef struct key_state {
    const char *key;
    size_t key_length;
    const uint8_t *tag;
    size_t tag_length;
} key_state;

static int remove_work(rc_engine *e, redisContext *c, void *s, rc_buf *out) {
    key_state *state = s;
    const char *argv[] = {"UNLINK", state->key};
    size_t lengths[] = {6, state->key_length};
    redisReply *reply = redisCommandArgv(c, 2, argv, lengths);
    if (rc_broken(reply)) return RC_BROKEN;
    if (reply->type == REDIS_REPLY_INTEGER) {
        rc_put_u8(out, RC_TAG_REMOVED);
        rc_put_u8(out, reply->integer > 0);
    } else {
        rc_redis_failure(e, out, "UNLINK", reply->type == REDIS_REPLY_ERROR ? reply->str : "unexpected reply");
    }
    freeReplyObject(reply);
    return RC_DONE;
}

static int remove_tag_work(rc_engine *e, redisContext *c, void *s, rc_buf *out) {
    key_state *state = s;
    const char *argv[5] = {NULL, NULL, "1", state->key, (const char *)state->tag};
    size_t lengths[5] = {0, 0, 1, state->key_length, state->tag_length};
    redisReply *reply = rc_run_script(c, e->remove_tag_sha, rc_remove_tag_script, 5, argv, lengths);
    if (rc_broken(reply)) return RC_BROKEN;
    if (reply->type == REDIS_REPLY_INTEGER) {
        rc_put_u8(out, RC_TAG_COUNT);
        rc_put_i64(out, reply->integer);
    } else {
        rc_redis_failure(e, out, "to remove by tag",
                         reply->type == REDIS_REPLY_ERROR ? reply->str : "unexpected reply");
    }
    freeReplyObject(reply);
    return RC_DONE;
}

/* ---- Dispatch ---- */

static int32_t invalid(rc_buf *out, const char *operation) {
    char message[200];
    rc_buf_reset(out);
    snprintf(message, sizeof message, "malformed cache '%s' request", operation);
    rc_put_raw(out, message, strlen(message));
    return SUITE_STATUS_INVALID;
}

/* Runs work; when Redis cannot be reached, a get is a miss and anything else a storage failure naming host:port. */
static void run(rc_engine *e, rc_work work, void *state, rc_buf *out, int is_get) {
    char error[600];
    int unreachable;
    rc_run(e, work, state, out, &unreachable, error, sizeof error);
    if (!unreachable) return;
    if (is_get && !e->closed) {
        rc_put_u8(out, RC_TAG_MISS);
        return;
    }
    char hint[1200];
    snprintf(hint, sizeof hint, "check that Redis is running at %s:%d (the engine's option 'url')", e->options.host,
             e->options.port);
    rc_put_failure(out, "storage", error, e->closed ? "create a new engine" : hint);
}

int32_t rc_dispatch(rc_engine *e, const char *operation, const uint8_t *request, size_t length, rc_buf *out) {
    rc_reader r = {request, request + length, 0};
    char stack[512];
    size_t key_length;
    if (strcmp(operation, "get") == 0) {
        size_t n;
        const uint8_t *key = rc_get_bytes(&r, &n);
        get_state state = {NULL, 0, rc_get_i64(&r)};
        if (!rc_reader_done(&r)) return invalid(out, operation);
        char *full = rc_full_key(e->entry_prefix, e->entry_prefix_length, key, n, stack, sizeof stack, &key_length);
        if (full == NULL) {
            rc_put_failure(out, "storage", "redis cache: out of memory", NULL);
            return SUITE_STATUS_OK;
        }
        state.key = full;
        state.key_length = key_length;
        run(e, get_work, &state, out, 1);
        rc_full_key_free(full, stack);
    } else if (strcmp(operation, "store") == 0) {
        size_t n, value_length;
        rc_metadata m;
        const uint8_t *key = rc_get_bytes(&r, &n);
        const uint8_t *record = r.p;
        if (rc_read_metadata(&r, &m) != 0) return invalid(out, operation);
        (void)rc_get_bytes(&r, &value_length);
        if (!rc_reader_done(&r)) return invalid(out, operation);
        store_state state = {NULL, 0, record, (size_t)(r.end - record), "", "", {0}};
        if (m.has_expiry) {
            snprintf(state.expires_at, sizeof state.expires_at, "%lld", (long long)m.expires_at);
            int64_t floor = rc_now_ms() + RC_EXPIRY_GRACE_MS;
            snprintf(state.expire_at, sizeof state.expire_at, "%lld",
                     (long long)(m.expires_at > floor ? m.expires_at : floor));
        }
        rc_reader tags = {m.tags, m.end, 0};
        for (uint32_t i = 0; i < m.tag_count; i++) {
            size_t tag_length;
            const uint8_t *tag = rc_get_bytes(&tags, &tag_length);
            if (tag_length == 0 || memchr(tag, 0, tag_length) != NULL) continue; /* not representable; see README */
            if (state.tags.length > 0) rc_put_u8(&state.tags, 0);
            rc_put_raw(&state.tags, tag, tag_length);
        }
        char *full = rc_full_key(e->entry_prefix, e->entry_prefix_length, key, n, stack, sizeof stack, &key_length);
        if (full == NULL || state.tags.failed) {
            rc_buf_free(&state.tags);
            rc_full_key_free(full, stack);
            rc_put_failure(out, "storage", "redis cache: out of memory", NULL);
            return SUITE_STATUS_OK;
        }
        state.key = full;
        state.key_length = key_length;
        run(e, store_work, &state, out, 0);
        rc_buf_free(&state.tags);
        rc_full_key_free(full, stack);
    } else if (strcmp(operation, "remove") == 0 || strcmp(operation, "removeTag") == 0) {
        int by_tag = operation[6] == 'T';
        size_t n;
        const uint8_t *key = rc_get_bytes(&r, &n);
        if (!rc_reader_done(&r)) return invalid(out, operation);
        const char *prefix = by_tag ? e->tag_prefix : e->entry_prefix;
        size_t prefix_length = by_tag ? e->tag_prefix_length : e->entry_prefix_length;
        char *full = rc_full_key(prefix, prefix_length, key, n, stack, sizeof stack, &key_length);
        if (full == NULL) {
            rc_put_failure(out, "storage", "redis cache: out of memory", NULL);
            return SUITE_STATUS_OK;
        }
        key_state state = {full, key_length, key, n};
        run(e, by_tag ? remove_tag_work : remove_work, &state, out, 0);
        rc_full_key_free(full, stack);
    } else if (strcmp(operation, "removePrefix") == 0 || strcmp(operation, "removeAll") == 0) {
        unlink_state state = {NULL, 0, operation[6] == 'A', 0};
        if (!state.all) state.prefix = rc_get_bytes(&r, &state.prefix_length);
        if (!rc_reader_done(&r)) return invalid(out, operation);
        run(e, rc_unlink_work, &state, out, 0);
    } else if (strcmp(operation, "removeExpired") == 0) {
        sweep_state state;
        snprintf(state.now, sizeof state.now, "%lld", (long long)rc_get_i64(&r));
        state.removed = 0;
        if (!rc_reader_done(&r)) return invalid(out, operation);
        run(e, rc_sweep_work, &state, out, 0);
    } else if (strcmp(operation, "summaries") == 0) {
        summaries_state state;
        memset(&state, 0, sizeof state);
        state.has_after = rc_get_u8(&r);
        if (state.has_after > 1) return invalid(out, operation);
        if (state.has_after) state.after = rc_get_bytes(&r, &state.after_length);
        state.limit = rc_get_i64(&r);
        if (!rc_reader_done(&r)) return invalid(out, operation);
        run(e, rc_summaries_work, &state, out, 0);
        rc_free_keys(&state);
    } else if (strcmp(operation, "statistics") == 0) {
        statistics_state state = {0, 0};
        if (!rc_reader_done(&r)) return invalid(out, operation);
        run(e, rc_statistics_work, &state, out, 0);
    } else if (strcmp(operation, "close") == 0) {
        rc_close_pool(e);
        rc_put_u8(out, RC_TAG_DONE);
    } else {
        char message[200];
        snprintf(message, sizeof message, "the redis cache engine has no operation '%s'", operation);
        rc_put_raw(out, message, strlen(message));
        return SUITE_STATUS_UNSUPPORTED;
    }
    if (out->failed) {
        rc_buf_reset(out);
        rc_put_failure(out, "storage", "redis cache: out of memory", NULL);
    }
    return SUITE_STATUS_OK;
}
