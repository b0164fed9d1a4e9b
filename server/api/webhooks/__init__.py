"""Webhook endpoints and their delivery log in GraphQL (admin keys only)."""
