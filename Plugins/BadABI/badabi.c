/*
 * BadABI — a test plugin that reports ABI version 999, so the host's refusal of a mismatched ABI can be tested.
 */
#include <stddef.h>

#include "suite_plugin.h"
#include "badabi.h"

static const suite_engine_info badabi_engines[] = {{SUITE_KIND_OBSERVER, "future"}};

static const suite_plugin_descriptor badabi_descriptor = {
    .abi_version = 999,
    .struct_size = sizeof(suite_plugin_descriptor),
    .name = "BadABI",
    .version = "999.0.0",
    .engine_count = 1,
    .engines = badabi_engines,
};

__attribute__((visibility("default"))) const suite_plugin_descriptor *suite_plugin_v1(void) {
    return &badabi_descriptor;
}
