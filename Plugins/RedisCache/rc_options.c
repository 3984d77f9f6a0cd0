/*
 * The redis engine's options: a JSON object {"url": string, "prefix": string, "pool": integer,
 * "timeout-ms": integer}, every member optional, any other member refused (strict input, naming the key).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rc_internal.h"

typedef struct json {
    const uint8_t *p;
    const uint8_t *end;
} json;

static void ws(json *j) {
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t')) j->p++;
}

static void put_utf8(char *out, size_t *n, size_t capacity, unsigned code) {
    char bytes[4];
    size_t count;
    if (code < 0x80) {
        bytes[0] = (char)code;
        count = 1;
    } else if (code < 0x800) {
        bytes[0] = (char)(0xC0 | code >> 6);
        bytes[1] = (char)(0x80 | (code & 0x3F));
        count = 2;
    } else {
        bytes[0] = (char)(0xE0 | code >> 12);
        bytes[1] = (char)(0x80 | ((code >> 6) & 0x3F));
        bytes[2] = (char)(0x80 | (code & 0x3F));
        count = 3;
    }
    for (size_t i = 0; i < count; i++)
        if (*n + 1 < capacity) out[(*n)++] = bytes[i];
}

/* A JSON string into out (NUL-terminated). Returns 0, -1 when malformed, 1 when too long for out. */
static int string(json *j, char *out, size_t capacity) {
    size_t n = 0;
    int truncated = 0;
    if (j->p >= j->end || *j->p != '"') return -1;
    j->p++;
    while (j->p < j->end && *j->p != '"') {
        unsigned c = *j->p++;
        if (c == '\\') {
            if (j->p >= j->end) return -1;
            unsigned e = *j->p++;
            switch (e) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u': {
                if (j->end - j->p < 4) return -1;
                char hex[5] = {(char)j->p[0], (char)j->p[1], (char)j->p[2], (char)j->p[3], 0};
                char *stop;
                c = (unsigned)strtoul(hex, &stop, 16);
                if (*stop != 0) return -1;
                j->p += 4;
                size_t before = n;
                put_utf8(out, &n, capacity, c);
                if (c >= 0x80 && n == before) truncated = 1;
                continue;
            }
            default: c = e; break;
            }
        }
        if (n + 1 < capacity) out[n++] = (char)c;
        else truncated = 1;
    }
    if (j->p >= j->end) return -1;
    j->p++;
    out[n] = 0;
    return truncated;
}

/* A JSON number that must be an integer (1, 4.0 and 1e1 are; 4.5 is not). Returns 0 on success. */
static int integer(json *j, long *out) {
    char text[64];
    size_t n = 0;
    while (j->p < j->end && n + 1 < sizeof text && strchr("+-0123456789.eE", *j->p) != NULL) text[n++] = (char)*j->p++;
    text[n] = 0;
    if (n == 0) return -1;
    char *stop;
    double value = strtod(text, &stop);
    if (*stop != 0 || value != (double)(long)value) return -1;
    *out = (long)value;
    return 0;
}

static int percent_decode(char *text) {
    char *in = text, *out = text;
    while (*in) {
        if (*in == '%') {
            char hex[3] = {in[1], in[1] ? in[2] : 0, 0};
            char *stop;
            long value = strtol(hex, &stop, 16);
            if (hex[0] == 0 || hex[1] == 0 || *stop != 0) return -1;
            *out++ = (char)value;
            in += 3;
        } else {
            *out++ = *in++;
        }
    }
    *out = 0;
    return 0;
}

