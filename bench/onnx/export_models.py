#!/usr/bin/env python3
"""Whole-model references for `ekb import` (tests/onnx/onnx_import_test.cpp, OnnxImportModels).

Run on the GPU machine, where PyTorch (and torchvision, onnx, onnxruntime) are installed:

    python3 bench/onnx/export_models.py --out tests/onnx/models

For each model below it writes MODEL/model.onnx (exported by torch.onnx with static shapes, random
weights from a fixed seed, batch-norm statistics randomised so that no layer is the identity),
MODEL/test_data_set_0/input_0.pb (a fixed input) and output_0.pb (onnxruntime's output on the CPU
provider, in float32), and MODEL/info.json (versions, opset, the oracle, and how far PyTorch's own
output is from onnxruntime's). The files use the layout of ONNX's node tests, so the same runner
reads them. Nothing here is computed by ekb.

The models are width-reduced so that the directory stays small enough to commit (the script fails
when a model file exceeds --max-mb, default 4): torchvision's MobileNetV2 at width 0.35 (10
classes, 96x96), ResNet-18's structure at a quarter of its widths (16-32-64-128 channels, 10
classes, 64x64; torchvision's BasicBlock), a DS-CNN keyword spotter (Zhang et al., "Hello Edge",
the small model: 64 channels, 4 depthwise-separable blocks, 49x10 MFCC in, 12 classes), and a
small vision-transformer encoder block (LayerNorm, multi-head attention through MatMul / Softmax,
erf GELU MLP). With --quantized and onnxruntime's quantization tools, also DS-CNN quantized
statically to uint8 in the QOperator format (QLinearConv, QuantizeLinear, DequantizeLinear).
"""
import argparse
import inspect
import json
import os
import sys

import numpy as np
import torch
import torch.nn as nn


def seeded(seed):
    torch.manual_seed(seed)
    np.random.seed(seed)


def randomise_batchnorm(model, gen):
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(m.running_var.shape, generator=gen) * 0.5 + 0.75)
                m.weight.copy_(1.0 + torch.randn(m.weight.shape, generator=gen) * 0.1)
                m.bias.copy_(torch.randn(m.bias.shape, generator=gen) * 0.1)


def mobilenet_v2_035():
    import torchvision
    return torchvision.models.mobilenet_v2(weights=None, width_mult=0.35, num_classes=10), (1, 3, 96, 96)


class ResNet18Quarter(nn.Module):
    """ResNet-18's layout (torchvision.models.resnet18) at a quarter of the widths."""

    def __init__(self, num_classes=10, widths=(16, 32, 64, 128)):
        super().__init__()
        from torchvision.models.resnet import BasicBlock
        self.inplanes = widths[0]
        self.conv1 = nn.Conv2d(3, widths[0], 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(widths[0])
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        layers = []
        for i, w in enumerate(widths):
            stride = 1 if i == 0 else 2
            down = None
            if stride != 1 or self.inplanes != w:
                down = nn.Sequential(nn.Conv2d(self.inplanes, w, 1, stride, bias=False), nn.BatchNorm2d(w))
            blocks = [BasicBlock(self.inplanes, w, stride, down)]
            self.inplanes = w
            blocks.append(BasicBlock(w, w))
            layers.append(nn.Sequential(*blocks))
        self.layer1, self.layer2, self.layer3, self.layer4 = layers
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(widths[-1], num_classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


class DSCNN(nn.Module):
    """DS-CNN (small) from "Hello Edge: Keyword Spotting on Microcontrollers" (Zhang et al., 2017)."""

    def __init__(self, classes=12, ch=64, blocks=4):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, ch, (10, 4), (2, 2), (5, 1), bias=False), nn.BatchNorm2d(ch), nn.ReLU())
        ds = []
        for _ in range(blocks):
            ds += [nn.Conv2d(ch, ch, 3, 1, 1, groups=ch, bias=False), nn.BatchNorm2d(ch), nn.ReLU(),
                   nn.Conv2d(ch, ch, 1, bias=False), nn.BatchNorm2d(ch), nn.ReLU()]
        self.ds = nn.Sequential(*ds)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(ch, classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.ds(self.conv(x))), 1))


