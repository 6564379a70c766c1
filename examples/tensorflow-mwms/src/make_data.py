"""Writes a synthetic movie-review data set, shaped like Keras' IMDB sentiment data, as .npy files.

Reviews are sequences of word ids from a 2,000-word vocabulary (0 is padding, 1 marks an unknown
word). Most words are neutral and drawn with Zipf-like frequencies, as in real text; 60 words carry
sentiment (ids 2-31 positive, 32-61 negative). A positive review mentions mostly positive words and
a negative review mostly negative ones, but both mention some of the other kind, and 5% of the
labels are flipped, so no model can reach 100%. Deterministic for a given --seed.

    python3 make_data.py --out data/
writes data/{x_train,y_train,x_test,y_test}.npy (x: int32 [n, 100], y: float32 [n]).
"""
import argparse
import os

import numpy as np

VOCAB_SIZE = 2000
MAX_LEN = 100
POSITIVE = np.arange(2, 32)
NEGATIVE = np.arange(32, 62)
NEUTRAL = np.arange(62, VOCAB_SIZE)


def reviews(n, rng):
    zipf = 1.0 / np.arange(1, len(NEUTRAL) + 1)
    zipf /= zipf.sum()
    x = np.zeros((n, MAX_LEN), dtype=np.int32)
    y = rng.integers(0, 2, size=n)
    for i in range(n):
        length = rng.integers(30, MAX_LEN + 1)
        words = rng.choice(NEUTRAL, size=length, p=zipf)
        # A few sentiment words, most of them of the review's own polarity.
        k = rng.integers(2, 9)
        same, other = (POSITIVE, NEGATIVE) if y[i] == 1 else (NEGATIVE, POSITIVE)
        picks = np.where(rng.random(k) < 0.8, rng.choice(same, size=k), rng.choice(other, size=k))
        words[rng.choice(length, size=k, replace=False)] = picks
        words[rng.random(length) < 0.02] = 1  # the odd out-of-vocabulary word
        x[i, MAX_LEN - length:] = words  # pre-padded, as keras.utils.pad_sequences does
    flip = rng.random(n) < 0.05
    y = np.where(flip, 1 - y, y)
    return x, y.astype(np.float32)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="data")
    parser.add_argument("--train", type=int, default=10000)
    parser.add_argument("--test", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    os.makedirs(args.out, exist_ok=True)
    for split, n in (("train", args.train), ("test", args.test)):
        x, y = reviews(n, rng)
        np.save(os.path.join(args.out, f"x_{split}.npy"), x)
        np.save(os.path.join(args.out, f"y_{split}.npy"), y)
        print(f"{split}: {n} reviews, {int(y.sum())} positive -> {args.out}")


if __name__ == "__main__":
    main()
