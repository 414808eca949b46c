/* Anchor for libMLIR-C.so, whose content comes from the C API archives. */
