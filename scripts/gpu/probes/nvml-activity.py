#!/usr/bin/env python3
"""Probe (not a stage): what NVML's per-process utilization samples (nvmlDeviceGetProcessUtilization)
say about co-tenants of different activity on this GPU: an idle one (a context and 1 GiB, no launch),
a faint one (divbench_cotenant, 20 us busy every 10 ms), a busy one, and divbench itself during a
`--sweep k`. Polls every 50 ms for the whole probe and writes every sample with the phase it fell in:
$OUT/results/<gpu>/probes/nvml-activity/{samples.jsonl, events.jsonl, summary.txt (JSON text: no schema of its own)}. Also runs
`divbench --sweep k` beside the idle co-tenant and keeps its exit code and verdict (a co-tenant that holds
the GPU without computing: is it seen as a disturbance?). Needs libnvidia-ml.so.1 and libcuda.so.1 (ctypes; nothing installed)."""
import ctypes
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
BIN = ROOT / ".gpubundle" / "bin"
OUT = Path(os.environ.get("OUT", ROOT / "out")) / "results" / os.environ.get("DIVBENCH_GPU", "h200") / "probes" / "nvml-activity"


class Sample(ctypes.Structure):
    _fields_ = [("pid", ctypes.c_uint), ("timeStamp", ctypes.c_ulonglong), ("smUtil", ctypes.c_uint),
                ("memUtil", ctypes.c_uint), ("encUtil", ctypes.c_uint), ("decUtil", ctypes.c_uint)]


def idle_holder(seconds: float) -> None:
    """A co-tenant that holds a context and 1 GiB and launches nothing."""
    cuda = ctypes.CDLL("libcuda.so.1")
    assert cuda.cuInit(0) == 0
    dev, ctx, ptr = ctypes.c_int(), ctypes.c_void_p(), ctypes.c_ulonglong()
    assert cuda.cuDeviceGet(ctypes.byref(dev), 0) == 0
    assert cuda.cuCtxCreate_v2(ctypes.byref(ctx), 0, dev) == 0
    assert cuda.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(1 << 30)) == 0
    print("ready", flush=True)
    time.sleep(seconds)


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--idle":
        idle_holder(float(sys.argv[2]))
        return 0
    OUT.mkdir(parents=True, exist_ok=True)
    nvml = ctypes.CDLL("libnvidia-ml.so.1")
    assert nvml.nvmlInit_v2() == 0
    dev = ctypes.c_void_p()
    assert nvml.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(dev)) == 0
    events, samples, stop = [], [], threading.Event()
    phase = {"name": "start"}

    def event(what, **kw):
        events.append({"t": time.time(), "event": what, **kw})

    def poll():
        last = 0
        buf = (Sample * 256)()
        while not stop.is_set():
            n = ctypes.c_uint(256)
            rc = nvml.nvmlDeviceGetProcessUtilization(dev, buf, ctypes.byref(n), ctypes.c_ulonglong(last))
            now = time.time()
            if rc == 0:
                for i in range(n.value):
                    s = buf[i]
                    samples.append({"t": now, "phase": phase["name"], "pid": s.pid, "ts_us": s.timeStamp,
                                    "sm": s.smUtil, "mem": s.memUtil})
                    last = max(last, s.timeStamp)
            else:
                samples.append({"t": now, "phase": phase["name"], "rc": rc})
            time.sleep(0.05)

    def run_phase(name, cmd, seconds=None):
        phase["name"] = name
        event("start", phase=name, cmd=[str(c) for c in cmd])
        p = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        event("pid", phase=name, pid=p.pid)
        out, err = p.communicate(timeout=120)
        event("end", phase=name, rc=p.returncode, stderr_tail=err[-1500:])
        return p.returncode

    t = threading.Thread(target=poll)
    t.start()
    time.sleep(1.0)
    phase["name"] = "quiet"
    time.sleep(2.0)
    holder = subprocess.Popen([sys.executable, __file__, "--idle", "40"], stdout=subprocess.PIPE, text=True)
    holder.stdout.readline()
    event("idle_holder", pid=holder.pid)
    phase["name"] = "idle_only"
    time.sleep(3.0)
    div = BIN / "divbench"
    rc = run_phase("sweep_beside_idle", [div, "--sweep", "k", "--quiet", "--no-samples", "--out", OUT / "sweep_beside_idle.json"])
    phase["name"] = "idle_only_2"
    time.sleep(2.0)
    cot = BIN / "divbench_cotenant"
    faint = subprocess.Popen([str(cot), "--busy-us", "20", "--period-us", "10000", "--seconds", "8"])
    event("faint", pid=faint.pid)
    phase["name"] = "faint"
    time.sleep(1.0)
    run_phase("sweep_beside_idle_and_faint", [div, "--sweep", "k", "--quiet", "--no-samples", "--out",
                                              OUT / "sweep_beside_idle_and_faint.json"])
    faint.wait()
    phase["name"] = "idle_only_3"
    time.sleep(2.0)
    busy = subprocess.Popen([str(cot), "--seconds", "4"])
    event("busy", pid=busy.pid)
    phase["name"] = "busy"
    busy.wait()
    phase["name"] = "idle_only_4"
    time.sleep(2.0)
    holder.terminate()
    holder.wait()
    phase["name"] = "end"
    time.sleep(2.0)
    stop.set()
    t.join()
    with open(OUT / "samples.jsonl", "w") as f:
        for s in samples:
            f.write(json.dumps(s) + "\n")
    with open(OUT / "events.jsonl", "w") as f:
        for e in events:
            f.write(json.dumps(e) + "\n")
    pids = {e.get("pid"): e.get("phase", e["event"]) for e in events if "pid" in e}
    by = {}
    for s in samples:
        if "pid" not in s:
            continue
        k = f"{pids.get(s['pid'], 'pid ' + str(s['pid']))} in {s['phase']}"
        b = by.setdefault(k, {"samples": 0, "sm_max": 0, "mem_max": 0, "sm_nonzero": 0})
        b["samples"] += 1
        b["sm_max"] = max(b["sm_max"], s["sm"])
        b["mem_max"] = max(b["mem_max"], s["mem"])
        b["sm_nonzero"] += s["sm"] > 0
    summary = {"sweep_beside_idle_rc": rc, "errors": sum(1 for s in samples if "rc" in s),
               "error_codes": sorted({s["rc"] for s in samples if "rc" in s}), "by_process_and_phase": by}
    (OUT / "summary.txt").write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
