#include "suite_plugin.h"

uint32_t suite_plugin_abi_version(void) { return SUITE_PLUGIN_ABI_VERSION; }

uint32_t suite_plugin_descriptor_size_v1_0(void) { return (uint32_t)SUITE_PLUGIN_DESCRIPTOR_SIZE_V1_0; }
