"""One module per `nerts` subcommand; each exposes `register(subparsers)`.

A command's `register` adds its parser and sets `handler` to a function taking the parsed
namespace and returning the process exit status.
"""
