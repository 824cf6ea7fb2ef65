#!/usr/bin/python3
"""Seconds per FedAvg round, fedlab on one core against a plain PyTorch loop on one thread.

The round of scripts/bench_fedavg_round.lua: 50 of 500 iid clients, 5 local SGD steps of a
batch of 16 each (eta_c = 0.05), the server averaging the 50 client models; float32, no
evaluation. fedlab runs the script with --workers 1 --jobs 1; its figure is the run's own
elapsed time from the manifest (the data read excluded) over its 5 rounds, and the CPU time
of the whole process (user + sys, reading included). PyTorch runs the same round as a plain
loop with torch.set_num_threads(1): copy the global model into the client's, 5 steps of
forward, backward and an in-place SGD update, add the client's model into a sum, average;
its figures are the loop's wall and process CPU time (the data read excluded). Runs of the
two alternate, so that both see the same load; each figure is the median of --repeat.

Shapes: LeNet-5 on Fashion-MNIST (28x28 grey, the FEMNIST-sized model with 10 classes),
and the 4-layer CNN with 64 filters on CIFAR-sized images (3x32x32, 10 classes), random
images written in CIFAR-10's binary format into a temporary directory (CIFAR-10 itself is
not on this machine; the cost of a step does not depend on the pixel values).

Usage, from the repository root:
  /usr/bin/python3 scripts/bench_torch_fedavg.py [--repeat 3] [--rounds 5]
"""

import argparse
import gzip
import json
import os
import resource
import statistics
import subprocess
import tempfile
import time

import numpy as np

CLIENTS, PER_ROUND, STEPS, BATCH, ETA = 500, 50, 5, 16, 0.05
FMNIST = "/usr/share/datasets/fashion-mnist"


def fashion_mnist():
    with gzip.open(os.path.join(FMNIST, "train-images-idx3-ubyte.gz")) as f:
        x = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 1, 28, 28).copy()
    with gzip.open(os.path.join(FMNIST, "train-labels-idx1-ubyte.gz")) as f:
        y = np.frombuffer(f.read(), np.uint8, offset=8).copy()
    return x, y


def write_cifar(d, rng):
    """Random images in CIFAR-10's binary format: a label byte and 3,072 pixel bytes a record."""
    names = [f"data_batch_{i}.bin" for i in range(1, 6)] + ["test_batch.bin"]
    for name in names:
        rec = np.empty((10000, 3073), np.uint8)
        rec[:, 0] = rng.integers(0, 10, 10000)
        rec[:, 1:] = rng.integers(0, 256, (10000, 3072))
        rec.tofile(os.path.join(d, name))


def read_cifar(d):
    rec = np.concatenate([np.fromfile(os.path.join(d, f"data_batch_{i}.bin"), np.uint8).reshape(-1, 3073)
                          for i in range(1, 6)])
    return rec[:, 1:].reshape(-1, 3, 32, 32), rec[:, 0]


def torch_net(torch, model, cin, side, filters):
    nn = torch.nn
    if model == "lenet5":
        return nn.Sequential(
            nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
            nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))
    layers, c, s = [], cin, side
    for _ in range(4):
        layers += [nn.Conv2d(c, filters, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)]
        c, s = filters, s // 2
    return nn.Sequential(*layers, nn.Flatten(), nn.Linear(c * s * s, 10))


def torch_run(x, y, model, filters, rounds):
    """Seconds (wall, CPU) of the FedAvg rounds in a plain PyTorch loop on one thread."""
    import torch
    torch.set_num_threads(1)
    torch.manual_seed(1)
    rng = np.random.default_rng(1)
    net = torch_net(torch, model, x.shape[1], x.shape[2], filters)
    params = list(net.parameters())
    loss_fn = torch.nn.CrossEntropyLoss()
    parts = np.array_split(rng.permutation(len(y)), CLIENTS)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y.astype(np.int64))
    glob = [p.detach().clone() for p in params]
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(rounds):
        total = [torch.zeros_like(p) for p in params]
        for c in rng.choice(CLIENTS, PER_ROUND, replace=False):
            with torch.no_grad():
                for p, g in zip(params, glob):
                    p.copy_(g)
            for _ in range(STEPS):
                idx = torch.from_numpy(parts[c][rng.integers(0, len(parts[c]), BATCH)])
                xb = xt[idx].float().div_(255)
                net.zero_grad(set_to_none=False)
                loss_fn(net(xb), yt[idx]).backward()
                with torch.no_grad():
                    for p in params:
                        p.add_(p.grad, alpha=-ETA)
            with torch.no_grad():
                for s, p in zip(total, params):
                    s.add_(p)
        with torch.no_grad():
            for g, s in zip(glob, total):
                g.copy_(s.div_(PER_ROUND))
    return time.perf_counter() - t0, time.process_time() - c0


def fedlab_run(binary, sets, rounds, out):
    """Seconds of fedlab's run (its manifest's elapsed time) and of the process's CPU."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    cmd = [binary, "run", "scripts/bench_fedavg_round.lua", "--out", out, "--fresh", "--quiet",
           "--workers", "1", "--jobs", "1"]
    for k, v in sets.items():
        cmd += ["--set", f"{k}={v}"]
    subprocess.run(cmd, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(os.path.join(out, "manifest.json")) as f:
        runs = json.load(f)["runs"]
    elapsed = sum(r.get("elapsed_seconds", 0) for r in runs.values())
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs of each per figure (median)")
    ap.add_argument("--rounds", type=int, default=5, help="FedAvg rounds a run (bench_fedavg_round.lua's 5)")
    a = ap.parse_args()
    if a.rounds != 5:
        ap.error("bench_fedavg_round.lua runs 5 rounds")
    with open("/proc/loadavg") as f:
        print(f"load average before: {f.read().split()[0]}")
    tmp = tempfile.mkdtemp(prefix="fedlab_bench_fedavg_")
    binary = os.path.join(tmp, "fedlab")
    subprocess.run(["go", "build", "-o", binary, "./cmd/fedlab"], check=True)
    cifar = os.path.join(tmp, "cifar")
    os.mkdir(cifar)
    write_cifar(cifar, np.random.default_rng(7))
    shapes = [
        ("LeNet-5, Fashion-MNIST 1x28x28", "lenet5", 0, {"model": "lenet5"}, fashion_mnist),
        ("4-layer CNN 64 filters, 3x32x32", "cnn4", 64, {"model": "cnn4", "filters": 64, "cifar": cifar},
         lambda: read_cifar(cifar)),
    ]
    print(f"{'shape':>34} {'fedlab s/round':>15} {'CPU':>6} {'PyTorch s/round':>16} {'CPU':>6} {'PyTorch/fedlab':>15}"
          f"   (medians of {a.repeat}; CPU: process CPU-seconds a round)")
    for title, model, filters, sets, load in shapes:
        x, y = load()
        fw, fc, tw, tc = [], [], [], []
        for _ in range(a.repeat):
            e, c = fedlab_run(binary, sets, a.rounds, os.path.join(tmp, "run"))
            fw.append(e / a.rounds)
            fc.append(c / a.rounds)
            e, c = torch_run(x, y, model, filters, a.rounds)
            tw.append(e / a.rounds)
            tc.append(c / a.rounds)
        f, t = statistics.median(fw), statistics.median(tw)
        print(f"{title:>34} {f:15.3f} {statistics.median(fc):6.2f} {t:16.3f} {statistics.median(tc):6.2f} {t / f:15.2f}")
    with open("/proc/loadavg") as f:
        print(f"load average after: {f.read().split()[0]}")


if __name__ == "__main__":
    main()
