#!/usr/bin/env python3
"""End-to-end tests of `wagener hull --memory-limit`: files larger than the limit give the hull of
the unlimited run byte for byte, errors in late chunks name the same line (or byte) as the whole-file
read, hull-like input fails naming the limit, and the peak memory (the child's maximum resident set,
from wait4) stays within the limit plus the program's own, with a generous margin.

Usage: test_memory_limit.py PATH/TO/wagener [--no-rss]
(--no-rss: a sanitizer build, whose shadow memory and quarantine of freed blocks make the resident
set say nothing about the program's buffers; the memory checks are then left out, and say so.)
"""
import os
import random
import subprocess
import sys
import tempfile

MIB = 1 << 20
failures = []
passes = 0


def check(ok, what):
    global passes
    if ok:
        passes += 1
    else:
        failures.append(what)
        print("FAIL:", what, flush=True)


def run(args):
    """Runs the command; returns (exit code, stdout, stderr, peak resident set in bytes)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(args, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return proc.returncode, out.read(), err.read().decode(), usage.ru_maxrss * 1024


def main():
    wagener = sys.argv[1]
    seed = random.randrange(1 << 32)
    print("seed", seed, flush=True)
    with tempfile.TemporaryDirectory() as d:
        def path(name):
            return os.path.join(d, name)

        def generate(name, distribution, n, fmt):
            subprocess.run([wagener, "generate", "--distribution", distribution, "-n", str(n), "--seed",
                            str(seed), "--format", fmt, "-o", path(name)], check=True)
            return path(name)

        def same_as_unlimited(file, limit, *extra):
            whole = run([wagener, "hull", file, *extra])
            streamed = run([wagener, "hull", file, "--memory-limit", limit, *extra])
            what = f"{os.path.basename(file)} {' '.join(extra)} --memory-limit {limit} (seed {seed})"
            check(whole[0] == 0 and whole[1], f"{what}: unlimited run failed: {whole[2]}")
            check(streamed[0] == 0, f"{what}: exit {streamed[0]}: {streamed[2]}")
            check(streamed[1] == whole[1], f"{what}: hull differs from the unlimited run")
            return whole, streamed

        # --- a 64 MB file under an 8 MiB limit: the same hull, in bounded memory -------------------
        tiny = path("tiny.txt")
        with open(tiny, "w") as f:
            f.write("0 0\n1 0\n0 1\n")
        baseline = run([wagener, "hull", tiny, "--memory-limit", "8M"])[3]
        big = generate("disk.f64", "disk", 4_000_000, "f64")
        check(os.path.getsize(big) == 64_000_000, "the big file is 64 MB")
        whole, streamed = same_as_unlimited(big, "8M")
        limit = 8 * MIB
        print(f"peak RSS: program alone {baseline / MIB:.1f} MiB, unlimited {whole[3] / MIB:.1f} MiB, "
              f"--memory-limit 8M {streamed[3] / MIB:.1f} MiB", flush=True)
        if "--no-rss" in sys.argv[2:]:
            print("peak RSS not checked: a sanitizer build", flush=True)
        else:
            # Generous: the limit's bound is an estimate of the buffers, and the allocator keeps some.
            check(streamed[3] <= baseline + 2 * limit,
                  f"peak RSS {streamed[3]} exceeds the program's {baseline} + twice the limit {limit}")
            check(streamed[3] < whole[3] / 2,
                  f"peak RSS {streamed[3]} not below half the unlimited run's {whole[3]}")
        same_as_unlimited(big, "8M", "--upper")
        same_as_unlimited(big, "3M", "--precision", "float")

        # --- several families and formats, many chunks each ----------------------------------------
        for distribution in ("disk", "square", "gaussian"):
            for fmt in ("text", "csv", "f32", "f64"):
                file = generate(f"{distribution}.{fmt}", distribution, 300_000, fmt)
                same_as_unlimited(file, "1M", "--format", fmt)
                if distribution == "gaussian":
                    same_as_unlimited(file, "1M", "--format", fmt, "--upper", "--precision", "float")
        # Plain "x y" lines, comments and blank lines at a piece's edges, no final newline.
        rng = random.Random(seed)
        lines = ["# comment before any value\n"] * 20000 + ["\n"] * 5000
        for i in range(120_000):
            lines.append(f"{rng.uniform(-1, 1)!r} {rng.uniform(-1, 1)!r}" + (" # note\n" if i % 7 == 0 else "\n"))
            if i % 1000 == 0:
                lines.append("\n# between\n")
        with open(path("plain.txt"), "w") as f:
            f.write("".join(lines).rstrip("\n"))
        same_as_unlimited(path("plain.txt"), "1M")
        # csv with a header naming more columns than x and y.
        with open(path("wide.csv"), "w") as f:
            f.write("id,lat,x,y\n")
            for i in range(150_000):
                f.write(f"{i},{rng.random()!r},{rng.gauss(0, 1)!r},{rng.gauss(0, 1)!r}\n")
        same_as_unlimited(path("wide.csv"), "1M")
        same_as_unlimited(path("wide.csv"), "1M", "--columns", "lat,x")

        # --- errors in late chunks name the same place as the whole-file read ----------------------
        def same_error(name, file, limit, *extra):
            whole = run([wagener, "hull", file, *extra])
            streamed = run([wagener, "hull", file, "--memory-limit", limit, *extra])
            check(whole[0] == 2, f"{name}: the unlimited run exits {whole[0]}, expected 2")
            check(streamed[0] == 2 and not streamed[1], f"{name}: exit {streamed[0]}, expected 2 and no hull")
            check(streamed[2] == whole[2], f"{name}: '{streamed[2].strip()}' differs from '{whole[2].strip()}'")

        text = open(path("disk.text")).read().split("\n")
        late = len(text) * 9 // 10  # 0-based index of a line in one of the last pieces
        bad = list(text)
        bad[late] = "0.5 nan"
        with open(path("late-nan.txt"), "w") as f:
            f.write("\n".join(bad))
        same_error("NaN in a late line", path("late-nan.txt"), "1M")
        bad[late] = "0.5 0.25 0.125"
        with open(path("late-width.txt"), "w") as f:
            f.write("\n".join(["0.1 0.2"] + bad[1:]))  # plain lines: a third value is an error
        same_error("three values in a late line", path("late-width.txt"), "1M")
        # The seed's format: a count, then the values in any layout.
        points = len(text) - 1  # the file ends with a newline
        counted = [str(points)] + [v for line in text[:-1] for v in line.split()] + [text[-1]]
        with open(path("counted.txt"), "w") as f:
            f.write("\n".join(counted))
        same_as_unlimited(path("counted.txt"), "1M")
        counted[0] = str(points + 1)
        with open(path("count-high.txt"), "w") as f:
            f.write("\n".join(counted))
        same_error("a count too high", path("count-high.txt"), "1M")
        counted[0] = str(points - 1)  # one point too few: values left over
        with open(path("count-low.txt"), "w") as f:
            f.write("\n".join(counted))
        same_error("a count too low", path("count-low.txt"), "1M")
        csv = open(path("disk.csv")).read().split("\n")
        csv[len(csv) * 8 // 10] = "0.25,oops"
        with open(path("late-garbage.csv"), "w") as f:
            f.write("\n".join(csv))
        same_error("garbage in a late csv row", path("late-garbage.csv"), "1M")
        raw = bytearray(open(path("disk.f64"), "rb").read())
        at = len(raw) * 9 // 10 // 16 * 16 + 8  # the y of a record in one of the last windows
        raw[at : at + 8] = b"\x00\x00\x00\x00\x00\x00\xf0\x7f"  # +infinity
        with open(path("late-inf.f64"), "wb") as f:
            f.write(raw)
        same_error("infinity in a late record", path("late-inf.f64"), "1M")
        with open(path("truncated.f64"), "wb") as f:
            f.write(raw[: len(raw) - 5])
        same_error("a truncated last record", path("truncated.f64"), "1M")

        # --- hull-like input: every point on the hull --------------------------------------------
        circle = generate("circle.f64", "circle", 200_000, "f64")
        code, out, err, _ = run([wagener, "hull", circle, "--memory-limit", "1M"])
        check(code == 1 and not out, f"circle under 1M: exit {code}, expected 1 and no hull")
        check("memory limit of 1048576 bytes" in err and "hull-like" in err, f"circle: message '{err.strip()}'")
        small_circle = generate("small-circle.f64", "circle", 5000, "f64")
        same_as_unlimited(small_circle, "1M")
        parabola = generate("parabola.f64", "parabola", 200_000, "f64")
        code, out, err, _ = run([wagener, "hull", parabola, "--memory-limit", "2M"])
        check(code == 1 and "memory limit of 2097152 bytes" in err, f"parabola under 2M: exit {code}: {err}")
        code, _, _, _ = run([wagener, "hull", circle, "--memory-limit", "1M", "-o", path("never.txt")])
        check(code == 1 and not os.path.exists(path("never.txt")), "a failed streamed hull leaves no output file")

        # --- bad values and combinations ----------------------------------------------------------
        for bad_limit in ("abc", "0", "12Q", "-5M", "100", "512K", ""):
            code, out, err, _ = run([wagener, "hull", tiny, "--memory-limit", bad_limit])
            check(code == 2 and not out, f"--memory-limit '{bad_limit}': exit {code}, expected 2")
        for combo in (["--indices"], ["--presorted"], ["--svg", path("x.svg")], ["--trace", path("t.txt")]):
            code, out, err, _ = run([wagener, "hull", tiny, "--memory-limit", "8M", *combo])
            check(code == 2 and not out and "memory-limit" in err, f"--memory-limit with {combo}: exit {code}: {err}")
        for good in ("1M", "1m", "1MiB", "1mb", "2G", "1048576"):
            code, out, err, _ = run([wagener, "hull", tiny, "--memory-limit", good])
            check(code == 0 and out == b"0 0\n1 0\n0 1\n", f"--memory-limit {good}: exit {code}: {err}")
        code, out, err, _ = run([wagener, "hull", path("missing.f64"), "--memory-limit", "8M"])
        check(code == 2 and "missing.f64" in err, f"a missing file: exit {code}: {err}")

    print(f"{passes} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
