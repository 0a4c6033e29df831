#!/usr/bin/python3
"""train.py -- train the three Fashion-MNIST models of `spu infer` in fp32 and
write each as models/<name>/graph.json + .npy weights (float32, C order).

Deterministic: fixed seeds, torch.use_deterministic_algorithms, one CPU thread,
data in file order with a seeded shuffle. Calibration of the activation scales
(symmetric int8, per tensor: scale = max|x| / 127 over CALIB training images)
runs the same fp32 forward pass and stores each scale in the graph node that
quantizes that tensor (see docs/runtime.md "Quantization").

  /usr/bin/python3 models/train.py [--out models] [--data DIR] [--only NAME]
"""
import argparse, gzip, json, math, os, struct, sys, time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SEED = 20261201
CALIB = 2000


def load_idx(path, magic, dims):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    m, = struct.unpack(">I", raw[:4])
    if m != magic:
        sys.exit(f"{path}: magic {m:#x}, expected {magic:#x}")
    shape = struct.unpack(">" + "I" * dims, raw[4:4 + 4 * dims])
    data = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * dims)
    if data.size != int(np.prod(shape)):
        sys.exit(f"{path}: {data.size} bytes of data, header says {shape}")
    return data.reshape(shape)


def load_split(d, split):
    x = load_idx(os.path.join(d, f"{split}-images-idx3-ubyte.gz"), 0x803, 3)
    y = load_idx(os.path.join(d, f"{split}-labels-idx1-ubyte.gz"), 0x801, 1)
    # the runtime feeds pixel / 255 as float32 in [0, 1], shape [1, 28, 28]
    return torch.from_numpy(x.astype(np.float32) / 255.0).unsqueeze(1), torch.from_numpy(y.astype(np.int64))


# --- models ------------------------------------------------------------------
class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(784, 256), nn.Linear(256, 128), nn.Linear(128, 10)

    def forward(self, x, rec=None):
        x = x.flatten(1)
        rec and rec("fc1", x)
        x = F.relu(self.fc1(x))
        rec and rec("fc2", x)
        x = F.relu(self.fc2(x))
        rec and rec("fc3", x)
        return self.fc3(x)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1, self.fc2 = nn.Linear(32 * 7 * 7, 128), nn.Linear(128, 10)

    def forward(self, x, rec=None):
        rec and rec("conv1", x)
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        rec and rec("conv2", x)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.flatten(1)
        rec and rec("fc1", x)
        x = F.relu(self.fc1(x))
        rec and rec("fc2", x)
        return self.fc2(x)


class Attention(nn.Module):
    """Multi-head self-attention exactly as the runtime's `attention` op:
    qkv = x Wqkv^T + b; per head h: S = (Q_h K_h^T) / sqrt(dh); P = softmax(S);
    O_h = P V_h; out = concat(O) Wo^T + bo."""
    def __init__(self, d, heads):
        super().__init__()
        self.d, self.h = d, heads
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)

    def forward(self, x, name, rec=None):
        B, T, D = x.shape
        dh = D // self.h
        rec and rec(name, x)
        qkv = self.qkv(x).reshape(B, T, 3, self.h, dh).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]            # [B, h, T, dh]
        rec and rec(name + ".q", q)
        rec and rec(name + ".k", k)
        rec and rec(name + ".v", v)
        sc = q @ k.transpose(-1, -2) / math.sqrt(dh)
        rec and rec(name + ".s", sc)                # the scores' range: the device softmax's codes
        p = torch.softmax(sc, dim=-1)
        o = (p @ v).transpose(1, 2).reshape(B, T, D)
        rec and rec(name + ".o", o)
        return self.proj(o)


class ViT(nn.Module):
    def __init__(self, d=64, heads=4, layers=2, mlp=128, patch=7):
        super().__init__()
        self.patch, self.d = patch, d
        self.T = (28 // patch) ** 2
        self.embed = nn.Conv2d(1, d, patch, stride=patch)
        self.pos = nn.Parameter(torch.randn(self.T, d) * 0.02)
        self.blocks = nn.ModuleList()
        for _ in range(layers):
            self.blocks.append(nn.ModuleDict(dict(
                ln1=nn.LayerNorm(d), attn=Attention(d, heads), ln2=nn.LayerNorm(d),
                fc1=nn.Linear(d, mlp), fc2=nn.Linear(mlp, d))))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, 10)

    def forward(self, x, rec=None):
        rec and rec("embed", x)
        x = self.embed(x).flatten(2).transpose(1, 2) + self.pos   # [B, T, d]
        for i, b in enumerate(self.blocks):
            x = x + b["attn"](b["ln1"](x), f"l{i}.attn", rec)
            h = b["ln2"](x)
            rec and rec(f"l{i}.fc1", h)
            h = F.gelu(b["fc1"](h))
            rec and rec(f"l{i}.fc2", h)
            x = x + b["fc2"](h)
        x = self.ln(x).mean(dim=1)
        rec and rec("head", x)
        return self.head(x)


