"""The lowest layer, imported by all and importing none of memoryhub: the one error type, plain SQL, redaction,
the LLM and embedding clients."""
