"""The `dsl` subcommands, one module each (`main.py`'s `COMMANDS` names them and imports one only
when it runs); the `_` modules here are a command's own parts, those of `cli/` shared by several.
"""
