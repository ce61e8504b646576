"""The lowest layer, imported by all and importing none of memoryhub: the one error type, the HTTP client every
remote call uses, plain SQL, redaction, the LLM and embedding clients."""