# --- graphs --------------------------------------------------------------------
def graph_mlp(m, s):
    n = []
    n.append(dict(op="flatten", name="flatten", inputs=["image"], output="x0"))
    n.append(dict(op="dense", name="fc1", inputs=["x0"], output="h1", weight="fc1.weight.npy", bias="fc1.bias.npy", in_scale=s["fc1"]))
    n.append(dict(op="relu", name="relu1", inputs=["h1"], output="a1"))
    n.append(dict(op="dense", name="fc2", inputs=["a1"], output="h2", weight="fc2.weight.npy", bias="fc2.bias.npy", in_scale=s["fc2"]))
    n.append(dict(op="relu", name="relu2", inputs=["h2"], output="a2"))
    n.append(dict(op="dense", name="fc3", inputs=["a2"], output="logits", weight="fc3.weight.npy", bias="fc3.bias.npy", in_scale=s["fc3"]))
    return n


def graph_cnn(m, s):
    n = []
    n.append(dict(op="conv2d", name="conv1", inputs=["image"], output="c1", weight="conv1.weight.npy", bias="conv1.bias.npy", stride=1, pad=1, in_scale=s["conv1"]))
    n.append(dict(op="relu", name="relu1", inputs=["c1"], output="r1"))
    n.append(dict(op="maxpool2d", name="pool1", inputs=["r1"], output="p1", kernel=2, stride=2))
    n.append(dict(op="conv2d", name="conv2", inputs=["p1"], output="c2", weight="conv2.weight.npy", bias="conv2.bias.npy", stride=1, pad=1, in_scale=s["conv2"]))
    n.append(dict(op="relu", name="relu2", inputs=["c2"], output="r2"))
    n.append(dict(op="maxpool2d", name="pool2", inputs=["r2"], output="p2", kernel=2, stride=2))
    n.append(dict(op="flatten", name="flatten", inputs=["p2"], output="f"))
    n.append(dict(op="dense", name="fc1", inputs=["f"], output="h1", weight="fc1.weight.npy", bias="fc1.bias.npy", in_scale=s["fc1"]))
    n.append(dict(op="relu", name="relu3", inputs=["h1"], output="a1"))
    n.append(dict(op="dense", name="fc2", inputs=["a1"], output="logits", weight="fc2.weight.npy", bias="fc2.bias.npy", in_scale=s["fc2"]))
    return n


def graph_vit(m, s):
    n = [dict(op="patch_embed", name="embed", inputs=["image"], output="x0", patch=m.patch,
              weight="embed.weight.npy", bias="embed.bias.npy", pos="pos.npy", in_scale=s["embed"])]
    x = "x0"
    for i in range(len(m.blocks)):
        p = f"blocks.{i}."
        a = f"l{i}.attn"
        n.append(dict(op="layernorm", name=f"l{i}.ln1", inputs=[x], output=f"l{i}.n1", weight=p + "ln1.weight.npy", bias=p + "ln1.bias.npy", eps=1e-5))
        n.append(dict(op="attention", name=a, inputs=[f"l{i}.n1"], output=f"l{i}.att", heads=m.blocks[i]["attn"].h,
                      qkv_weight=p + "attn.qkv.weight.npy", qkv_bias=p + "attn.qkv.bias.npy",
                      proj_weight=p + "attn.proj.weight.npy", proj_bias=p + "attn.proj.bias.npy",
                      in_scale=s[a], q_scale=s[a + ".q"], k_scale=s[a + ".k"], v_scale=s[a + ".v"],
                      p_scale=1.0 / 127.0, o_scale=s[a + ".o"], s_scale=s[a + ".s"]))
        n.append(dict(op="add", name=f"l{i}.res1", inputs=[x, f"l{i}.att"], output=f"l{i}.x1"))
        n.append(dict(op="layernorm", name=f"l{i}.ln2", inputs=[f"l{i}.x1"], output=f"l{i}.n2", weight=p + "ln2.weight.npy", bias=p + "ln2.bias.npy", eps=1e-5))
        n.append(dict(op="dense", name=f"l{i}.fc1", inputs=[f"l{i}.n2"], output=f"l{i}.h", weight=p + "fc1.weight.npy", bias=p + "fc1.bias.npy", in_scale=s[f"l{i}.fc1"]))
        n.append(dict(op="gelu", name=f"l{i}.gelu", inputs=[f"l{i}.h"], output=f"l{i}.g"))
        n.append(dict(op="dense", name=f"l{i}.fc2", inputs=[f"l{i}.g"], output=f"l{i}.m", weight=p + "fc2.weight.npy", bias=p + "fc2.bias.npy", in_scale=s[f"l{i}.fc2"]))
        n.append(dict(op="add", name=f"l{i}.res2", inputs=[f"l{i}.x1", f"l{i}.m"], output=f"l{i}.x2"))
        x = f"l{i}.x2"
    n.append(dict(op="layernorm", name="ln", inputs=[x], output="xn", weight="ln.weight.npy", bias="ln.bias.npy", eps=1e-5))
    n.append(dict(op="token_mean", name="pool", inputs=["xn"], output="feat"))
    n.append(dict(op="dense", name="head", inputs=["feat"], output="logits", weight="head.weight.npy", bias="head.bias.npy", in_scale=s["head"]))
    return n


