"""Subcommands of the ``rap`` command line (see rapsim.cli)."""
