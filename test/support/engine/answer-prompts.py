"""Runs a command in a pseudo-terminal and answers its prompts, as a user at a terminal would.

Usage: answer-prompts.py ANSWERS COMMAND [ARG...]

ANSWERS is a JSON object: each key is text a prompt shows, its value what is typed there, then Enter.
A value `$NAME` is the variable NAME of the environment, so that a secret is never on a command line.
Each answer is given once, when its text first shows after the last answer. What the command draws
is passed on to standard output. Exits with the command's status, or 1 when an answer was never
asked for or the command ran longer than the time allowed.
"""

import json
import os
import pty
import re
import select
import sys
import time

# Longer than `pulumi new` takes to install a template's dependencies on a slow machine.
ALLOWED_SECONDS = 240
# Terminal control sequences, left out when looking for a prompt's text.
CONTROL = re.compile(r"\x1b(\[[0-9;?]*[A-Za-z]|\][^\x07\x1b]*(\x07|\x1b\\))")


def typed(value):
    return os.environ[value[1:]] if value.startswith("$") else value


def main():
    answers = {text: typed(value) for text, value in json.loads(sys.argv[1]).items()}
    pid, terminal = pty.fork()
    if pid == 0:
        # A user's terminal, which draws prompts: not a dumb one, nor a CI runner's (`CI`, which
        # .ci/run sets), where the Pulumi CLI would ask for --yes instead.
        os.environ["TERM"] = "xterm-256color"
        os.environ.pop("CI", None)
        os.execvp(sys.argv[2], sys.argv[2:])
    shown = ""
    deadline = time.monotonic() + ALLOWED_SECONDS
    while time.monotonic() < deadline:
        ready, _, _ = select.select([terminal], [], [], 0.5)
        if ready:
            try:
                data = os.read(terminal, 4096)
            except OSError:  # the command closed the terminal: it ended
                break
            if not data:
                break
            sys.stdout.write(data.decode(errors="replace"))
            sys.stdout.flush()
            shown += data.decode(errors="replace")
        visible = CONTROL.sub("", shown)
        asked = next((text for text in answers if text in visible), None)
        if asked is not None:
            os.write(terminal, answers.pop(asked).encode() + b"\r")
            shown = ""
    else:
        os.kill(pid, 9)
        print(f"\nanswer-prompts: the command ran longer than {ALLOWED_SECONDS} s", file=sys.stderr)
    _, status = os.waitpid(pid, 0)
    if answers:
        print(f"\nanswer-prompts: never asked for {', '.join(answers)}", file=sys.stderr)
        sys.exit(1)
    sys.exit(os.waitstatus_to_exitcode(status) if time.monotonic() < deadline else 1)


main()
