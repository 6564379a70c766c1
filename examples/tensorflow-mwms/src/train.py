"""Sentiment classification of movie reviews with tf.distribute.MultiWorkerMirroredStrategy.

tony starts one copy per worker and sets TF_CONFIG; the strategy reads it to find its peers, and
the script needs nothing tony-specific. The model is the classic Keras text classifier (word
embeddings averaged over the review, then a small dense layer). Each worker reads the same .npy
files from --data-dir (make_data.py writes them), trains on its own shard of every global batch,
and gradients are all-reduced across workers after every step.
"""
import argparse
import json
import os
import time

import numpy as np
import tensorflow as tf

VOCAB_SIZE = 2000


def load(data_dir, split):
    x = np.load(os.path.join(data_dir, f"x_{split}.npy"))
    y = np.load(os.path.join(data_dir, f"y_{split}.npy"))
    return x, y


def build_model():
    model = tf.keras.Sequential([
        tf.keras.layers.Embedding(VOCAB_SIZE, 16),
        tf.keras.layers.GlobalAveragePooling1D(),
        tf.keras.layers.Dense(16, activation="relu"),
        tf.keras.layers.Dense(1, activation="sigmoid"),
    ])
    # The legacy optimizer: with TF 2.15's new Keras optimizer this model's loss stays at ln 2
    # under MultiWorkerMirroredStrategy (it trains without a strategy); the legacy one trains.
    model.compile(optimizer=tf.keras.optimizers.legacy.Adam(learning_rate=0.01),
                  loss="binary_crossentropy", metrics=["accuracy"])
    return model


class EpochLog(tf.keras.callbacks.Callback):
    def __init__(self, name):
        super().__init__()
        self.name = name

    def on_epoch_end(self, epoch, logs=None):
        print(f"{self.name}: epoch {epoch + 1} loss {logs['loss']:.4f} "
              f"accuracy {logs['accuracy']:.4f}", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default="data")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64, help="global batch size")
    args = parser.parse_args()

    tf_config = json.loads(os.environ["TF_CONFIG"])
    task = tf_config["task"]
    name = f"{task['type']} {task['index']}"
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    print(f"{name}: {strategy.num_replicas_in_sync} replicas in sync", flush=True)

    x_train, y_train = load(args.data_dir, "train")
    x_test, y_test = load(args.data_dir, "test")
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    train = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
             .shuffle(len(x_train), seed=7, reshuffle_each_iteration=True)
             .batch(args.batch_size, drop_remainder=True).with_options(options))
    test = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(256).with_options(options)

    tf.keras.utils.set_random_seed(1234)  # the same initial weights on every worker
    with strategy.scope():
        model = build_model()
    start = time.time()
    model.fit(train, epochs=args.epochs, verbose=0, callbacks=[EpochLog(name)])
    loss, accuracy = model.evaluate(test, verbose=0)
    checksum = float(sum(np.sum(w) for w in model.get_weights()))
    print(f"{name}: final test loss {loss:.4f} accuracy {accuracy:.4f} "
          f"weights_checksum {checksum:.6f} train_seconds {time.time() - start:.1f}", flush=True)


if __name__ == "__main__":
    main()
