/*
 * Misbehaving — a C test plugin that breaks the completion rules on purpose, and uses the host services of ABI 1.1,
 * so that the host's deadlines, its handling of stray completions and its services can be tested for real.
 *
 * One engine, kind "probe", name "misbehaving". Its options are kept verbatim as the engine's tag. Operations:
 *   "noop"      completes OK with nothing (the cheapest call, for benchmarks)
 *   "echo"      completes OK with the request
 *   "hang"      never completes (a plugin stuck forever)
 *   "park"      completes OK with "released" when "release" is called on the same engine (a plugin stuck until told)
 *   "parked"    completes OK with the number of calls parked on this engine, in decimal
 *   "release"   completes every call parked on this engine, then completes OK with nothing
 *   "twice"     completes OK with "first", then again with "second" (forbidden)
 *   "late"      request: a decimal number of milliseconds; completes OK with "late" after that long, from another thread
 *   "log"       logs the request as a message at SUITE_LOG_WARNING through the host, then completes OK
 *   "publish"   publishes the request as the JSON payload of event "misbehaving.published", then completes OK
 *   "destroyed" request: an engine's options; completes OK with "yes" if an engine with those options was destroyed
 * Without host services (created through create_engine), "log" and "publish" fail with SUITE_STATUS_ERROR.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "suite_plugin.h"
#include "misbehaving.h"

#define TAG_CAPACITY 256
#define DESTROYED_CAPACITY 64
#define PARKED_CAPACITY 256

typedef struct parked_call {
    void *context;
    suite_completion completion;
} parked_call;

typedef struct probe_engine {
    const suite_host_services *host;
    char tag[TAG_CAPACITY];
    pthread_mutex_t parked_lock;
    parked_call parked[PARKED_CAPACITY];
    size_t parked_count;
} probe_engine;

static pthread_mutex_t destroyed_lock = PTHREAD_MUTEX_INITIALIZER;
static char destroyed_tags[DESTROYED_CAPACITY][TAG_CAPACITY];
static size_t destroyed_count;

static void copy_text(char *out, size_t capacity, const uint8_t *bytes, size_t length) {
    size_t n = length < capacity - 1 ? length : capacity - 1;
    if (n > 0) memcpy(out, bytes, n);
    out[n] = 0;
}

static void complete_text(void *context, suite_completion completion, int32_t status, const char *text) {
    completion(context, status, (const uint8_t *)text, strlen(text));
}

typedef struct late_completion {
    void *context;
    suite_completion completion;
    long milliseconds;
} late_completion;

static void *complete_later(void *argument) {
    late_completion *late = argument;
    struct timespec delay = {late->milliseconds / 1000, (late->milliseconds % 1000) * 1000000L};
    while (nanosleep(&delay, &delay) != 0) {
    }
    complete_text(late->context, late->completion, SUITE_STATUS_OK, "late");
    free(late);
    return NULL;
}

static int host_has(const suite_host_services *host, size_t end_of_field) {
    return host != NULL && host->struct_size >= end_of_field;
}

static void probe_call(void *handle, const char *operation, const uint8_t *request, size_t request_length,
                       void *context, suite_completion completion) {
    probe_engine *engine = handle;
    char text[TAG_CAPACITY];
    if (strcmp(operation, "noop") == 0) {
        completion(context, SUITE_STATUS_OK, NULL, 0);
    } else if (strcmp(operation, "echo") == 0) {
        completion(context, SUITE_STATUS_OK, request, request_length);
    } else if (strcmp(operation, "hang") == 0) {
        /* Never completes: the host must time out. */
    } else if (strcmp(operation, "park") == 0) {
        int parked = 0;
        pthread_mutex_lock(&engine->parked_lock);
        if (engine->parked_count < PARKED_CAPACITY) {
            engine->parked[engine->parked_count++] = (parked_call){context, completion};
            parked = 1;
        }
        pthread_mutex_unlock(&engine->parked_lock);
        if (!parked) complete_text(context, completion, SUITE_STATUS_ERROR, "too many parked calls");
    } else if (strcmp(operation, "parked") == 0) {
        size_t count;
        pthread_mutex_lock(&engine->parked_lock);
        count = engine->parked_count;
        pthread_mutex_unlock(&engine->parked_lock);
        snprintf(text, sizeof text, "%zu", count);
        complete_text(context, completion, SUITE_STATUS_OK, text);
    } else if (strcmp(operation, "release") == 0) {
        parked_call released[PARKED_CAPACITY];
        size_t count;
        pthread_mutex_lock(&engine->parked_lock);
        count = engine->parked_count;
        memcpy(released, engine->parked, count * sizeof released[0]);
        engine->parked_count = 0;
        pthread_mutex_unlock(&engine->parked_lock);
        /* Outside the lock: a completion may run the host's code, which may call this engine again. */
        for (size_t i = 0; i < count; i++) {
            complete_text(released[i].context, released[i].completion, SUITE_STATUS_OK, "released");
        }
        completion(context, SUITE_STATUS_OK, NULL, 0);
    } else if (strcmp(operation, "twice") == 0) {
        complete_text(context, completion, SUITE_STATUS_OK, "first");
        complete_text(context, completion, SUITE_STATUS_OK, "second");
    } else if (strcmp(operation, "late") == 0) {
        copy_text(text, sizeof text, request, request_length);
        late_completion *late = malloc(sizeof *late);
        pthread_t thread;
        if (late == NULL) {
            complete_text(context, completion, SUITE_STATUS_ERROR, "out of memory");
            return;
        }
        late->context = context;
        late->completion = completion;
        late->milliseconds = strtol(text, NULL, 10);
        if (pthread_create(&thread, NULL, complete_later, late) != 0) {
            free(late);
            complete_text(context, completion, SUITE_STATUS_ERROR, "cannot start a thread");
            return;
        }
        pthread_detach(thread);
    } else if (strcmp(operation, "log") == 0) {
        if (!host_has(engine->host, offsetof(suite_host_services, publish)) || engine->host->log == NULL) {
            complete_text(context, completion, SUITE_STATUS_ERROR, "no host services");
            return;
        }
        copy_text(text, sizeof text, request, request_length);
        engine->host->log(engine->host->context, SUITE_LOG_WARNING, text);
        completion(context, SUITE_STATUS_OK, NULL, 0);
    } else if (strcmp(operation, "publish") == 0) {
        if (!host_has(engine->host, offsetof(suite_host_services, log_level)) || engine->host->publish == NULL) {
            complete_text(context, completion, SUITE_STATUS_ERROR, "no host services");
            return;
        }
        engine->host->publish(engine->host->context, "misbehaving.published", request, request_length);
        completion(context, SUITE_STATUS_OK, NULL, 0);
    } else if (strcmp(operation, "destroyed") == 0) {
        int found = 0;
        copy_text(text, sizeof text, request, request_length);
        pthread_mutex_lock(&destroyed_lock);
        for (size_t i = 0; i < destroyed_count && i < DESTROYED_CAPACITY; i++) {
            if (strcmp(destroyed_tags[i], text) == 0) found = 1;
        }
        pthread_mutex_unlock(&destroyed_lock);
        complete_text(context, completion, SUITE_STATUS_OK, found ? "yes" : "no");
    } else {
        complete_text(context, completion, SUITE_STATUS_UNSUPPORTED, "misbehaving: unsupported operation");
    }
}