/* redis://[[user]:password@]host[:port][/db] */
static int parse_url(rc_options *o, char *error, size_t capacity) {
    const char *scheme = "redis://";
    if (strncmp(o->url, scheme, strlen(scheme)) != 0) {
        snprintf(error, capacity, "option 'url' must start with redis://, not '%s' (e.g. redis://127.0.0.1:6379/0)",
                 o->url);
        return -1;
    }
    char rest[1024];
    snprintf(rest, sizeof rest, "%s", o->url + strlen(scheme));
    char *authority = rest;
    char *path = strchr(authority, '/');
    if (path != NULL) *path++ = 0;
    char *at = strrchr(authority, '@');
    if (at != NULL) {
        *at = 0;
        char *colon = strchr(authority, ':');
        if (colon != NULL) {
            *colon = 0;
            snprintf(o->password, sizeof o->password, "%s", colon + 1);
        }
        snprintf(o->username, sizeof o->username, "%s", authority);
        if (percent_decode(o->username) != 0 || percent_decode(o->password) != 0) {
            snprintf(error, capacity, "option 'url' has a malformed %%-escape in its user or password");
            return -1;
        }
        if (colon == NULL) { /* redis://password@host is the common shorthand */
            snprintf(o->password, sizeof o->password, "%s", o->username);
            o->username[0] = 0;
        }
        authority = at + 1;
    }
    char *port = NULL;
    if (authority[0] == '[') { /* [::1]:6379 */
        char *close = strchr(authority, ']');
        if (close == NULL) {
            snprintf(error, capacity, "option 'url' has an unclosed '[' in its host: '%s'", o->url);
            return -1;
        }
        *close = 0;
        snprintf(o->host, sizeof o->host, "%s", authority + 1);
        if (close[1] == ':') port = close + 2;
        else if (close[1] != 0) {
            snprintf(error, capacity, "option 'url' has text after its host: '%s'", o->url);
            return -1;
        }
    } else {
        port = strchr(authority, ':');
        if (port != NULL) *port++ = 0;
        snprintf(o->host, sizeof o->host, "%s", authority);
    }
    if (o->host[0] == 0) {
        snprintf(error, capacity, "option 'url' names no host: '%s' (e.g. redis://127.0.0.1:6379/0)", o->url);
        return -1;
    }
    o->port = 6379;
    if (port != NULL) {
        char *stop;
        long value = strtol(port, &stop, 10);
        if (*port == 0 || *stop != 0 || value < 1 || value > 65535) {
            snprintf(error, capacity, "option 'url' has port '%s'; a port is a number from 1 to 65535", port);
            return -1;
        }
        o->port = (int)value;
    }
    o->db = 0;
    if (path != NULL && *path != 0) {
        char *stop;
        long value = strtol(path, &stop, 10);
        if (*stop != 0 || value < 0 || value > 1000000) {
            snprintf(error, capacity, "option 'url' has database '%s'; a database is a number, e.g. /0", path);
            return -1;
        }
        o->db = (int)value;
    }
    return 0;
}

int rc_parse_options(const uint8_t *bytes, size_t length, rc_options *o, char *error, size_t capacity) {
    memset(o, 0, sizeof *o);
    snprintf(o->url, sizeof o->url, "redis://127.0.0.1:6379/0");
    snprintf(o->prefix, sizeof o->prefix, "suite:");
    o->pool = 4;
    o->timeout_ms = 2000;
    json j = {bytes, bytes + length};
    ws(&j);
    if (length == 0 || j.p >= j.end) return parse_url(o, error, capacity);
    if (*j.p != '{') {
        snprintf(error, capacity, "the redis engine's options must be a JSON object");
        return -1;
    }
    j.p++;
    ws(&j);
    if (j.p < j.end && *j.p == '}') {
        j.p++;
    } else {
        for (;;) {
            char key[64];
            ws(&j);
            if (string(&j, key, sizeof key) != 0) goto malformed;
            ws(&j);
            if (j.p >= j.end || *j.p != ':') goto malformed;
            j.p++;
            ws(&j);
            if (strcmp(key, "url") == 0 || strcmp(key, "prefix") == 0) {
                char *target = key[0] == 'u' ? o->url : o->prefix;
                size_t size = key[0] == 'u' ? sizeof o->url : sizeof o->prefix;
                int status = string(&j, target, size);
                if (status != 0) {
                    snprintf(error, capacity, "option '%s' must be a string%s", key,
                             status > 0 ? " (it is too long)" : "");
                    return -1;
                }
            } else if (strcmp(key, "pool") == 0 || strcmp(key, "timeout-ms") == 0) {
                long value;
                int is_pool = key[0] == 'p';
                long max = is_pool ? 64 : 600000;
                if (integer(&j, &value) != 0 || value < 1 || value > max) {
                    snprintf(error, capacity, "option '%s' must be an integer from 1 to %ld", key, max);
                    return -1;
                }
                if (is_pool) o->pool = (int)value;
                else o->timeout_ms = (int)value;
            } else {
                snprintf(error, capacity, "unknown option '%s' for the redis engine (known: url, prefix, pool, "
                         "timeout-ms)", key);
                return -1;
            }
            ws(&j);
            if (j.p < j.end && *j.p == ',') {
                j.p++;
                continue;
            }
            if (j.p < j.end && *j.p == '}') {
                j.p++;
                break;
            }
            goto malformed;
        }
    }
    ws(&j);
    if (j.p != j.end) goto malformed;
    return parse_url(o, error, capacity);
malformed:
    snprintf(error, capacity, "the redis engine's options are not a well-formed JSON object");
    return -1;
}
