"""The `dsl` command: `main.py`'s click group and, in `commands/`, one module per subcommand; the
`_` modules here are what the subcommands share. Commands only: what a command does lives in the
layers below.
"""
