int suite_plugin_abi_placeholder(void) { return 0; }
