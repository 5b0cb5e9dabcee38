#!/usr/bin/python3
"""Every node command of every golden `--dry-run` case, parsed by the real torch's own parser.

tests/golden/<case>.golden pins what `colossalai run --dry-run` prints (e2e_golden compares it
with the binary's output byte for byte); this reads each node's command from there and parses it
with torch.distributed.run.get_args_parser() (torch.distributed.launch's for that form) of the
torch installed here (Debian's python3-torch: PyTorch 1.13), then checks the values the case's
arguments asked for: nnodes, node_rank, nproc_per_node, the master address and port, the
rendezvous options and max_restarts, --extra_launch_args, the module flag, the script and its
arguments. Exit 0: all parsed with the values asked; 1: a difference (each printed); 77: no torch
here (the gtest that runs it skips).

Usage: parse_golden_commands.py GOLDEN_DIR
"""

import os
import re
import shlex
import sys

try:
    from torch.distributed import run as torch_run
except ImportError as error:  # the test group of .ci/install-deps installs python3-torch
    print(f"skipped: no torch ({error})")
    sys.exit(77)

# The `colossalai run` options that take no value; every other option takes the next word. Read
# from the program's own option table, as `colossalai --generate completion-table` prints it
# (pinned by GOLDEN_DIR/generate_completion_table.golden): one table, never a copy of it here.
FLAGS = set()


