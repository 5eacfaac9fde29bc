#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora from Tessera's own demo batch (bench/inputs/demo).

    reliability/make_seed_corpus.py OUT_DIR [BATCH]
    -> OUT_DIR/fuzz_parsers/, fuzz_memory_desc/, fuzz_reorder/, fuzz_softmax/

Each problem of the batch (its types, tags, dims, axis, algorithm, attributes) is encoded in the
byte format the targets decode (reliability/fuzz_input.h and the comment at the top of each
fuzz_*.cc), with dims shrunk so that one execution stays small: the fuzzer then starts from
real layouts (nChw16c with padding, OIhw16i16o, transposes, quantization, sum) and mutates them.
"""
import hashlib
import os
import re
import shlex
import sys

TYPES = ["f32", "f64", "bf16", "f16", "f8_e5m2", "f8_e4m3", "s32", "s8", "u8"]
REORDER_SCALES = [1.0, 0.5, 2.0, 0.25, -1.5, 3.0]   # the first entries of fuzz_reorder's table
DIMS_RE = re.compile(r'^(\d+(?:x\d+)*)(?:_n"?([^"]*)"?)?$')


def parse_batch(path):
    """Yields (driver, knobs dict, dims list, name) for each problem line, benchdnn-style."""
    driver, knobs = None, {}
    with open(path) as f:
        for raw in f:
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            for tok in shlex.split(line, posix=False):
                if tok in ("--reorder", "--softmax"):
                    driver, knobs = tok[2:], {}
                elif tok == "--reset":
                    knobs = {}
                elif tok.startswith("--") and "=" in tok:
                    k, v = tok[2:].split("=", 1)
                    knobs[k] = v
                else:
                    m = DIMS_RE.match(tok)
                    if m and driver:
                        yield driver, dict(knobs), [int(d) for d in m.group(1).split("x")], \
                            m.group(2) or m.group(1)


def shrink(dims, limit):
    """Dims below `limit` stay (17 keeps nChw16c's padding); larger ones become small."""
    return [d if d < limit else 2 + d % (limit // 2) for d in dims]


def tag_desc(tag):
    data = tag.encode()
    return bytes([0, len(data)]) + data


def strided_desc(rank, reverse):
    """Mode 1: keys give the dim order (reverse: innermost dim outermost), one gap on dim 0."""
    out = bytearray([1])
    for d in range(rank):
        key = d if reverse else rank - d
        out += bytes([key, 1 if d == 0 else 0])
    return bytes(out)


def type_index(name):
    return TYPES.index(name)


def reorder_seeds(knobs, dims):
    small = shrink(dims, 18)
    sdt, ddt = knobs.get("sdt", "f32"), knobs.get("ddt", "f32")
    stag, dtag = knobs.get("stag", "abx"), knobs.get("dtag", "abx")
    flags, masks, tail = 0, b"", b""
    scales = knobs.get("attr-scales", "")
    if scales.startswith("src:common:"):
        flags |= 1
        masks += bytes([0])
        value = float(scales.split(":")[2])
        tail += bytes([REORDER_SCALES.index(value) if value in REORDER_SCALES else 0])
    if knobs.get("attr-post-ops", "").startswith("sum"):
        flags |= 16
        masks += bytes([0, 0])   # beta = table[0] = 1, zero point 0
    if "dst:stochastic" in knobs.get("attr-rounding-mode", ""):
        flags |= 128
        masks += bytes([123, 0])   # the seed's two bytes
    head = bytes([len(small) - 1] + [d % 18 for d in small]) + \
        bytes([type_index(sdt), type_index(ddt)])
    attrs = bytes([flags]) + masks
    for fill in (7, 8):   # random values, and probe values (bit 0)
        yield head + tag_desc(stag) + tag_desc(dtag) + attrs + bytes([fill]) + tail
    yield head + strided_desc(len(small), False) + strided_desc(len(small), True) + attrs + \
        bytes([3]) + tail


def softmax_seeds(knobs, dims):
    small = shrink(dims, 12)
    axis = int(knobs.get("axis", "1"))
    alg = 1 if knobs.get("alg", "SOFTMAX").upper() == "LOGSOFTMAX" else 0
    backward = 1 if knobs.get("dir", "FWD_D").upper().startswith("BWD") else 0
    sdt, ddt = knobs.get("sdt", "f32"), knobs.get("ddt", knobs.get("sdt", "f32"))
    stag = knobs.get("stag", "abx")
    head = bytes([len(small) - 1] + [d % 12 for d in small] + [axis, alg, backward,
                                                               type_index(sdt), type_index(ddt)])
    tail = bytes([0, 0, 0, 5])   # no scales, seed 5
    yield head + tag_desc(stag) + bytes([0]) + tail             # dst: any
    yield head + tag_desc(stag) + bytes([1]) + tag_desc(stag) + tail
    yield head + strided_desc(len(small), True) + bytes([0]) + bytes([3, 1, 2, 9])  # scales


def memory_desc_seeds(knobs, dims, dt):
    for tag in {knobs.get("stag"), knobs.get("dtag")} - {None}:
        head = bytes([len(dims)])
        for d in dims:
            head += bytes([d << 1]) if d < 128 else bytes([1]) + d.to_bytes(8, "little")
        head += bytes([type_index(dt)]) + tag_desc(tag)
        yield head + bytes([3])                                          # no operation
        yield head + bytes([0]) + bytes(b for d in dims for b in (min(max(d // 2, 1), 39), 0))  # submemory
        yield head + bytes([1]) + bytes(reversed(range(len(dims))))      # permute_axes
        yield head + bytes([2, len(dims) + 1]) + bytes([1] + [d % 64 for d in dims])  # reshape: add a 1


def parser_seeds(knobs, dims):
    dims_text = "x".join(map(str, dims))
    dt = knobs.get("sdt", "f32")
    for tag in {knobs.get("stag"), knobs.get("dtag")} - {None}:
        rank_byte = (len(dims) + 1) * 4   # selector 0: parse_tag with the rank
        yield bytes([rank_byte]) + tag.encode()
        yield bytes([0]) + tag.encode()  # rank unknown
        yield bytes([1]) + f"{dt}::blocked:{tag}:f0|{dims_text}".encode()
        yield bytes([2]) + f"--sdt={dt} --stag={tag} {dims_text}".encode()
    yield bytes([3]) + dims_text.encode()


def write(out_dir, target, seeds):
    path = os.path.join(out_dir, target)
    os.makedirs(path, exist_ok=True)
    n = 0
    for seed in seeds:
        name = hashlib.sha1(seed).hexdigest()
        with open(os.path.join(path, name), "wb") as f:
            f.write(seed)
        n += 1
    return n


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    batch = sys.argv[2] if len(sys.argv) == 3 else os.path.join(here, "..", "bench", "inputs",
                                                                "demo")
    problems = list(parse_batch(batch))
    if not problems:
        sys.exit(f"no problems found in {batch}")
    seeds = {"fuzz_parsers": [], "fuzz_memory_desc": [], "fuzz_reorder": [], "fuzz_softmax": []}
    for driver, knobs, dims, _ in problems:
        seeds["fuzz_parsers"] += parser_seeds(knobs, dims)
        seeds["fuzz_memory_desc"] += memory_desc_seeds(knobs, dims, knobs.get("sdt", "f32"))
        if driver == "reorder":
            seeds["fuzz_reorder"] += reorder_seeds(knobs, dims)
        else:
            seeds["fuzz_softmax"] += softmax_seeds(knobs, dims)
    for target, s in seeds.items():
        print(f"{target}: {write(out_dir, target, s)} seeds from {len(problems)} problems")


if __name__ == "__main__":
    main()
