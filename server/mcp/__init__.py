"""Agents over MCP: seed 003's tools on the same services, over streamable HTTP and stdio."""
