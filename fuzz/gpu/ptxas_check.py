#!/usr/bin/env python3
"""ptxas over the PTX of exported lowering-gpu cases: the assembler's own messages for PTX the
driver refused (`run_cases.py` reports only CUDA_ERROR_INVALID_PTX), grouped by message.

    python3 fuzz/gpu/ptxas_check.py DIR [CASE ...]      (all cases without CASE arguments)
"""
import collections
import json
import os
import re
import subprocess
import sys
import tempfile


def main():
    d = sys.argv[1]
    wanted = {int(c) for c in sys.argv[2:]}
    index = json.load(open(os.path.join(d, "index.json")))
    groups = collections.defaultdict(list)
    for case in index["cases"]:
        if wanted and case["case"] not in wanted:
            continue
        manifest = json.load(open(os.path.join(d, case["manifest"])))
        for k in manifest["kernels"]:
            with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
                f.write(k["ptx"])
            r = subprocess.run(["ptxas", "-arch=sm_90", f.name, "-o", os.devnull], capture_output=True, text=True)
            os.unlink(f.name)
            if r.returncode:
                msg = next((line for line in r.stderr.splitlines() if "error" in line), r.stderr.strip()[:200])
                key = re.sub(r"\d+", "N", re.sub(r"^.*?error\s*:", "", msg))
                groups[key].append((case["case"], msg))
    for key, cs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print(f"{len(cs):5}  {key.strip()}\n       e.g. case {cs[0][0]}: {cs[0][1].strip()}")
    print(f"{sum(map(len, groups.values()))} cases ptxas refused")


if __name__ == "__main__":
    main()
