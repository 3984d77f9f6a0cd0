/*
 * suite_plugin.h — Suite's plugin ABI, version 1 (grown compatibly to 1.1 through struct_size).
 *
 * A plugin is a shared object (.so) that Suite loads with dlopen(RTLD_NOW | RTLD_LOCAL) and never unloads.
 * It exports ONE symbol, SUITE_PLUGIN_ENTRY ("suite_plugin_v1"), a function returning a pointer to a
 * suite_plugin_descriptor that stays valid for the life of the process.
 *
 * Everything crossing this boundary is C: plain integers, NUL-terminated UTF-8 strings, and byte buffers
 * (JSON by default). No Swift type, class or protocol ever crosses it, so a plugin may be written in Swift
 * (see SuitePluginKit), C, or any language with a C ABI.
 *
 * Plugins run IN-PROCESS
 *   A plugin's code runs inside the `suite` process, on the host's threads and its own, with the host's memory. A
 *   plugin that crashes (segfault, abort, failed assertion, Swift trap) ends `suite`; one that corrupts memory
 *   corrupts the host. The host can protect itself only from a plugin that is slow: every call has a deadline (see
 *   Deadlines). A plugin author must NEVER:
 *     - never invoke the completion: the call times out, and the engine is abandoned;
 *     - block inside `call` (or create_engine, destroy_engine) for long: it runs on one of the host's few threads,
 *       which no deadline can take back; do slow work on a thread of your own and complete from there;
 *     - invoke a completion twice, or after returning an error for that call: the host ignores and logs it;
 *     - keep a pointer to a host buffer (options, request, host services strings) after the function that received
 *       it returns, or write to it;
 *     - call exit, _exit, abort, or let a signal kill the process on purpose; report errors through statuses;
 *     - dlclose itself or unload a library the host loaded; the host never unloads a plugin;
 *     - let a C++ exception, a longjmp or a Swift error unwind across any function of this ABI;
 *     - change process-global state: signal handlers or masks, the locale, the current directory, environment
 *       variables, stdio buffering, resource limits, the umask, or file descriptors it did not open;
 *     - call back into the host (host services excepted) from inside a completion, or call host services after
 *       destroy_engine returned;
 *     - rely on being the only plugin: symbols are loaded RTLD_LOCAL, and two plugins may embed the same library.
 *
 * Ownership
 *   - Strings and arrays in the descriptor are owned by the plugin and must stay valid for the life of the process.
 *   - Buffers passed by the host into a function (options, request) are owned by the host and valid only until that
 *     function returns. A plugin that needs them later copies them.
 *   - The response buffer passed to a completion is owned by the plugin and valid only until the completion returns;
 *     the host copies it.
 *   - The error buffer of create_engine is owned by the host; the plugin writes a NUL-terminated message into it,
 *     truncated to error_capacity bytes (including the NUL).
 *   - An engine handle returned by create_engine belongs to the host until it passes it to destroy_engine, exactly once.
 *   - The suite_host_services passed to create_engine_v1_1 and its context stay valid until destroy_engine of that
 *     engine returns (for an abandoned engine: for the life of the process). The plugin may keep the pointer; when
 *     create_engine_v1_1 fails, it must not.
 *
 * Threading
 *   - create_engine, call and destroy_engine may be called from any thread.
 *   - The host never calls `call` concurrently on the same engine for the observer kind; other kinds may document
 *     otherwise (the documents kind does: its calls may overlap), so an engine that is not safe for concurrent calls
 *     must serialise them itself.
 *   - The completion of `call` must be invoked exactly once, from any thread, either before `call` returns or later.
 *     The host never calls destroy_engine while a call on that engine is pending.
 *   - Host services may be called from any thread, at any time between create_engine_v1_1 and the return of
 *     destroy_engine, including from inside `call`. They never call back into the plugin and return quickly.
 *
 * Deadlines
 *   - Every call has a deadline set by the host (configuration key `plugin-timeout`, 30 s by default). When it
 *     passes, the host's caller gets a timeout error naming the plugin file, the engine, the operation and the
 *     timeout, and the engine is ABANDONED: the host never calls destroy_engine on it (the call may still be running
 *     inside the plugin and use it), and it leaks for the life of the process. A completion arriving later is
 *     ignored and logged.
 *   - The completion context is an opaque token (an integer id into the host's table of pending calls, never
 *     reused), not a pointer: the host recognises a duplicate or late completion safely.
 *
 * Versioning
 *   - The host refuses a descriptor whose abi_version differs from SUITE_PLUGIN_ABI_VERSION. A later, incompatible
 *     ABI gets a new entry symbol (suite_plugin_v2) so one plugin can export both.
 *   - struct_size lets version 1 grow at the end: the host reads only fields within struct_size, and treats a NULL
 *     optional field like a missing one. Version 1.0 ends after destroy_engine (SUITE_PLUGIN_DESCRIPTOR_SIZE_V1_0
 *     bytes); 1.1 appends create_engine_v1_1 (host services). A plugin built against 1.0 loads unchanged.
 *   - suite_host_services grows the same way: a plugin reads only fields within its struct_size.
 */
