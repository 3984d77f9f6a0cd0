/*
 * CTally — a Suite plugin in plain C (no Swift), proving the plugin ABI is language neutral.
 *
 * Provides one observer engine, "ctally": it appends each event's name as a line to the file named by its
 * "path" option. Operations: "event" (one event object), "events" (an array of them), "flush" (fsync).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suite_plugin.h"
#include "ctally.h"

typedef struct ctally_engine {
    int fd;
    pthread_mutex_t lock;
} ctally_engine;

/* ---- A minimal JSON reader: enough to find string members of objects. ---- */

typedef struct reader {
    const uint8_t *p;
    const uint8_t *end;
} reader;

static void skip_ws(reader *r) {
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t')) r->p++;
}

/* Reads a JSON string at r->p into out (unescaping the common escapes). Returns 0 on success. */
static int read_string(reader *r, char *out, size_t capacity) {
    size_t n = 0;
    if (r->p >= r->end || *r->p != '"') return -1;
    r->p++;
    while (r->p < r->end && *r->p != '"') {
        uint8_t c = *r->p++;
        if (c == '\\') {
            if (r->p >= r->end) return -1;
            uint8_t e = *r->p++;
            switch (e) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u':
                /* Keep \uXXXX escapes as-is: names are ASCII in practice, and nothing is lost. */
                if (out && n + 2 < capacity) { out[n++] = '\\'; out[n++] = 'u'; }
                continue;
            default: c = e; break;
            }
        }
        if (out && n + 1 < capacity) out[n++] = (char)c;
    }
    if (r->p >= r->end) return -1;
    r->p++; /* closing quote */
    if (out && capacity > 0) out[n] = 0;
    return 0;
}

static int skip_value(reader *r, int depth) {
    if (depth > 256) return -1;
    skip_ws(r);
    if (r->p >= r->end) return -1;
    uint8_t c = *r->p;
    if (c == '"') return read_string(r, NULL, 0);
    if (c == '{' || c == '[') {
        uint8_t close = (c == '{') ? '}' : ']';
        r->p++;
        skip_ws(r);
        if (r->p < r->end && *r->p == close) { r->p++; return 0; }
        for (;;) {
            if (c == '{') {
                skip_ws(r);
                if (read_string(r, NULL, 0) != 0) return -1;
                skip_ws(r);
                if (r->p >= r->end || *r->p != ':') return -1;
                r->p++;
            }
            if (skip_value(r, depth + 1) != 0) return -1;
            skip_ws(r);
            if (r->p >= r->end) return -1;
            if (*r->p == ',') { r->p++; continue; }
            if (*r->p == close) { r->p++; return 0; }
            return -1;
        }
    }
    /* number, true, false, null */
    while (r->p < r->end && *r->p != ',' && *r->p != '}' && *r->p != ']' && *r->p != ' ' && *r->p != '\n') r->p++;
    return 0;
}

/* Finds string member `key` of the object at r->p; leaves r->p after the object. Returns 0 if found. */
static int object_string_member(reader *r, const char *key, char *out, size_t capacity) {
    int found = -1;
    char name[256];
    skip_ws(r);
    if (r->p >= r->end || *r->p != '{') return -1;
    r->p++;
    skip_ws(r);
    if (r->p < r->end && *r->p == '}') { r->p++; return -1; }
    for (;;) {
        skip_ws(r);
        if (read_string(r, name, sizeof name) != 0) return -1;
        skip_ws(r);
        if (r->p >= r->end || *r->p != ':') return -1;
        r->p++;
        skip_ws(r);
        if (found != 0 && strcmp(name, key) == 0 && r->p < r->end && *r->p == '"') {
            if (read_string(r, out, capacity) != 0) return -1;
            found = 0;
        } else if (skip_value(r, 1) != 0) {
            return -1;
        }
        skip_ws(r);
        if (r->p >= r->end) return -1;
        if (*r->p == ',') { r->p++; continue; }
        if (*r->p == '}') { r->p++; return found; }
        return -1;
    }
}

/* ---- The engine ---- */

static int append_line(ctally_engine *engine, const char *text, size_t length) {
    pthread_mutex_lock(&engine->lock);
    size_t done = 0;
    while (done < length) {
        ssize_t written = write(engine->fd, text + done, length - done);
        if (written < 0) {
            if (errno == EINTR) continue;
            pthread_mutex_unlock(&engine->lock);
            return -1;
        }
        done += (size_t)written;
    }
    pthread_mutex_unlock(&engine->lock);
    return 0;
}

