int ctally_placeholder(void) { return 0; }
