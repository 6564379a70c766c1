"""First-step probe for examples/tensorflow-mwms: MultiWorkerMirroredStrategy from TF_CONFIG, the
example's data files, dataset and model, one training step (model.fit with steps_per_epoch=1),
then a timestamp. Same code under tony and under hand-started processes."""
import stamp  # noqa: F401  (first: records the start time)
import argparse
import json
import os
import time

import numpy as np
import tensorflow as tf

VOCAB_SIZE = 2000


def load(data_dir, split):
    return (np.load(os.path.join(data_dir, f"x_{split}.npy")),
            np.load(os.path.join(data_dir, f"y_{split}.npy")))


def main():
    imported = time.time()
    p = argparse.ArgumentParser()
    p.add_argument("--data-dir", default="data")
    p.add_argument("--stamp-dir")
    args = p.parse_args()
    task = json.loads(os.environ["TF_CONFIG"])["task"]
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    initialized = time.time()
    x_train, y_train = load(args.data_dir, "train")
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    train = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
             .shuffle(len(x_train), seed=7, reshuffle_each_iteration=True)
             .batch(64, drop_remainder=True).with_options(options))
    tf.keras.utils.set_random_seed(1234)
    with strategy.scope():
        model = tf.keras.Sequential([
            tf.keras.layers.Embedding(VOCAB_SIZE, 16),
            tf.keras.layers.GlobalAveragePooling1D(),
            tf.keras.layers.Dense(16, activation="relu"),
            tf.keras.layers.Dense(1, activation="sigmoid"),
        ])
        model.compile(optimizer=tf.keras.optimizers.legacy.Adam(learning_rate=0.01),
                      loss="binary_crossentropy", metrics=["accuracy"])
    model.fit(train, epochs=1, steps_per_epoch=1, verbose=0)
    first_step = time.time()
    stamp.write(task["index"], imported=imported, initialized=initialized, first_step=first_step)


if __name__ == "__main__":
    main()
