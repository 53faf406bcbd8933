"""The `dsl` command: `main.py`'s click group and one module per subcommand; the `_` modules are
what the subcommands share. Commands only: what a command does lives in the layers below.
"""