class TinyViTBlock(nn.Module):
    """A pre-LN transformer encoder block (ViT-style) over 16 tokens of width 64, 4 heads."""

    def __init__(self, tokens=16, dim=64, heads=4, mlp=128):
        super().__init__()
        self.heads, self.dh = heads, dim // heads
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.fc1, self.fc2 = nn.Linear(dim, mlp), nn.Linear(mlp, dim)
        self.gelu = nn.GELU()

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).reshape(b, t, 3, self.heads, self.dh).permute(2, 0, 3, 1, 4)
        a = torch.softmax(q @ k.transpose(-2, -1) / self.dh ** 0.5, dim=-1)
        x = x + self.proj((a @ v).transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(self.gelu(self.fc1(self.ln2(x))))


MODELS = {
    "mobilenet_v2_035_96": mobilenet_v2_035,
    "resnet18_quarter_64": lambda: (ResNet18Quarter(), (1, 3, 64, 64)),
    "ds_cnn_kws": lambda: (DSCNN(), (1, 1, 49, 10)),
    "vit_block_16x64": lambda: (TinyViTBlock(), (1, 16, 64)),
}


def save_tensor(array, path):
    from onnx import numpy_helper
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array).SerializeToString())


def export(name, make, out, opset, max_mb, oracle_pref):
    seeded(1234)
    model, shape = make()
    gen = torch.Generator().manual_seed(99)
    randomise_batchnorm(model, gen)
    model.eval()
    x = torch.randn(shape, generator=torch.Generator().manual_seed(7))
    d = os.path.join(out, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    path = os.path.join(d, "model.onnx")
    kwargs = dict(opset_version=opset, input_names=["input"], output_names=["output"], do_constant_folding=True)
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        kwargs["dynamo"] = False  # the TorchScript exporter: static shapes, standard ops
    with torch.no_grad():
        torch.onnx.export(model, (x,), path, **kwargs)
        y_torch = model(x).numpy()
    size_mb = os.path.getsize(path) / 2**20
    if size_mb > max_mb:
        sys.exit(f"{name}: model.onnx is {size_mb:.1f} MB, above --max-mb {max_mb}: too large to commit")
    return finish(name, d, path, x.numpy(), y_torch, opset, oracle_pref)


def finish(name, d, path, x, y_torch, opset, oracle_pref):
    info = {"model": name, "opset": opset, "torch": torch.__version__, "input_shape": list(x.shape)}
    y = None
    if oracle_pref == "onnxruntime":
        try:
            import onnxruntime as ort
            sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
            y = sess.run(None, {sess.get_inputs()[0].name: x})[0]
            info["oracle"] = "onnxruntime " + ort.__version__ + " (CPUExecutionProvider)"
        except ImportError:
            print(f"{name}: onnxruntime is not installed: the reference is PyTorch's own output", file=sys.stderr)
    if y is None:
        y = y_torch
        info["oracle"] = "pytorch " + torch.__version__ + " (eager, CPU, float32)"
    if y_torch is not None:
        info["max_abs_diff_pytorch_vs_oracle"] = float(np.max(np.abs(y - y_torch)))
    save_tensor(x.astype(np.float32) if x.dtype == np.float64 else x, os.path.join(d, "test_data_set_0", "input_0.pb"))
    save_tensor(y, os.path.join(d, "test_data_set_0", "output_0.pb"))
    info["model_bytes"] = os.path.getsize(path)
    with open(os.path.join(d, "info.json"), "w") as f:
        json.dump(info, f, indent=2)
    print(f"{name}: {info['model_bytes'] / 2**20:.2f} MB, output {list(y.shape)}, oracle {info['oracle']}")
    return path


def quantize_ds_cnn(out, fp32_path, opset):
    """DS-CNN quantized statically (uint8, QOperator: QLinearConv) with onnxruntime's tools."""
    import onnxruntime as ort
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    class Reader(CalibrationDataReader):
        def __init__(self):
            g = np.random.default_rng(5)
            self.items = iter([{"input": g.standard_normal((1, 1, 49, 10)).astype(np.float32)} for _ in range(16)])

        def get_next(self):
            return next(self.items, None)

    name = "ds_cnn_kws_uint8"
    d = os.path.join(out, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    path = os.path.join(d, "model.onnx")
    quantize_static(fp32_path, path, Reader(), quant_format=QuantFormat.QOperator, op_types_to_quantize=["Conv"],
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QUInt8)
    x = np.random.default_rng(7).standard_normal((1, 1, 49, 10)).astype(np.float32)
    finish(name, d, path, x, None, opset, "onnxruntime")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="tests/onnx/models")
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--max-mb", type=float, default=4.0)
    ap.add_argument("--oracle", choices=["onnxruntime", "pytorch"], default="onnxruntime")
    ap.add_argument("--quantized", action="store_true", help="also DS-CNN quantized to uint8 (needs onnxruntime)")
    ap.add_argument("--only", nargs="*", help="export only these models")
    a = ap.parse_args()
    paths = {}
    for name, make in MODELS.items():
        if a.only and name not in a.only:
            continue
        paths[name] = export(name, make, a.out, a.opset, a.max_mb, a.oracle)
    if a.quantized and "ds_cnn_kws" in paths:
        quantize_ds_cnn(a.out, paths["ds_cnn_kws"], a.opset)


if __name__ == "__main__":
    main()