#ifndef SUITE_PLUGIN_H
#define SUITE_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The ABI version this header describes. */
#define SUITE_PLUGIN_ABI_VERSION 1u

/** The name of the symbol every version-1 plugin exports. */
#define SUITE_PLUGIN_ENTRY "suite_plugin_v1"

/** Status codes returned by create_engine and passed to completions. */
enum {
    /** Success. */
    SUITE_STATUS_OK = 0,
    /** The operation failed; the response (or error buffer) holds a UTF-8 message. */
    SUITE_STATUS_ERROR = 1,
    /** The engine does not know this operation (or this kind/name). */
    SUITE_STATUS_UNSUPPORTED = 2,
    /** The request or options were malformed; the response holds a UTF-8 message. */
    SUITE_STATUS_INVALID = 3
};

/** Log levels for suite_host_services.log (the levels of swift-log's Logger.Level, in order). */
enum {
    SUITE_LOG_TRACE = 0,
    SUITE_LOG_DEBUG = 1,
    SUITE_LOG_INFO = 2,
    SUITE_LOG_NOTICE = 3,
    SUITE_LOG_WARNING = 4,
    SUITE_LOG_ERROR = 5,
    SUITE_LOG_CRITICAL = 6
};

/**
 * Engine kinds defined so far. A kind fixes the operations and their payloads (JSON unless it says otherwise).
 * Kinds are open: a module of Suite declares a new one in Swift (SuitePluginKit's PluginEngineKind) and documents
 * its operations beside its engine protocol; the ABI itself does not change.
 *
 * Failures of JSON kinds: an engine that refuses or fails an operation completes with SUITE_STATUS_ERROR and a JSON
 * failure envelope {"code": string, "message": string, "hint": string (optional)}; the host rebuilds the kind's
 * error with that code. A plain UTF-8 message (not an envelope) is still accepted.
 */
#define SUITE_KIND_OBSERVER "observer"

/*
 * The observer kind: receives bus events.
 *   options: a JSON object, the engine's `options` from the configuration.
 *   "event":  request {"name": string, "payload": any JSON, "time": RFC 3339 string, "source": string,
 *             "sequence": integer} (the event's envelope: publishing module and that publisher's sequence; source and
 *             sequence are absent when unknown, and a plugin must ignore members it does not know); response empty.
 *   "events": request a JSON array of such objects, in publish order; response empty.
 *   "flush":  request empty; make everything received durable; response empty.
 */
#define SUITE_OP_EVENT "event"
#define SUITE_OP_EVENTS "events"
#define SUITE_OP_FLUSH "flush"

/** A Documents storage engine (the Swift DocumentEngine protocol); see DocumentsPluginSupport. */
#define SUITE_KIND_DOCUMENTS "documents"

