"""Webhooks: endpoints a tenant's admins register, and delivery of events to them."""
