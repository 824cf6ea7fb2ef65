#!/usr/bin/python3
"""Side-by-side training throughput of fedlab and PyTorch on one core.

For LeNet-5, the FedDA paper's 4-layer CNN and the 784-200-200-10 MLP, in
float64 and float32: samples per second of a forward + backward pass over a
batch of 16 random 28x28 images (10 classes), the work of fedlab's
BenchmarkCNNSamples / BenchmarkGradientSamples. fedlab's figures come from
its `go test -bench` benchmarks (the test binary, built from the repository
root, run with -test.cpu 1), PyTorch's from timing the same pass with
torch.set_num_threads(1). Samples of the two alternate; each figure is the
median of --repeat samples; both wall-clock and CPU-time (process) rates are
printed, the latter being steadier on a shared machine. Without torch (Debian:
apt-get install python3-torch) the PyTorch columns are skipped.

Usage: /usr/bin/python3 scripts/bench_torch.py [--seconds 2] [--repeat 3]
"""

import argparse
import re
import statistics
import subprocess
import sys
import time

BATCH = 16

# fedlab benchmark names per (model, precision)
GO_BENCH = {
    ("lenet5", "float64"): "BenchmarkCNNSamples/lenet5",
    ("lenet5", "float32"): "BenchmarkCNNSamplesFloat32/lenet5",
    ("cnn4", "float64"): "BenchmarkCNNSamples/fedda-cnn4-32",
    ("cnn4", "float32"): "BenchmarkCNNSamplesFloat32/fedda-cnn4-32",
    ("mlp", "float64"): "BenchmarkGradientSamples/mlp-200-200",
    ("mlp", "float32"): "BenchmarkGradientSamplesFloat32/mlp-200-200",
}
MODELS = ["lenet5", "cnn4", "mlp"]
TITLES = {"lenet5": "LeNet-5", "cnn4": "4-layer CNN (32 filters)", "mlp": "MLP 784-200-200-10"}


def fedlab_sample(test_binary, seconds, wall, cpu):
    """Appends one sample of each fedlab benchmark's wall and CPU samples/s."""
    cmd = [test_binary, "-test.run", "xxx", "-test.bench",
           "CNNSamples(Float32)?/(lenet5|fedda-cnn4-32)$|GradientSamples(Float32)?/mlp-200-200$",
           "-test.cpu", "1", "-test.benchtime", f"{seconds}s"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        name = line.split()[0] if line.startswith("Benchmark") else ""
        for key, bench in GO_BENCH.items():
            if name == bench:
                m = re.search(r"([\d.]+) samples/s", line)
                c = re.search(r"([\d.]+) samples/cpu-s", line)
                wall.setdefault(key, []).append(float(m.group(1)))
                if c:
                    cpu.setdefault(key, []).append(float(c.group(1)))


def torch_step(torch):
    """The PyTorch models' steps: a (model, precision) → function map."""
    nn = torch.nn

    def lenet5():
        return nn.Sequential(
            nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
            nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))

    def cnn4():
        layers, cin = [], 1
        for _ in range(4):
            layers += [nn.Conv2d(cin, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)]
            cin = 32
        return nn.Sequential(*layers, nn.Flatten(), nn.Linear(32, 10))

    def mlp():
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 200), nn.ReLU(),
                             nn.Linear(200, 200), nn.ReLU(), nn.Linear(200, 10))

    build = {"lenet5": lenet5, "cnn4": cnn4, "mlp": mlp}
    torch.set_num_threads(1)
    torch.manual_seed(1)
    steps = {}
    for model in MODELS:
        for prec, dtype in (("float64", torch.float64), ("float32", torch.float32)):
            net = build[model]().to(dtype)
            x = (torch.randn(BATCH, 1, 28, 28, dtype=dtype).clamp(min=0) / 3)
            y = torch.randint(0, 10, (BATCH,))

            def step(net=net, x=x, y=y, loss_fn=nn.CrossEntropyLoss()):
                net.zero_grad(set_to_none=False)
                loss_fn(net(x), y).backward()

            for _ in range(5):
                step()
            steps[(model, prec)] = step
    return steps


def torch_sample(steps, seconds, wall, cpu):
    """Appends one sample of each PyTorch model's wall and CPU samples/s."""
    for key, step in steps.items():
        n, t0, c0 = 0, time.perf_counter(), time.process_time()
        while time.perf_counter() - t0 < seconds:
            step()
            n += 1
        wall.setdefault(key, []).append(BATCH * n / (time.perf_counter() - t0))
        cpu.setdefault(key, []).append(BATCH * n / max(1e-9, time.process_time() - c0))


def table(title, fl, th):
    print(f"\n{title}")
    cols = ["model", "fedlab f64", "fedlab f32", "torch f64", "torch f32", "f32 fedlab/torch"]
    print("  ".join(f"{c:>24}" if i == 0 else f"{c:>16}" for i, c in enumerate(cols)))
    fmt = lambda v: f"{v:16,.0f}" if v is not None else f"{'-':>16}"
    for model in MODELS:
        f64, f32 = fl.get((model, "float64")), fl.get((model, "float32"))
        t64, t32 = th.get((model, "float64")), th.get((model, "float32"))
        ratio = f"{f32 / t32:16.2f}" if f32 and t32 else f"{'-':>16}"
        print(f"{TITLES[model]:>24}  {fmt(f64)}  {fmt(f32)}  {fmt(t64)}  {fmt(t32)}  {ratio}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=2, help="seconds per sample")
    ap.add_argument("--repeat", type=int, default=3, help="samples per figure (median)")
    a = ap.parse_args()
    try:
        import torch
    except ImportError:
        torch = None
        print("PyTorch is not installed (Debian: apt-get install python3-torch): "
              "printing fedlab's figures only", file=sys.stderr)
    with open("/proc/loadavg") as f:
        print(f"load average before: {f.read().split()[0]} (on {subprocess.run(['nproc'], capture_output=True, text=True).stdout.strip()} cores)")
    binary = "/tmp/fedlab_bench_losses.test"
    subprocess.run(["go", "test", "-c", "-o", binary, "./losses"], check=True)
    steps = torch_step(torch) if torch else {}
    fw, fc, tw, tc = {}, {}, {}, {}
    for _ in range(a.repeat):  # alternate, so that both see the same load
        fedlab_sample(binary, a.seconds, fw, fc)
        if torch:
            torch_sample(steps, a.seconds, tw, tc)
    fw, fc, tw, tc = ({k: statistics.median(v) for k, v in d.items()} for d in (fw, fc, tw, tc))
    if torch:
        print(f"PyTorch {torch.__version__}, torch.set_num_threads(1); fedlab: its go test benchmarks, -test.cpu 1")
    table("samples/s, wall clock (batch 16, one core, median of %d)" % a.repeat, fw, tw)
    table("samples per CPU second (process CPU time)", fc, tc)
    with open("/proc/loadavg") as f:
        print(f"\nload average after: {f.read().split()[0]}")


if __name__ == "__main__":
    main()