/*
 * The documents kind: stores opaque document bodies, index entries, a change log and metadata.
 *   options: a JSON object, the engine's `options` from the configuration (e.g. {"path": "documents.sqlite"}).
 *   Payloads are BINARY, not JSON (every call is on the hot path of a database):
 *     u8/bool one byte (bool 0 or 1); u32, i64 little-endian; bytes/string = u32 length + raw bytes (UTF-8);
 *     X? = u8 0 (absent) | u8 1 + X; [X] = u32 count + each X; entry = string index + bytes key;
 *     document = string path + bytes body + i64 version + i64 createTime + i64 updateTime (µs since the epoch);
 *     bound = bytes key + bool inclusive.
 *   Requests:
 *     "commit":          i64 commitTime, [mutation]; mutation = string path, precondition, kind;
 *                        precondition = u8 0 none | 1 exists + bool | 2 version + i64;
 *                        kind = u8 0 delete | 1 put + bytes body + [entry] | 2 check (write nothing, only
 *                        verify the precondition atomically with the commit; a transaction's reads. Added after
 *                        1.1 without a version bump: a plugin that predates it refuses tag 2 as malformed)
 *     "get":             [string path]
 *     "scan":            string index, bound? lower, bound? upper, bool reverse, i64? limit
 *     "list":            string collectionPath, string? afterPath, i64? limit
 *     "listGroup":       string collectionID, string? afterPath, i64? limit
 *     "changes":         i64 afterSequence, i64 limit
 *     "lastSequence":    empty
 *     "addIndexEntries": [string path, [entry]]
 *     "removeIndex":     string index
 *     "metadata":        string key
 *     "setMetadata":     string key, bytes? value (absent removes)
 *   Added later, each optional (a plugin that predates one answers SUITE_STATUS_UNSUPPORTED and the host falls back or
 *   reports "unsupported"; payloads in DocumentsPluginSupport's DocumentEngineWire): "waitChanges",
 *   "compareAndSetMetadata", "shutdown", "scanDocuments", "collectionIDs", "changeLogStatus", "indexNames",
 *   "verifyIndexes", "rebuildIndexes", "prepareCommit" (a commit's mutations, answered with an i64 handle the plugin
 *   keeps; the bulk importer prepares its next chunk so while the previous one writes) and "commitPrepared" (i64
 *   handle, i64 commitTime; answered as "commit"; a handle no longer kept fails with "wrongEngine" and nothing
 *   written, and the host commits the mutations themselves).
 *   Responses (status OK): u8 tag, then
 *     0 failure:   string code name (e.g. "preconditionFailed"), string message, string? hint — the engine refused
 *                  or failed; the host rethrows the same DocumentsError code
 *     1 commit:    i64 sequence, [document?]        ("commit")
 *     2 documents: [document?]                      ("get", one per path, in order)
 *     3 hits:      [bytes key, string path]         ("scan")
 *     4 listed:    [document]                       ("list", "listGroup")
 *     5 changes:   [i64 sequence, string path, document?]  ("changes")
 *     6 sequence:  i64                              ("lastSequence")
 *     7 metadata:  bytes?                           ("metadata")
 *     8 done:      nothing                          ("addIndexEntries", "removeIndex", "setMetadata")
 *   A non-OK status is for the call itself: SUITE_STATUS_UNSUPPORTED for an unknown operation, SUITE_STATUS_INVALID
 *   for a malformed request, with a UTF-8 message as for every kind.
 *   Unlike the observer kind, the host MAY call a documents engine CONCURRENTLY (many readers, several writers); the
 *   engine must be safe for that and keep commits atomic and their sequences strictly increasing.
 */
#define SUITE_OP_COMMIT "commit"
#define SUITE_OP_GET "get"
#define SUITE_OP_SCAN "scan"
#define SUITE_OP_LIST "list"
#define SUITE_OP_LIST_GROUP "listGroup"
#define SUITE_OP_CHANGES "changes"
#define SUITE_OP_LAST_SEQUENCE "lastSequence"
#define SUITE_OP_ADD_INDEX_ENTRIES "addIndexEntries"
#define SUITE_OP_REMOVE_INDEX "removeIndex"
#define SUITE_OP_METADATA "metadata"
#define SUITE_OP_SET_METADATA "setMetadata"

/** One engine a plugin provides. */
typedef struct suite_engine_info {
    /** The engine kind, e.g. SUITE_KIND_OBSERVER. */
    const char *kind;
    /** The engine's name, unique within its kind, as configurations refer to it, e.g. "eventlog". */
    const char *name;
} suite_engine_info;

/**
 * Called exactly once when an operation finishes.
 * @param context   the host's context pointer passed to `call`, returned unchanged.
 * @param status    a SUITE_STATUS_* code.
 * @param response  response bytes (JSON, or a UTF-8 error message when status != OK); may be NULL when length is 0.
 */