MODELS = {
    # name: (constructor, epochs, lr, graph builder)
    "fmnist-mlp": (MLP, 10, 1e-3, graph_mlp),
    "fmnist-cnn": (CNN, 5, 2e-3, graph_cnn),
    "fmnist-vit": (ViT, 8, 2e-3, graph_vit),
}


def evaluate(m, x, y):
    m.eval()
    with torch.no_grad():
        correct = sum(int((m(x[i:i + 1000]).argmax(1) == y[i:i + 1000]).sum()) for i in range(0, len(x), 1000))
    return correct / len(x)


def calibrate(m, x):
    amax = {}
    def rec(name, t):
        v = float(t.detach().abs().max())
        amax[name] = max(amax.get(name, 0.0), v)
    m.eval()
    with torch.no_grad():
        for i in range(0, len(x), 500):
            m(x[i:i + 500], rec)
    # float32-representable scales, so the C runtime reads the same number
    return {k: float(np.float32(max(v, 1e-8) / 127.0)) for k, v in amax.items()}


def train(name, xtr, ytr, xte, yte, out):
    ctor, epochs, lr, builder = MODELS[name]
    torch.manual_seed(SEED)
    m = ctor()
    opt = torch.optim.AdamW(m.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * math.ceil(len(xtr) / 128)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    g = torch.Generator().manual_seed(SEED)
    t0 = time.time()
    for ep in range(epochs):
        m.train()
        perm = torch.randperm(len(xtr), generator=g)
        for i in range(0, len(xtr), 128):
            idx = perm[i:i + 128]
            loss = F.cross_entropy(m(xtr[idx]), ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        print(f"{name}: epoch {ep + 1}/{epochs} loss {loss.item():.4f} test {evaluate(m, xte, yte):.4f} ({time.time() - t0:.0f} s)", flush=True)
    acc = evaluate(m, xte, yte)
    scales = calibrate(m, xtr[:CALIB])
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        if f.endswith(".npy"):
            os.remove(os.path.join(d, f))
    for k, v in m.state_dict().items():
        np.save(os.path.join(d, k + ".npy"), v.detach().numpy().astype("<f4"))
    graph = dict(format="spu-graph", version=1, name=name,
                 input=dict(name="image", shape=[1, 28, 28], scale="pixel/255"),
                 output="logits", classes=10,
                 trained=dict(script="models/train.py", seed=SEED, epochs=epochs, torch=torch.__version__,
                              fp32_test_accuracy_torch=acc, calibration_images=CALIB),
                 nodes=builder(m, scales))
    with open(os.path.join(d, "graph.json"), "w") as f:
        json.dump(graph, f, indent=1)
        f.write("\n")
    print(f"{name}: fp32 test accuracy {acc:.4f}, written to {d} ({time.time() - t0:.0f} s)", flush=True)


def recalibrate(name, xtr, out):
    """Calibrate a shipped model again from its .npy weights (no training)
    and add the scales its graph.json lacks (e.g. the attention's s_scale),
    keeping everything else: a new scale without retraining."""
    ctor, _, _, builder = MODELS[name]
    d = os.path.join(out, name)
    m = ctor()
    sd = {k: torch.from_numpy(np.load(os.path.join(d, k + ".npy"))) for k in m.state_dict()}
    m.load_state_dict(sd)
    with open(os.path.join(d, "graph.json")) as f:
        old = json.load(f)
    # adds the scales the graph lacks, keeps the existing ones (a rerun of
    # the calibration may differ from the shipped numbers in the last bit)
    for o, n in zip(old["nodes"], builder(m, calibrate(m, xtr[:CALIB]))):
        for k, v in n.items():
            o.setdefault(k, v)
    with open(os.path.join(d, "graph.json"), "w") as f:
        json.dump(old, f, indent=1)
        f.write("\n")
    print(f"{name}: scales recalibrated, written to {d}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--only", action="append")
    ap.add_argument("--calibrate-only", action="store_true",
                    help="recompute the scales of the shipped weights (no training)")
    a = ap.parse_args()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    xtr, ytr = load_split(a.data, "train")
    xte, yte = load_split(a.data, "t10k")
    for name in a.only or MODELS:
        if a.calibrate_only:
            recalibrate(name, xtr, a.out)
        else:
            train(name, xtr, ytr, xte, yte, a.out)


if __name__ == "__main__":
    main()
