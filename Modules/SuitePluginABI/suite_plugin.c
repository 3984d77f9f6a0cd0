#include "suite_plugin.h"

uint32_t suite_plugin_abi_version(void) { return SUITE_PLUGIN_ABI_VERSION; }
