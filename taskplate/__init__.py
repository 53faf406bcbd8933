"""taskplate: browser task templates for AI agents, served over MCP.

The layers live in the checkout's top-level folders (`dsl/`, `interpreter/`, ...); the links in
this folder install them under one name, `taskplate.*`, so none collides with another module.
"""
