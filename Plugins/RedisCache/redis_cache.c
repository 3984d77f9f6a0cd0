/*
 * RedisCache — a Suite plugin in plain C on hiredis: one `cache` engine, "redis", storing the cache's entries in a
 * Redis server. Options {"url": "redis://host:port/db", "prefix": "suite:", "pool": 4, "timeout-ms": 2000}.
 * The operations and payloads are the cache kind's (Modules/CachePluginSupport/README.md); how they map onto Redis
 * is in this folder's README.md.
 *
 * Calls run on the caller's thread: each takes a pooled connection for one round trip (a pipeline for listings),
 * bounded by timeout-ms, so a host thread is held for a Redis round trip and never longer than the timeout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rc_internal.h"
#include "redis_cache.h"

static int load_script(redisContext *c, const char *script, char *sha, size_t sha_capacity, const rc_options *o,
                       char *error, size_t capacity) {
    const char *argv[] = {"SCRIPT", "LOAD", script};
    redisReply *reply = redisCommandArgv(c, 3, argv, NULL);
    if (reply == NULL) {
        snprintf(error, capacity, "lost the connection to Redis at %s:%d: %s", o->host, o->port, c->errstr);
        return -1;
    }
    int ok = reply->type == REDIS_REPLY_STRING && reply->len < sha_capacity;
    if (ok) snprintf(sha, sha_capacity, "%s", reply->str);
    else
        snprintf(error, capacity, "Redis at %s:%d refused to load the cache's Lua scripts: %s (Redis 7 or later is "
                 "needed)", o->host, o->port, reply->type == REDIS_REPLY_ERROR ? reply->str : "unexpected reply");
    freeReplyObject(reply);
    return ok ? 0 : -1;
}

static char *concat(const char *a, const char *b, size_t *length) {
    size_t n = strlen(a) + strlen(b);
    char *out = malloc(n + 1);
    if (out != NULL) snprintf(out, n + 1, "%s%s", a, b);
    *length = n;
    return out;
}

static void free_engine(rc_engine *e) {
    if (e == NULL) return;
    rc_close_pool(e);
    pthread_mutex_destroy(&e->lock);
    pthread_cond_destroy(&e->available);
    free(e->idle);
    free(e->entry_prefix);
    free(e->tag_prefix);
    free(e);
}

static int32_t redis_create(void *context, const char *kind, const char *name, const uint8_t *options,
                            size_t options_length, const suite_host_services *host, void **out_engine, char *error,
                            size_t error_capacity) {
    (void)context;
    if (strcmp(kind, "cache") != 0 || strcmp(name, "redis") != 0) {
        snprintf(error, error_capacity, "RedisCache provides only cache/redis, not %s/%s", kind, name);
        return SUITE_STATUS_UNSUPPORTED;
    }
    rc_engine *e = calloc(1, sizeof *e);
    if (e == NULL) {
        snprintf(error, error_capacity, "redis cache: out of memory");
        return SUITE_STATUS_ERROR;
    }
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_init(&e->available, NULL);
    if (rc_parse_options(options, options_length, &e->options, error, error_capacity) != 0) {
        free_engine(e);
        return SUITE_STATUS_INVALID;
    }
    e->host = host;
    e->idle = calloc((size_t)e->options.pool, sizeof *e->idle);
    e->entry_prefix = concat(e->options.prefix, "e:", &e->entry_prefix_length);
    e->tag_prefix = concat(e->options.prefix, "t:", &e->tag_prefix_length);
    if (e->idle == NULL || e->entry_prefix == NULL || e->tag_prefix == NULL) {
        snprintf(error, error_capacity, "redis cache: out of memory");
        free_engine(e);
        return SUITE_STATUS_ERROR;
    }
    /* Connect now: an unreachable server is an error at creation, naming host and port. */
    redisContext *c = rc_connect(&e->options, error, error_capacity);
    if (c == NULL) {
        size_t n = strlen(error);
        snprintf(error + n, error_capacity - n, " (url %s)", e->options.url);
        free_engine(e);
        return SUITE_STATUS_ERROR;
    }
    if (load_script(c, rc_store_script, e->store_sha, sizeof e->store_sha, &e->options, error, error_capacity) != 0 ||
        load_script(c, rc_remove_tag_script, e->remove_tag_sha, sizeof e->remove_tag_sha, &e->options, error,
                    error_capacity) != 0 ||
        load_script(c, rc_sweep_script, e->sweep_sha, sizeof e->sweep_sha, &e->options, error, error_capacity) != 0) {
        redisFree(c);
        free_engine(e);
        return SUITE_STATUS_ERROR;
    }
    e->idle[e->idle_count++] = c;
    e->open_count = 1;
    *out_engine = e;
    return SUITE_STATUS_OK;
}

static int32_t redis_create_v1_0(void *context, const char *kind, const char *name, const uint8_t *options,
                                 size_t options_length, void **out_engine, char *error, size_t error_capacity) {
    return redis_create(context, kind, name, options, options_length, NULL, out_engine, error, error_capacity);
}

static void redis_call(void *handle, const char *operation, const uint8_t *request, size_t request_length,
                       void *context, suite_completion completion) {
    rc_engine *e = handle;
    uint8_t small[512];
    rc_buf out = {small, 0, sizeof small, 0, 1};
    int32_t status = rc_dispatch(e, operation, request, request_length, &out);
    completion(context, status, out.data, out.length);
    rc_buf_free(&out);
}

static void redis_destroy(void *handle) { free_engine(handle); }

static const suite_engine_info redis_engines[] = {{"cache", "redis"}};

static const suite_plugin_descriptor redis_descriptor = {
    .abi_version = SUITE_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(suite_plugin_descriptor),
    .name = "RedisCache",
    .version = "1.0.0",
    .engine_count = 1,
    .engines = redis_engines,
    .context = NULL,
    .create_engine = redis_create_v1_0,
    .call = redis_call,
    .destroy_engine = redis_destroy,
    .create_engine_v1_1 = redis_create,
};

__attribute__((visibility("default"))) const suite_plugin_descriptor *suite_plugin_v1(void) {
    return &redis_descriptor;
}
