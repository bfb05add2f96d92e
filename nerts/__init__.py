"""The application layer: owns the `nerts` command, its loops, the clock and all file I/O."""
