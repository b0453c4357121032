"""The read-only research API (bearer tokens) and its OpenAPI document."""
