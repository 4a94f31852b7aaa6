#!/usr/bin/env python3
"""Bar charts of `hetcodec bench jpeg --json` results: images/s per decoder, one panel per file.

usage: plot_bench.py RESULT.json [RESULT.json ...] [-o OUT.png]
Needs matplotlib (Debian: python3-matplotlib)."""
import argparse
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="+", help="JSON files written by hetcodec bench jpeg --json")
    ap.add_argument("-o", "--out", default="bench.png", help="output image (default bench.png)")
    args = ap.parse_args()
    fig, axes = plt.subplots(len(args.results), 1, figsize=(10, 3.2 * len(args.results)), squeeze=False)
    for ax, path in zip(axes[:, 0], args.results):
        with open(path) as f:
            doc = json.load(f)
        rows = [r for r in doc["results"] if "images_per_s" in r]
        names = [r["name"] if r["kind"] != "hetcodec" else "hetcodec " + r["device"]["spec"] for r in rows]
        rates = [r["images_per_s"] for r in rows]
        colors = ["tab:blue" if r["kind"] == "hetcodec" else "tab:gray" for r in rows]
        ax.barh(names, rates, color=colors)
        ax.invert_yaxis()
        ax.set_xlabel("images/s")
        ax.set_title("%s: batch %d, %.1f MP (%s)" % (doc["benchmark"], doc["batch"], doc["megapixels"], doc["corpus"]), fontsize=9)
        for y, v in enumerate(rates):
            ax.text(v, y, " %.0f" % v, va="center", fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print("wrote", args.out)


if __name__ == "__main__":
    main()
