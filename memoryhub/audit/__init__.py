"""Who did what, when, and what it was before and after: one row per change a person made, per vault request,
read and decision, per space the hub made itself (`record()`, with actions from `actions.Action`)."""
