"""Sub-commands of `table-runtime`: each module has `register(subparsers)`.

A module's `register` adds its parser and sets `handler` (a function taking the
parsed namespace and returning the exit status) with `set_defaults`.
"""
