// Randomized order (static/js/order.js) and the quota check before anything is
// randomized (static/js/quotas.js).
import assert from "node:assert/strict";
import test from "node:test";

import { below, shuffled } from "../../static/js/order.js";
import { fullCell } from "../../static/js/quotas.js";

// A deterministic source of 32-bit words, as crypto.getRandomValues fills them.
function words(list) {
  let i = 0;
  return (buffer) => {
    buffer[0] = list[i % list.length];
    i += 1;
    return buffer;
  };
}

test("below draws by rejection: a word past the last whole multiple is drawn again", () => {
  // 2^32 mod 3 = 1: the largest word (2^32 - 1) is rejected, the next one used.
  assert.equal(below(3, words([2 ** 32 - 1, 7])), 7 % 3);
  assert.throws(() => below(0), RangeError);
});

test("every permutation of three items is reachable and each draw is a permutation", () => {
  const seen = new Set();
  for (let a = 0; a < 3; a += 1) {
    for (let b = 0; b < 2; b += 1) {
      const order = shuffled(["x", "y", "z"], words([a, b]));
      assert.deepEqual([...order].sort(), ["x", "y", "z"]);
      seen.add(order.join(""));
    }
  }
  assert.equal(seen.size, 6);
});

test("shuffling with the device's own random source keeps the items", () => {
  const items = Array.from({ length: 20 }, (_, i) => i);
  assert.deepEqual([...shuffled(items)].sort((p, q) => p - q), items);
});

const CONFIG = { quotas_full: { 7: [1], 8: [0, 2] } };

test("an unprotected answer in a full quota cell is found before anything is randomized", () => {
  const plain = new Map([[7, { values: ["0"], skipped: false }], [8, { values: ["1", "2"], skipped: false }]]);
  assert.deepEqual(fullCell(CONFIG, plain), { id: 8, value: 2 });
});

test("answers outside full cells, and skipped questions, pass the quota check", () => {
  const plain = new Map([[7, { values: ["0"], skipped: false }], [8, { values: [], skipped: true }]]);
  assert.equal(fullCell(CONFIG, plain), null);
  assert.equal(fullCell({}, plain), null);
});