static int record_event(ctally_engine *engine, reader *r) {
    char name[1024];
    if (object_string_member(r, "name", name, sizeof name - 1) != 0) return -1;
    size_t length = strlen(name);
    name[length] = '\n';
    return append_line(engine, name, length + 1);
}

static void fail(void *context, suite_completion completion, int32_t status, const char *message) {
    completion(context, status, (const uint8_t *)message, strlen(message));
}

static void ctally_call(void *handle, const char *operation, const uint8_t *request, size_t request_length,
                        void *context, suite_completion completion) {
    ctally_engine *engine = handle;
    reader r = {request, request + request_length};
    if (strcmp(operation, SUITE_OP_EVENT) == 0) {
        if (record_event(engine, &r) != 0) {
            fail(context, completion, SUITE_STATUS_INVALID, "ctally: malformed event (or write failed)");
            return;
        }
    } else if (strcmp(operation, SUITE_OP_EVENTS) == 0) {
        skip_ws(&r);
        if (r.p >= r.end || *r.p != '[') {
            fail(context, completion, SUITE_STATUS_INVALID, "ctally: 'events' expects a JSON array");
            return;
        }
        r.p++;
        skip_ws(&r);
        if (r.p < r.end && *r.p == ']') r.p++;
        else
            for (;;) {
                if (record_event(engine, &r) != 0) {
                    fail(context, completion, SUITE_STATUS_INVALID, "ctally: malformed event in the batch");
                    return;
                }
                skip_ws(&r);
                if (r.p < r.end && *r.p == ',') { r.p++; continue; }
                if (r.p < r.end && *r.p == ']') { r.p++; break; }
                fail(context, completion, SUITE_STATUS_INVALID, "ctally: malformed 'events' array");
                return;
            }
    } else if (strcmp(operation, SUITE_OP_FLUSH) == 0) {
        if (fsync(engine->fd) != 0) {
            fail(context, completion, SUITE_STATUS_ERROR, strerror(errno));
            return;
        }
    } else {
        fail(context, completion, SUITE_STATUS_UNSUPPORTED, "ctally: unsupported operation");
        return;
    }
    completion(context, SUITE_STATUS_OK, NULL, 0);
}

static int32_t ctally_create(void *context, const char *kind, const char *name, const uint8_t *options,
                             size_t options_length, void **out_engine, char *error, size_t error_capacity) {
    (void)context;
    if (strcmp(kind, SUITE_KIND_OBSERVER) != 0 || strcmp(name, "ctally") != 0) {
        snprintf(error, error_capacity, "CTally provides only observer/ctally, not %s/%s", kind, name);
        return SUITE_STATUS_UNSUPPORTED;
    }
    char path[4096];
    reader r = {options, options + options_length};
    if (options == NULL || object_string_member(&r, "path", path, sizeof path) != 0 || path[0] == 0) {
        snprintf(error, error_capacity, "ctally needs a 'path' option naming the file to append to");
        return SUITE_STATUS_INVALID;
    }
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(error, error_capacity, "ctally cannot open %s: %s", path, strerror(errno));
        return SUITE_STATUS_ERROR;
    }
    ctally_engine *engine = calloc(1, sizeof *engine);
    if (engine == NULL) {
        close(fd);
        snprintf(error, error_capacity, "ctally: out of memory");
        return SUITE_STATUS_ERROR;
    }
    engine->fd = fd;
    pthread_mutex_init(&engine->lock, NULL);
    *out_engine = engine;
    return SUITE_STATUS_OK;
}

static void ctally_destroy(void *handle) {
    ctally_engine *engine = handle;
    if (engine == NULL) return;
    close(engine->fd);
    pthread_mutex_destroy(&engine->lock);
    free(engine);
}

static const suite_engine_info ctally_engines[] = {{SUITE_KIND_OBSERVER, "ctally"}};

static const suite_plugin_descriptor ctally_descriptor = {
    .abi_version = SUITE_PLUGIN_ABI_VERSION,
    /* The size of an ABI 1.0 descriptor, as CTally was first built: keeps the host's compatibility path tested. */
    .struct_size = SUITE_PLUGIN_DESCRIPTOR_SIZE_V1_0,
    .name = "CTally",
    .version = "1.0.0",
    .engine_count = 1,
    .engines = ctally_engines,
    .context = NULL,
    .create_engine = ctally_create,
    .call = ctally_call,
    .destroy_engine = ctally_destroy,
};

__attribute__((visibility("default"))) const suite_plugin_descriptor *suite_plugin_v1(void) {
    return &ctally_descriptor;
}