typedef void (*suite_completion)(void *context, int32_t status, const uint8_t *response, size_t response_length);

/**
 * What the host offers an engine, from its creation until destroy_engine returns (see Ownership and Threading).
 * Check struct_size before reading a field: later versions append fields.
 */
typedef struct suite_host_services {
    /** sizeof(suite_host_services) as the host was compiled. */
    uint32_t struct_size;
    /** The host's context: pass it back unchanged to every function below. */
    void *context;
    /** Logs a NUL-terminated UTF-8 message at a SUITE_LOG_* level, attributed to the plugin and engine. */
    void (*log)(void *context, int32_t level, const char *message);
    /**
     * Publishes an event on the host's bus: a NUL-terminated name and a UTF-8 JSON payload of `length` bytes
     * (length 0 publishes an empty object). An invalid payload is dropped and logged by the host.
     */
    void (*publish)(void *context, const char *name, const uint8_t *payload_json, size_t length);
    /**
     * The lowest SUITE_LOG_* level the host records for this engine (its `--log-level`): a plugin may skip building
     * messages below it. Appended after `publish`; a plugin reads it only when struct_size covers it, and otherwise
     * logs at every level (the host filters).
     */
    int32_t log_level;
} suite_host_services;

/** What a plugin's entry symbol returns. */
typedef struct suite_plugin_descriptor {
    /** Must be SUITE_PLUGIN_ABI_VERSION. */
    uint32_t abi_version;
    /** sizeof(suite_plugin_descriptor) as the plugin was compiled. */
    uint32_t struct_size;
    /** The plugin's name, e.g. "EventLog". */
    const char *name;
    /** The plugin's version, e.g. "1.0.0". */
    const char *version;
    /** The number of entries in `engines`. */
    size_t engine_count;
    /** The engines this plugin provides. */
    const suite_engine_info *engines;
    /** Opaque plugin-wide context, passed back to create_engine. */
    void *context;

    /**
     * Creates an engine of `kind` named `name` from a JSON options object.
     * On success returns SUITE_STATUS_OK and stores a non-NULL handle in *out_engine.
     * On failure returns another status and writes a NUL-terminated UTF-8 message into error (if error_capacity > 0).
     */
    int32_t (*create_engine)(void *context, const char *kind, const char *name, const uint8_t *options,
                             size_t options_length, void **out_engine, char *error, size_t error_capacity);

    /**
     * Runs `operation` on `engine` with a request payload; completes through `completion(completion_context, …)`.
     */
    void (*call)(void *engine, const char *operation, const uint8_t *request, size_t request_length,
                 void *completion_context, suite_completion completion);

    /**
     * Releases an engine. Called once per engine, never while a call on it is pending, and never for an engine a
     * call of which timed out (see Deadlines).
     */
    void (*destroy_engine)(void *engine);

    /* ---- ABI 1.1: read by the host only when struct_size covers it. ---- */

    /**
     * Optional (may be NULL): create_engine, plus the host's services for this engine. When present, the host calls
     * it instead of create_engine. `host` is never NULL and stays valid until destroy_engine of the engine returns.
     */
    int32_t (*create_engine_v1_1)(void *context, const char *kind, const char *name, const uint8_t *options,
                                  size_t options_length, const suite_host_services *host, void **out_engine,
                                  char *error, size_t error_capacity);
} suite_plugin_descriptor;

/** The struct_size of a version 1.0 descriptor, which ends after destroy_engine. */
#define SUITE_PLUGIN_DESCRIPTOR_SIZE_V1_0 (offsetof(suite_plugin_descriptor, create_engine_v1_1))

/** The type of the entry symbol. */
typedef const suite_plugin_descriptor *(*suite_plugin_entry_fn)(void);

/** The ABI version this header describes, as a function (usable from languages that cannot read macros). */
uint32_t suite_plugin_abi_version(void);

/** SUITE_PLUGIN_DESCRIPTOR_SIZE_V1_0 as a function (usable from languages that cannot read macros). */
uint32_t suite_plugin_descriptor_size_v1_0(void);

#ifdef __cplusplus
}
#endif

#endif /* SUITE_PLUGIN_H */
