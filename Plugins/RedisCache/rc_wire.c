/* The cache kind's binary payloads (little-endian, u32 lengths), read and written in C. */
#include <stdlib.h>
#include <string.h>

#include "rc_internal.h"

void rc_buf_reserve(rc_buf *b, size_t extra) {
    if (b->failed || b->length + extra <= b->capacity) return;
    size_t capacity = b->capacity ? b->capacity : 64;
    while (capacity < b->length + extra) capacity *= 2;
    uint8_t *data = b->borrowed ? malloc(capacity) : realloc(b->data, capacity);
    if (data == NULL) {
        b->failed = 1;
        return;
    }
    if (b->borrowed && b->length > 0) memcpy(data, b->data, b->length);
    b->borrowed = 0;
    b->data = data;
    b->capacity = capacity;
}

void rc_buf_free(rc_buf *b) {
    if (!b->borrowed) free(b->data);
    memset(b, 0, sizeof *b);
}

void rc_buf_reset(rc_buf *b) {
    b->length = 0;
    b->failed = 0;
}

void rc_put_raw(rc_buf *b, const void *bytes, size_t n) {
    rc_buf_reserve(b, n);
    if (b->failed) return;
    if (n > 0) memcpy(b->data + b->length, bytes, n);
    b->length += n;
}

void rc_put_u8(rc_buf *b, uint8_t v) { rc_put_raw(b, &v, 1); }

void rc_put_u32(rc_buf *b, uint32_t v) {
    uint8_t le[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    rc_put_raw(b, le, 4);
}

void rc_put_i64(rc_buf *b, int64_t value) {
    uint64_t v = (uint64_t)value;
    uint8_t le[8];
    for (int i = 0; i < 8; i++) le[i] = (uint8_t)(v >> (8 * i));
    rc_put_raw(b, le, 8);
}

void rc_put_bytes(rc_buf *b, const void *bytes, size_t n) {
    rc_put_u32(b, (uint32_t)n);
    rc_put_raw(b, bytes, n);
}

void rc_put_cstring(rc_buf *b, const char *text) { rc_put_bytes(b, text, strlen(text)); }

void rc_put_failure(rc_buf *b, const char *code, const char *message, const char *hint) {
    rc_buf_reset(b);
    rc_put_u8(b, RC_TAG_FAILURE);
    rc_put_cstring(b, code);
    rc_put_cstring(b, message);
    if (hint != NULL) {
        rc_put_u8(b, 1);
        rc_put_cstring(b, hint);
    } else {
        rc_put_u8(b, 0);
    }
}

static const uint8_t *take(rc_reader *r, size_t n) {
    if (r->failed || (size_t)(r->end - r->p) < n) {
        r->failed = 1;
        return NULL;
    }
    const uint8_t *at = r->p;
    r->p += n;
    return at;
}

uint8_t rc_get_u8(rc_reader *r) {
    const uint8_t *at = take(r, 1);
    return at ? at[0] : 0;
}

uint32_t rc_get_u32(rc_reader *r) {
    const uint8_t *at = take(r, 4);
    if (at == NULL) return 0;
    return (uint32_t)at[0] | (uint32_t)at[1] << 8 | (uint32_t)at[2] << 16 | (uint32_t)at[3] << 24;
}

int64_t rc_get_i64(rc_reader *r) {
    const uint8_t *at = take(r, 8);
    if (at == NULL) return 0;
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | at[i];
    return (int64_t)v;
}

const uint8_t *rc_get_bytes(rc_reader *r, size_t *length) {
    size_t n = rc_get_u32(r);
    const uint8_t *at = take(r, n);
    *length = at ? n : 0;
    return at;
}

int rc_get_optional_i64(rc_reader *r, int64_t *value) {
    uint8_t tag = rc_get_u8(r);
    if (tag == 0) return 0;
    if (tag != 1) {
        r->failed = 1;
        return 0;
    }
    *value = rc_get_i64(r);
    return !r->failed;
}

int rc_reader_done(const rc_reader *r) { return !r->failed && r->p == r->end; }

int rc_read_metadata(rc_reader *r, rc_metadata *m) {
    int64_t ignored;
    size_t n;
    memset(m, 0, sizeof *m);
    m->start = r->p;
    (void)rc_get_i64(r);                     /* storedAt */
    (void)rc_get_optional_i64(r, &ignored); /* freshUntil */
    m->has_expiry = rc_get_optional_i64(r, &m->expires_at);
    m->tag_count = rc_get_u32(r);
    m->tags = r->p;
    for (uint32_t i = 0; i < m->tag_count && !r->failed; i++) (void)rc_get_bytes(r, &n);
    (void)rc_get_optional_i64(r, &ignored); /* status */
    uint32_t headers = rc_get_u32(r);
    for (uint32_t i = 0; i < headers && !r->failed; i++) {
        (void)rc_get_bytes(r, &n);
        (void)rc_get_bytes(r, &n);
    }
    m->end = r->p;
    return r->failed ? -1 : 0;
}
