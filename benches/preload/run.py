#!/usr/bin/env python3
"""Whole-process CPU time of a few programs with and without memops preloaded.

Builds `libmemops_preload.so` (this directory's crate), makes the inputs under a temporary
directory, then runs each program ROUNDS times with and without `LD_PRELOAD`, alternated
(plain first in even rounds, preloaded first in odd ones), and prints per program the median
user+system CPU time of each (from `wait4`'s rusage of the child), their ratio, and whether
every output was identical. Usage: run.py [ROUNDS] (default 7).

What share of the mem* calls the preload sees was counted apart, with valgrind's callgrind
(calls to memops' symbols against calls to glibc's internal `__mem*_<variant>` functions,
which calls from inside glibc reach without the PLT).
"""
import hashlib, os, shutil, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TARGET = os.path.join(ROOT, "target", "preload")
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 7


def build():
    env = dict(os.environ, CARGO_TARGET_DIR=TARGET)
    for v in ("RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS"):
        env.pop(v, None)
    subprocess.run(["cargo", "build", "--quiet", "--release", "-j", "2"], cwd=HERE, env=env,
                   check=True)
    return os.path.join(TARGET, "release", "libmemops_preload.so")


def inputs(tmp):
    """A text of the workspace's sources repeated to 32 MiB, and its lines shuffled."""
    parts = []
    for d, _, files in os.walk(os.path.join(ROOT, "crates")):
        for f in sorted(files):
            if f.endswith((".rs", ".md", ".toml")):
                with open(os.path.join(d, f), "rb") as fh:
                    parts.append(fh.read())
    text = b"".join(parts)
    big = (text * (32 * 2**20 // len(text) + 1))[: 32 * 2**20]
    p = os.path.join(tmp, "text")
    with open(p, "wb") as fh:
        fh.write(big)
    lines = big.split(b"\n")[: 400000]
    # A fixed permutation (no random module state involved).
    lines = [lines[(i * 7919) % len(lines)] for i in range(len(lines))]
    q = os.path.join(tmp, "lines")
    with open(q, "wb") as fh:
        fh.write(b"\n".join(lines) + b"\n")
    return p, q


PY = ("import sys,hashlib\n"
      "d=open(sys.argv[1],'rb').read()\n"
      "o=[d[i:i+4096].upper().replace(b'fn ',b'FN ') for i in range(0,len(d),4096)]\n"
      "j=b''.join(o)\n"
      "s=sorted(set(j.split(b'\\n')))\n"
      "sys.stdout.buffer.write(hashlib.sha256(b'\\n'.join(s)).digest())\n")


def programs(text, lines):
    return [
        ("gzip -6", ["gzip", "-6", "-c", text]),
        ("sort", ["sort", lines], {"LC_ALL": "C"}),
        ("tar c", ["tar", "-cf", "-", "--sort=name", "--mtime=@0", "-C", ROOT, "crates"]),
        # The interpreter itself, not a version manager's shell shim in front of it.
        ("python3", [shutil.which("python3.11") or "python3", "-c", PY, text]),
        ("git log -p", ["git", "-C", ROOT, "log", "-p", "-n", "300", "--no-color", "main"]),
    ]


def run(cmd, extra, preload):
    env = dict(os.environ, **extra)
    env.pop("LD_PRELOAD", None)
    if preload:
        env["LD_PRELOAD"] = preload
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    h = hashlib.sha256()
    for chunk in iter(lambda: p.stdout.read(1 << 20), b""):
        h.update(chunk)
    _, status, ru = os.wait4(p.pid, 0)
    assert status == 0, (cmd, status)
    return ru.ru_utime + ru.ru_stime, h.hexdigest()


def main():
    so = build()
    tmp = tempfile.mkdtemp()
    try:
        text, lines = inputs(tmp)
        print(f"load: {os.getloadavg()}  rounds: {ROUNDS}  preload: {so}")
        print("| program | glibc CPU s (median) | memops preloaded | ratio | outputs identical |")
        print("|---|---|---|---|---|")
        for entry in programs(text, lines):
            name, cmd = entry[0], entry[1]
            extra = entry[2] if len(entry) > 2 else {}
            t = {None: [], so: []}
            outs = set()
            for r in range(ROUNDS):
                order = [None, so] if r % 2 == 0 else [so, None]
                for pre in order:
                    cpu, out = run(cmd, extra, pre)
                    t[pre].append(cpu)
                    outs.add(out)
            a, b = statistics.median(t[None]), statistics.median(t[so])
            print(f"| {name} | {a:.3f} | {b:.3f} | {b / a:.3f} | {'yes' if len(outs) == 1 else 'NO'} |",
                  flush=True)
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
