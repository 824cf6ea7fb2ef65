#!/usr/bin/python3
"""Float32 CNN training step of fedlab and PyTorch on one core, per CPU-second.

The shapes of fedlab's BenchmarkCNNStepFloat32 (losses/cnn32_bench_test.go):
LeNet-5 on 28x28 images with 62 classes (FEMNIST) and the 4-layer CNN
(4 x [conv 3x3 pad 1, ReLU, max-pool 2], linear) with 32 and 64 filters on
1x28x28 and 3x32x32 (CIFAR-sized) images with 10 classes. A step is the loss
and gradient of a batch of 16 random images. fedlab's figures come from the
benchmark (the test binary built from the repository root, run with
-test.cpu 1), PyTorch's from timing the same step with
torch.set_num_threads(1). Samples of the two alternate; each figure is the
median of --repeat samples of process CPU time. The last column is the
compute time of a FedAvg round of 50 clients x 5 local steps x 16 samples
(4,000 samples) on one core, from PyTorch's rate and fedlab's.

Usage: /usr/bin/python3 scripts/bench_torch_cnn.py [--seconds 2] [--repeat 5]
"""

import argparse
import re
import statistics
import subprocess
import time

BATCH = 16
ROUND = 50 * 5 * BATCH
# name: (in channels, side, classes, model)
SHAPES = {
    "lenet5-femnist": (1, 28, 62, "lenet5"),
    "cnn4-32-c1": (1, 28, 10, 32),
    "cnn4-64-c1": (1, 28, 10, 64),
    "cnn4-32-c3": (3, 32, 10, 32),
    "cnn4-64-c3": (3, 32, 10, 64),
}


def fedlab_sample(binary, seconds, cpu):
    cmd = [binary, "-test.run", "xxx", "-test.bench", "CNNStepFloat32$", "-test.cpu", "1",
           "-test.benchtime", f"{seconds}s"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd="losses").stdout
    for line in out.splitlines():
        m = re.match(r"BenchmarkCNNStepFloat32/(\S+)\s.*?([\d.]+) samples/cpu-s", line)
        if m:
            cpu.setdefault(m.group(1), []).append(float(m.group(2)))


def torch_steps():
    import torch
    nn = torch.nn
    torch.set_num_threads(1)
    torch.manual_seed(1)
    steps = {}
    for name, (cin, side, classes, model) in SHAPES.items():
        if model == "lenet5":
            net = nn.Sequential(
                nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, classes))
        else:
            layers, c, s = [], cin, side
            for _ in range(4):
                layers += [nn.Conv2d(c, model, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)]
                c, s = model, s // 2
            net = nn.Sequential(*layers, nn.Flatten(), nn.Linear(c * s * s, classes))
        x = torch.randn(BATCH, cin, side, side).clamp(min=0) / 3
        y = torch.randint(0, classes, (BATCH,))

        def step(net=net, x=x, y=y, loss_fn=nn.CrossEntropyLoss()):
            net.zero_grad(set_to_none=False)
            loss_fn(net(x), y).backward()

        for _ in range(5):
            step()
        steps[name] = step
    return steps


def torch_sample(steps, seconds, cpu):
    for name, step in steps.items():
        n, t0, c0 = 0, time.perf_counter(), time.process_time()
        while time.perf_counter() - t0 < seconds:
            step()
            n += 1
        cpu.setdefault(name, []).append(BATCH * n / max(1e-9, time.process_time() - c0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=2, help="seconds per sample")
    ap.add_argument("--repeat", type=int, default=5, help="samples per figure (median)")
    a = ap.parse_args()
    with open("/proc/loadavg") as f:
        print(f"load average before: {f.read().split()[0]}")
    binary = "/tmp/fedlab_bench_cnn_losses.test"
    subprocess.run(["go", "test", "-c", "-o", binary, "./losses"], check=True)
    steps = torch_steps()
    fc, tc = {}, {}
    for _ in range(a.repeat):  # alternate, so that both see the same load
        fedlab_sample(binary, a.seconds, fc)
        torch_sample(steps, a.seconds, tc)
    print(f"{'shape':>16} {'fedlab':>10} {'torch':>10} {'ratio':>6} {'fedlab s/round':>15} {'torch s/round':>14}"
          "   (samples per CPU-second, medians of %d)" % a.repeat)
    for name in SHAPES:
        f, t = statistics.median(fc[name]), statistics.median(tc[name])
        print(f"{name:>16} {f:10,.0f} {t:10,.0f} {f / t:6.2f} {ROUND / f:15.3f} {ROUND / t:14.3f}")


if __name__ == "__main__":
    main()
