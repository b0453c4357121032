"""Personal API tokens for the read-only research API (stored hashed)."""