def read_flags(golden_dir):
    with open(os.path.join(golden_dir, "generate_completion_table.golden"), encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if fields[:2] == ["option", "run"] and len(fields) > 3 and fields[3] == "flag":
                FLAGS.update(fields[2].split(","))
    if "--dry-run" not in FLAGS:
        raise SystemExit("no `run` flags in generate_completion_table.golden")
PROGRAM_FORMS = {
    "torch.distributed.run": "run",
    "torch.distributed.launch": "launch",
}


def unescape_word(word):
    """One word of a cases.txt `args` line (tests/golden/cases.txt: \\s \\n \\r \\t \\\\ \\xNN)."""
    if word == '""':
        return ""
    out, i = [], 0
    simple = {"s": " ", "n": "\n", "r": "\r", "t": "\t", "\\": "\\"}
    while i < len(word):
        c = word[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        nxt = word[i + 1]
        if nxt == "x":
            out.append(chr(int(word[i + 2:i + 4], 16)))
            i += 4
        else:
            out.append(simple[nxt])
            i += 2
    return "".join(out)


def read_cases(path):
    """{name: [args words]} of cases.txt."""
    cases, name = {}, None
    in_file = False
    with open(path, encoding="utf-8") as f:
        for line in f.read().split("\n"):
            if in_file:
                in_file = line != "end"
                continue
            if line.startswith("case "):
                name = line[5:]
            elif line.startswith("file "):
                in_file = True
            elif line.startswith("args") and name:
                rest = line[5:]
                cases[name] = [unescape_word(w) for w in rest.split(" ")] if rest else []
    return cases


def colossalai_options(words):
    """The `run` options as given ({name: [values]}), the module, the script, its arguments."""
    options, module, script, script_args = {}, None, None, []
    i = 1  # words[0] is `run`
    while i < len(words):
        word = words[i]
        if word == "-m":
            module, script_args = words[i + 1], words[i + 2:]
            break
        if not word.startswith("-"):
            script, script_args = word, words[i + 1:]
            break
        if word in FLAGS:
            options.setdefault(word, []).append(None)
            i += 1
            continue
        name, has_value, value = word.partition("=")
        if not has_value:
            value, i = words[i + 1], i + 1
        options.setdefault(name, []).append(value)
        i += 1
    return options, module, script, script_args


def extra_items(text):
    """--extra_launch_args' items (run/extra_args.hpp: `\\,` is a comma inside a value)."""
    items, current, i = [], "", 0
    while i < len(text):
        if text.startswith("\\\\,", i):
            current += "\\"
            items.append(current)
            current, i = "", i + 3
        elif text.startswith("\\,", i):
            current, i = current + ",", i + 2
        elif text[i] == ",":
            items.append(current)
            current, i = "", i + 1
        else:
            current, i = current + text[i], i + 1
    items.append(current)
    return [(name.replace("-", "_"), value if sep else None)
            for name, sep, value in (item.partition("=") for item in items)]


def node_commands(golden):
    """[(rank, host, argv)] of a dry run's stdout, and the exit status."""
    status = re.search(r"^--- exit (\d+)$", golden, re.M)
    stdout = golden.split("--- stdout\n", 1)[1].split("--- stderr\n", 1)[0]
    nodes, current = [], None
    for line in stdout.split("\n"):
        match = re.match(r"^\[node (\d+)\] (\S+) ", line)
        if match:
            current = (int(match.group(1)), match.group(2))
            continue
        if current and line.startswith("    ") and not line.startswith("    env"):
            argv = shlex.split(line)
            if argv and (argv[0] == "torchrun" or argv[1:3] in (["-m", f] for f in PROGRAM_FORMS)):
                nodes.append((current[0], current[1], argv))
                current = None
    return (int(status.group(1)) if status else None), nodes


def parse(argv):
    """torch's own parse of one node's command: (form, namespace)."""
    if argv[0] == "torchrun":
        return "torchrun", torch_run.get_args_parser().parse_args(argv[1:])
    form = PROGRAM_FORMS[argv[2]]
    if form == "launch":
        from torch.distributed import launch as torch_launch
        return form, torch_launch.get_args_parser().parse_args(argv[3:])
    return form, torch_run.get_args_parser().parse_args(argv[3:])


def check_case(name, words, golden_text):
    """The differences between what the case asked and what torch read, one line each."""
    status, nodes = node_commands(golden_text)
    if status != 0 or not nodes:
        return [], 0
    options, module, script, script_args = colossalai_options(words)
    last = {key: values[-1] for key, values in options.items()}
    extra = extra_items(last["--extra_launch_args"]) if "--extra_launch_args" in last else []
    extra_map = dict(extra)
    problems = []

    def expect(rank, what, got, wanted):
        if got != wanted:
            problems.append(f"{name} node {rank}: {what} is {got!r}, asked {wanted!r}")

    parsed = []
    for rank, host, argv in nodes:
        try:
            parsed.append((rank, host) + parse(argv))
        except SystemExit:
            problems.append(f"{name} node {rank}: torch's parser refused {argv!r}")
    if problems:
        return problems, len(nodes)
    masters = {(args.master_addr, args.master_port) for _, _, _, args in parsed}
    if len(masters) != 1:
        problems.append(f"{name}: the nodes meet at different masters {sorted(masters)}")
    ids = {args.rdzv_id for _, _, _, args in parsed}
    if len(ids) != 1:
        problems.append(f"{name}: the nodes name different rendezvous ids {sorted(ids)}")
    for rank, host, form, args in parsed:
        expect(rank, "node_rank", args.node_rank, rank)
        expect(rank, "nnodes", args.nnodes, last.get("--nnodes", str(len(nodes))))
        if "--nproc_per_node" in last:
            expect(rank, "nproc_per_node", args.nproc_per_node, last["--nproc_per_node"])
        master_addr = extra_map.get("master_addr", last.get("--master_addr"))
        if master_addr is not None:
            expect(rank, "master_addr", args.master_addr, master_addr)
        elif len(nodes) == 1:
            expect(rank, "master_addr", args.master_addr, "127.0.0.1")
        master_port = extra_map.get("master_port", last.get("--master_port", "29500"))
        expect(rank, "master_port", args.master_port, int(master_port))
        elastic = ":" in last.get("--nnodes", "") or any(
            key in last for key in ("--rdzv_backend", "--rdzv_endpoint", "--rdzv_id"))
        if elastic:
            expect(rank, "rdzv_backend", args.rdzv_backend, last.get("--rdzv_backend", "c10d"))
            expect(rank, "rdzv_endpoint", args.rdzv_endpoint,
                   last.get("--rdzv_endpoint", f"{args.master_addr}:{args.master_port}"))
            if "--rdzv_id" in last:
                expect(rank, "rdzv_id", args.rdzv_id, last["--rdzv_id"])
            elif not re.fullmatch(r"colossalai-[0-9a-fA-F]{16}|colossalai-RDZVID", args.rdzv_id):
                problems.append(f"{name} node {rank}: rdzv_id {args.rdzv_id!r} is not a fresh id")
        else:
            expect(rank, "rdzv_backend", args.rdzv_backend, "static")
        if "--max_restarts" in last:
            expect(rank, "max_restarts", args.max_restarts, int(last["--max_restarts"]))
        for key, value in extra:
            if key in ("master_addr", "master_port"):
                continue
            got = getattr(args, key, "<unknown to torch>")
            if value is None:
                expect(rank, key, got, True)
            elif isinstance(got, int) and not isinstance(got, bool):
                expect(rank, key, got, int(value))
            else:
                expect(rank, key, got, value)
        expect(rank, "module", args.module, module is not None)
        expect(rank, "training_script", args.training_script, module or script)
        expect(rank, "training_script_args", args.training_script_args, script_args)
        expect(rank, "no_python", args.no_python, False)
    return problems, len(nodes)


def main():
    golden_dir = sys.argv[1]
    read_flags(golden_dir)
    cases = read_cases(os.path.join(golden_dir, "cases.txt"))
    problems, checked_cases, checked_nodes = [], 0, 0
    for name, words in cases.items():
        if not words or words[0] != "run" or "--dry-run" not in words:
            continue
        with open(os.path.join(golden_dir, name + ".golden"), encoding="utf-8") as f:
            found, count = check_case(name, words, f.read())
        problems += found
        if count:
            checked_cases, checked_nodes = checked_cases + 1, checked_nodes + count
    for problem in problems:
        print(problem)
    print(f"{checked_nodes} node commands of {checked_cases} dry-run cases parsed by torch "
          f"{torch_run.torch.__version__ if hasattr(torch_run, 'torch') else ''}".rstrip())
    # A table that lost its dry runs would check nothing.
    if checked_cases < 20:
        print(f"only {checked_cases} dry-run cases with node commands: expected at least 20")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
