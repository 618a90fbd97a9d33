#!/usr/bin/env python3
"""Where the image lies, and the first launch: runtime_load_bench's (b), (a) and (d) with the image
in each place (README.md, "Where the image lies"), interleaved, one fresh process each. Prints a
Markdown table of medians (also written to --out).

    python3 bench/runtime_load/where_image.py --bench .carry/runtime_load_bench --package .carry/saxpy.kiln
"""
import argparse
import statistics

from run import bench_result   # runtime_load's own run.py, beside this file

VARIANTS = [("b", "--floor-image", "heap"), ("b", "--floor-image", "anonymous"),
            ("b", "--floor-image", "pread"), ("b", "--floor-image", "pread-file-region"),
            ("b", "--floor-image", "pread-elsewhere"),
            ("a", "--kiln-open", "file"), ("a", "--kiln-open", "memory"),
            ("d", "--kiln-open", "file"), ("d", "--kiln-open", "memory")]
KERNELS = ["saxpy", "block_sum<float, 256>"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", required=True)
    parser.add_argument("--package", required=True)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    samples = {}
    for _ in range(args.runs):
        for kernel in KERNELS:
            for case, option, value in VARIANTS:
                result = bench_result([args.bench, "--case", case, "--kernel", kernel, "--package", args.package,
                                       option, value])
                row = samples.setdefault((kernel, case, value), {"total": [], "load": [], "own": []})
                row["total"].append(result["total_ms"])
                if "cuLibraryLoadData" in result["driver_steps"]:
                    row["load"].append(result["driver_steps"]["cuLibraryLoadData"])
                if case == "d":
                    row["own"].append(result["total_ms"] - result["driver_ms"])

    def median(values):
        return "%.4f" % statistics.median(values) if values else "—"

    lines = ["Medians of %d fresh processes per row, ms (bench/runtime_load/README.md, \"Where the image lies\")."
             % args.runs, "",
             "| kernel | case | image | total | cuLibraryLoadData | Kiln's own (d) |", "|---|---|---|---:|---:|---:|"]
    for (kernel, case, value), row in samples.items():
        lines.append("| `%s` | (%s) | %s | %s | %s | %s |" % (kernel, case, value, median(row["total"]),
                                                          median(row["load"]), median(row["own"])))
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out:
        with open(args.out, "w") as file:
            file.write(text)


if __name__ == "__main__":
    main()
