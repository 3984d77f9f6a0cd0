/*
 * The connection pool: at most `pool` connections, idle ones kept for the next call, guarded by one mutex. Calls may
 * come concurrently from any thread; a call takes a connection for the length of its work (one round trip, or one
 * pipeline), so a caller waits for a connection only when `pool` calls are already running.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "rc_internal.h"

int64_t rc_now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

void rc_log(rc_engine *e, int32_t level, const char *message) {
    const suite_host_services *host = e->host;
    if (host == NULL || host->struct_size < offsetof(suite_host_services, publish) || host->log == NULL) return;
    host->log(host->context, level, message);
}

/* Sends one command during the handshake; 0 when Redis answered without an error. */
static int handshake(redisContext *c, const char *what, int argc, const char **argv, char *error, size_t capacity,
                     const rc_options *o) {
    redisReply *reply = redisCommandArgv(c, argc, argv, NULL);
    if (reply == NULL) {
        snprintf(error, capacity, "Redis at %s:%d failed during %s: %s", o->host, o->port, what, c->errstr);
        return -1;
    }
    int failed = reply->type == REDIS_REPLY_ERROR;
    if (failed) snprintf(error, capacity, "Redis at %s:%d refused %s: %s", o->host, o->port, what, reply->str);
    freeReplyObject(reply);
    return failed ? -1 : 0;
}

redisContext *rc_connect(const rc_options *o, char *error, size_t capacity) {
    struct timeval timeout = {o->timeout_ms / 1000, (o->timeout_ms % 1000) * 1000};
    redisContext *c = redisConnectWithTimeout(o->host, o->port, timeout);
    if (c == NULL) {
        snprintf(error, capacity, "cannot connect to Redis at %s:%d: out of memory", o->host, o->port);
        return NULL;
    }
    if (c->err) {
        snprintf(error, capacity, "cannot connect to Redis at %s:%d: %s", o->host, o->port, c->errstr);
        redisFree(c);
        return NULL;
    }
    redisSetTimeout(c, timeout);
    if (o->password[0] != 0) {
        const char *with_user[] = {"AUTH", o->username, o->password};
        const char *without[] = {"AUTH", o->password};
        int ok = o->username[0] ? handshake(c, "AUTH", 3, with_user, error, capacity, o)
                                : handshake(c, "AUTH", 2, without, error, capacity, o);
        if (ok != 0) {
            redisFree(c);
            return NULL;
        }
    }
    if (o->db != 0) {
        char db[16];
        snprintf(db, sizeof db, "%d", o->db);
        const char *select[] = {"SELECT", db};
        if (handshake(c, "SELECT", 2, select, error, capacity, o) != 0) {
            redisFree(c);
            return NULL;
        }
    }
    return c;
}

/* A connection for one unit of work: an idle one (fresh = 0) or a new one (fresh = 1). NULL when closed or when
 * connecting failed (error says why). */
static redisContext *acquire(rc_engine *e, int *fresh, char *error, size_t capacity) {
    pthread_mutex_lock(&e->lock);
    while (!e->closed && e->idle_count == 0 && e->open_count >= e->options.pool)
        pthread_cond_wait(&e->available, &e->lock);
    if (e->closed) {
        pthread_mutex_unlock(&e->lock);
        snprintf(error, capacity, "the redis cache engine is closed");
        return NULL;
    }
    if (e->idle_count > 0) {
        redisContext *c = e->idle[--e->idle_count];
        pthread_mutex_unlock(&e->lock);
        *fresh = 0;
        return c;
    }
    e->open_count++;
    pthread_mutex_unlock(&e->lock);
    *fresh = 1;
    redisContext *c = rc_connect(&e->options, error, capacity);
    pthread_mutex_lock(&e->lock);
    if (c == NULL) {
        e->open_count--;
        pthread_cond_signal(&e->available);
    }
    int was_down = e->down;
    e->down = c == NULL;
    pthread_mutex_unlock(&e->lock);
    if (c == NULL && !was_down) {
        char message[800];
        snprintf(message, sizeof message, "redis cache: %s (gets are misses, writes fail until it is back)", error);
        rc_log(e, SUITE_LOG_WARNING, message);
    } else if (c != NULL && was_down) {
        char message[1200];
        snprintf(message, sizeof message, "redis cache: connected to Redis at %s:%d again", e->options.host,
                 e->options.port);
        rc_log(e, SUITE_LOG_NOTICE, message);
    }
    return c;
}

/* Returns a connection to the pool, or drops it when it is broken or the engine closed meanwhile. */
static void release(rc_engine *e, redisContext *c, int broken) {
    pthread_mutex_lock(&e->lock);
    if (broken || e->closed || c->err) {
        e->open_count--;
        pthread_cond_signal(&e->available);
        pthread_mutex_unlock(&e->lock);
        redisFree(c);
        return;
    }
    e->idle[e->idle_count++] = c;
    pthread_cond_signal(&e->available);
    pthread_mutex_unlock(&e->lock);
}

void rc_run(rc_engine *e, rc_work work, void *state, rc_buf *out, int *unreachable, char *error, size_t capacity) {
    *unreachable = 0;
    for (int attempt = 0; attempt < 2; attempt++) {
        int fresh = 0;
        redisContext *c = acquire(e, &fresh, error, capacity);
        if (c == NULL) break;
        rc_buf_reset(out);
        if (work(e, c, state, out) == RC_DONE) {
            release(e, c, 0);
            return;
        }
        snprintf(error, capacity, "lost the connection to Redis at %s:%d: %s", e->options.host, e->options.port,
                 c->errstr[0] ? c->errstr : "connection closed");
        release(e, c, 1);
        /* Retry only on a connection that was already open (a Redis restart cuts every idle one); a new connection
         * that fails means Redis is down or hung, and a retry would only double the wait. */
        if (fresh) break;
    }
    rc_buf_reset(out);
    *unreachable = 1;
}

void rc_close_pool(rc_engine *e) {
    pthread_mutex_lock(&e->lock);
    e->closed = 1;
    while (e->idle_count > 0) {
        redisFree(e->idle[--e->idle_count]);
        e->open_count--;
    }
    pthread_cond_broadcast(&e->available);
    pthread_mutex_unlock(&e->lock);
}

char *rc_glob_prefix(const char *a, size_t a_length, const uint8_t *b, size_t b_length, size_t *out_length) {
    char *pattern = malloc(2 * (a_length + b_length) + 2);
    if (pattern == NULL) return NULL;
    size_t n = 0;
    for (size_t i = 0; i < a_length + b_length; i++) {
        char c = i < a_length ? a[i] : (char)b[i - a_length];
        if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') pattern[n++] = '\\';
        pattern[n++] = c;
    }
    pattern[n++] = '*';
    pattern[n] = 0;
    *out_length = n;
    return pattern;
}
