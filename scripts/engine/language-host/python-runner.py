"""Runs a Pulumi Python program for the project's own language host (see docs/engine.md#the-language-host).

The host starts it with the program's Python as
`python -u python-runner.py --monitor ADDR --engine ADDR [--organization O] --project P --stack S
[--root-directory D] --pwd DIR [--dry-run] [--parallel N] PROGRAM [ARGS...]`, the stack's config in
`PULUMI_CONFIG` and its secret keys in `PULUMI_CONFIG_SECRET_KEYS`. PROGRAM is a folder with a
`__main__.py` or a Python file. Exit code 32 says the program's error has already been shown.
"""

import argparse
import asyncio
import os
import runpy
import sys
import traceback

# The exit code that tells the host the user has already been shown the program's error.
BAIL_EXIT_CODE = 32


def parse_arguments(argv):
    parser = argparse.ArgumentParser(prog="python-runner.py")
    for name in ("monitor", "engine", "organization", "project", "stack", "root-directory", "pwd"):
        parser.add_argument(f"--{name}", default=None)
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--parallel", type=int, default=None)
    parser.add_argument("program")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    return parser.parse_args(argv)


def configure_runtime(options, pulumi_runtime):
    """Points the SDK at the engine and gives it the stack's config, as its own entry points expect."""
    pulumi_runtime.configure(
        pulumi_runtime.Settings(
            project=options.project,
            stack=options.stack,
            monitor=options.monitor,
            engine=options.engine,
            parallel=options.parallel,
            dry_run=options.dry_run,
            organization=options.organization,
            root_directory=options.root_directory,
        )
    )
    # Config values are read from the environment when asked for; the secret keys only from here.
    pulumi_runtime.set_all_config(
        pulumi_runtime.get_config_env(), pulumi_runtime.get_config_secret_keys_env()
    )


def program_runner(program):
    """A function that runs the program as `python PROGRAM` would: as `__main__`, its folder first on sys.path."""
    program = os.path.abspath(program)

    def run():
        if not os.path.isdir(program):
            sys.path.insert(0, os.path.dirname(program))
        # runpy puts a folder on sys.path itself before it runs the folder's __main__.py.
        runpy.run_path(program, run_name="__main__")

    return run


def program_traceback(error, program):
    """The error's traceback from the program's own first frame on: the runner's and runpy's say nothing."""
    folder = os.path.abspath(program if os.path.isdir(program) else os.path.dirname(program))
    frames = error.__traceback__
    while frames is not None and not frames.tb_frame.f_code.co_filename.startswith(folder + os.sep):
        frames = frames.tb_next
    return "".join(traceback.format_exception(type(error), error, frames or error.__traceback__))


def main():
    options = parse_arguments(sys.argv[1:])
    try:
        import pulumi
        import pulumi.runtime
    except ImportError as error:
        print(
            f"error: the Python SDK is not installed for {sys.executable} ({error}): "
            "run `pip install pulumi` in the program's virtual environment",
            file=sys.stderr,
        )
        return BAIL_EXIT_CODE

    if options.pwd:
        os.chdir(options.pwd)
    configure_runtime(options, pulumi.runtime)
    sys.argv = [options.program, *options.args]

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        loop.run_until_complete(pulumi.runtime.run_in_stack(program_runner(options.program)))
    except pulumi.RunError as error:
        # RunError ends a program with its message only, no traceback.
        pulumi.log.error(str(error))
        return BAIL_EXIT_CODE
    except Exception as error:  # noqa: BLE001 every failure of the program is shown to the user, once
        pulumi.log.error(
            "Program failed with an unhandled exception:\n" + program_traceback(error, options.program)
        )
        return BAIL_EXIT_CODE
    finally:
        loop.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
