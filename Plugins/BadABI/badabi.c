int badabi_placeholder(void) { return 0; }
