"""Webhooks (issue 17): endpoints a tenant's admins register, and delivery of events to them."""