static int32_t probe_create_with_host(void *context, const char *kind, const char *name, const uint8_t *options,
                                      size_t options_length, const suite_host_services *host, void **out_engine,
                                      char *error, size_t error_capacity) {
    (void)context;
    if (strcmp(kind, "probe") != 0 || strcmp(name, "misbehaving") != 0) {
        if (error_capacity > 0) {
            strncpy(error, "Misbehaving provides only probe/misbehaving", error_capacity - 1);
            error[error_capacity - 1] = 0;
        }
        return SUITE_STATUS_UNSUPPORTED;
    }
    probe_engine *engine = calloc(1, sizeof *engine);
    if (engine == NULL) return SUITE_STATUS_ERROR;
    engine->host = host;
    pthread_mutex_init(&engine->parked_lock, NULL);
    copy_text(engine->tag, sizeof engine->tag, options, options == NULL ? 0 : options_length);
    *out_engine = engine;
    return SUITE_STATUS_OK;
}

static int32_t probe_create(void *context, const char *kind, const char *name, const uint8_t *options,
                            size_t options_length, void **out_engine, char *error, size_t error_capacity) {
    return probe_create_with_host(context, kind, name, options, options_length, NULL, out_engine, error,
                                  error_capacity);
}

static void probe_destroy(void *handle) {
    probe_engine *engine = handle;
    if (engine == NULL) return;
    pthread_mutex_lock(&destroyed_lock);
    memcpy(destroyed_tags[destroyed_count % DESTROYED_CAPACITY], engine->tag, TAG_CAPACITY);
    destroyed_count++;
    pthread_mutex_unlock(&destroyed_lock);
    pthread_mutex_destroy(&engine->parked_lock);
    free(engine);
}

static const suite_engine_info probe_engines[] = {{"probe", "misbehaving"}};

static const suite_plugin_descriptor probe_descriptor = {
    .abi_version = SUITE_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(suite_plugin_descriptor),
    .name = "Misbehaving",
    .version = "1.1.0",
    .engine_count = 1,
    .engines = probe_engines,
    .context = NULL,
    .create_engine = probe_create,
    .call = probe_call,
    .destroy_engine = probe_destroy,
    .create_engine_v1_1 = probe_create_with_host,
};

__attribute__((visibility("default"))) const suite_plugin_descriptor *suite_plugin_v1(void) {
    return &probe_descriptor;
}
