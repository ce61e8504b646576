"""Every dashboard form, one module per area: spaces, memories, providers, tokens; `fields` maps a provider's
declared config fields to form fields for both the space and the service forms."""
